package tmux

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeSSH writes an `ssh` script into a new directory put first on $PATH:
// it skips ssh's options, takes the destination, and runs the remote
// command line with a shell, tmux pointed at socket — so a "remote" host
// is a real tmux server on this machine.
func fakeSSH(t *testing.T, socket string) {
	t.Helper()
	dir := t.TempDir()
	script := `#!/bin/sh
while [ $# -gt 0 ]; do
	case "$1" in
	-o|-p|-l|-i|-F) shift 2 ;;
	--) shift; break ;;
	-*) shift ;;
	*) break ;;
	esac
done
host="$1"; shift
echo "$host" >> "` + dir + `/hosts"
tmux() { command tmux -L "` + socket + `" "$@"; }
eval "$*"
`
	if err := os.WriteFile(filepath.Join(dir, "ssh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// quote is POSIX shell single-quoting, as a remote runner must do: ssh
// joins its arguments into one command line for the remote shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'" }

func TestExecThroughSSH(t *testing.T) {
	local := startServer(t, `printf '\033]2;remote agent\033\\'; printf 'it'"'"'s #{pane_id} from afar\n'; exec sleep 300`)
	fakeSSH(t, local.Socket)
	remote := &Client{Exec: func(ctx context.Context, name string, args ...string) *exec.Cmd {
		words := []string{quote(name)}
		for _, a := range args {
			words = append(words, quote(a))
		}
		return exec.CommandContext(ctx, "ssh", "-o", "BatchMode=yes", "--", "devbox", strings.Join(words, " "))
	}}
	ctx := context.Background()
	var panes []Pane
	var screen string
	for range 200 {
		var err error
		if panes, err = remote.ListPanes(ctx); err != nil {
			t.Fatal(err)
		}
		if len(panes) == 1 {
			if screen, err = remote.Capture(ctx, panes[0].ID); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(screen, "from afar") && panes[0].Title == "remote agent" {
				break
			}
		}
		exec.Command("tmux", "-L", local.Socket, "wait-for", "-S", "none").Run()
	}
	if len(panes) != 1 || panes[0].Title != "remote agent" || panes[0].WindowName != "api" {
		t.Fatalf("panes through ssh = %+v", panes)
	}
	if !strings.Contains(screen, "it's #{pane_id} from afar") {
		t.Errorf("screen through ssh = %q", screen)
	}
	d, err := remote.Describe(ctx, panes[0].ID)
	if err != nil || d != panes[0] {
		t.Errorf("Describe = %+v, %v; want %+v", d, err, panes[0])
	}
	// Run passes arguments through the remote shell unharmed.
	out, err := remote.Run(ctx, "display-message", "-p", "-t", panes[0].ID, `a'b "c" $HOME #{window_name}`)
	if err != nil || out != `a'b "c" $HOME api`+"\n" {
		t.Errorf("Run = %q, %v", out, err)
	}
}

func TestPaste(t *testing.T) {
	c := startServer(t, `exec cat`)
	ctx := context.Background()
	panes, err := c.ListPanes(ctx)
	if err != nil || len(panes) != 1 {
		t.Fatalf("panes = %v, %v", panes, err)
	}
	if err := c.Paste(ctx, panes[0].ID, "first line\nsecond 'quoted' line"); err != nil {
		t.Fatal(err)
	}
	var screen string
	for range 200 {
		screen, _ = c.Capture(ctx, panes[0].ID)
		if strings.Contains(screen, "second 'quoted' line") {
			break
		}
		exec.Command("tmux", "-L", c.Socket, "wait-for", "-S", "none").Run()
	}
	if !strings.Contains(screen, "first line") || !strings.Contains(screen, "second 'quoted' line") {
		t.Fatalf("screen after paste = %q", screen)
	}
	if out, _ := c.Run(ctx, "list-buffers", "-F", "#{buffer_name}"); strings.Contains(out, "attn-") {
		t.Errorf("paste left its buffer behind: %q", out)
	}
}

func TestRunNeedsACommand(t *testing.T) {
	if _, err := (&Client{}).Run(context.Background()); err == nil {
		t.Fatal("Run with no command: want an error")
	}
}
