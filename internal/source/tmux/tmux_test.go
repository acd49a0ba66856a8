package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// startServer runs a private tmux server with one pane running script and
// returns a client for it; the server is killed when the test ends.
func startServer(t *testing.T, script string) *Client {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: run .ci/run, or apt-get install tmux")
	}
	sock := fmt.Sprintf("attn-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	c := &Client{Socket: sock}
	cmd := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", "t", "-n", "api", script)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("start tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	return c
}

func TestListAndCapture(t *testing.T) {
	c := startServer(t, `printf '\033]2;my title\033\\'; printf 'hello from the pane\n'; exec sleep 300`)
	ctx := context.Background()
	var panes []Pane
	var screen string
	// The pane's script runs asynchronously; poll list+capture a bounded
	// number of times for its output to appear.
	for range 200 {
		var err error
		panes, err = c.ListPanes(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(panes) == 1 {
			screen, err = c.Capture(ctx, panes[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(screen, "hello from the pane") && panes[0].Title == "my title" {
				break
			}
		}
		exec.Command("tmux", "-L", c.Socket, "wait-for", "-S", "none").Run() // a cheap round trip, no sleep
	}
	if len(panes) != 1 {
		t.Fatalf("panes = %+v, want 1", panes)
	}
	p := panes[0]
	if !strings.HasPrefix(p.ID, "%") || p.PID == "" || p.WindowName != "api" || p.Session != "t" || p.Title != "my title" || p.Dead {
		t.Errorf("pane = %+v", p)
	}
	if !strings.Contains(screen, "hello from the pane") {
		t.Errorf("screen = %q", screen)
	}
}

func TestNoServer(t *testing.T) {
	c := &Client{Socket: fmt.Sprintf("attn-test-absent-%d", os.Getpid())}
	if _, err := c.ListPanes(context.Background()); !errors.Is(err, ErrNoServer) {
		t.Fatalf("err = %v, want ErrNoServer", err)
	}
}

func TestMissingBinarySaysInstall(t *testing.T) {
	c := &Client{Binary: "/nonexistent/tmux"}
	_, err := c.ListPanes(context.Background())
	if err == nil || !strings.Contains(err.Error(), "install tmux") {
		t.Fatalf("err = %v", err)
	}
}
