package e2e

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/source/hook"
)

// hookFixture returns the bytes of a shared hook payload fixture.
func hookFixture(t *testing.T, name string) []byte {
	t.Helper()
	var path string
	if d := os.Getenv("ATTN_FIXTURES"); d != "" {
		path = filepath.Join(d, "hooks", name)
	} else {
		for dir := repoRoot(t); ; dir = filepath.Dir(dir) {
			p := filepath.Join(dir, "shared", "fixtures", "hooks", name)
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
			if dir == filepath.Dir(dir) {
				t.Fatalf("hook fixture %s not found: set ATTN_FIXTURES to the shared/fixtures directory", name)
			}
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hookStateDir returns a short state directory (unix socket paths are
// limited to about 100 bytes).
func hookStateDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "attne2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// hookRun is one finished `attn hook` process.
type hookRun struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// runHook runs the attn binary with args, stdin and extra environment.
func runHook(t *testing.T, stdin *os.File, stateDir string, env []string, args ...string) hookRun {
	t.Helper()
	cmd := exec.Command(attnBinary(t), args...)
	// The race detector's runtime sleeps 1 s at exit by default
	// (atexit_sleep_ms): not attn's time.
	cmd.Env = append(os.Environ(), "ATTN_STATE_DIR="+stateDir, "TMUX=", "TMUX_PANE=", "HERDR_PANE_ID=", "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = stdin // an *os.File: Wait does not wait for a copy
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run attn %v: %v", args, err)
	}
	return r
}

// stdinOf returns a file to read data from, closed at the end of the test.
func stdinOf(t *testing.T, data []byte) *os.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "stdin")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// failsOpen checks what an agent must always get from `attn hook`: exit 0,
// nothing on stdout, at most one line on stderr, within a second.
func (r hookRun) failsOpen(t *testing.T, what string) {
	t.Helper()
	// The hook's own budget (700 ms) is what bounds it; wall time here
	// includes starting a race-built binary on a loaded machine, so the
	// bound is only a hang guard. The 1 s goal is measured in bench/.
	if r.code != 0 || r.stdout != "" || strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") > 0 || r.took >= hangGuard {
		t.Errorf("%s: exit %d after %v, stdout %q, stderr %q; want exit 0 without hanging, no stdout, at most one stderr line",
			what, r.code, r.took, r.stdout, r.stderr)
	}
}

// hangGuard is how long a hook may take before the test calls it hung.
const hangGuard = 5 * time.Second

// TestHookFailsOpen: with no daemon, with malformed payloads, with a
// payload that never ends, `attn hook` exits 0 within a second and prints
// nothing on stdout.
func TestHookFailsOpen(t *testing.T) {
	dir := hookStateDir(t) // no daemon here
	cases := []struct {
		name  string
		stdin []byte
		args  []string
		says  string
	}{
		{"claude, daemon down", hookFixture(t, "claude-permission-request.json"), []string{"hook", "claude"}, "no attn daemon is listening"},
		{"codex argv, daemon down", nil, []string{"hook", "codex", string(hookFixture(t, "codex-notify-argv.json"))}, "no attn daemon is listening"},
		{"not JSON", []byte("Traceback (most recent call last):"), []string{"hook", "claude"}, "hook payload is not JSON"},
		{"JSON array", []byte(`[{"hook_event_name":"Stop"}]`), []string{"hook", "gemini"}, "JSON array, not an object"},
		{"no hook_event_name", []byte(`{"session_id":"s"}`), []string{"hook", "claude"}, "no hook_event_name"},
		{"empty stdin", nil, []string{"hook", "opencode"}, "hook payload is empty"},
		{"codex argv missing", nil, []string{"hook", "codex"}, "last argument"},
		{"huge", append(append([]byte(`{"hook_event_name":"Stop","x":"`), bytes.Repeat([]byte("x"), 3<<20)...), '"', '}'), []string{"hook", "claude"}, "1 MiB"},
		{"no agent", nil, []string{"hook"}, "no agent named"},
		{"unknown agent", nil, []string{"hook", "aider"}, `unknown agent "aider"`},
		{"unknown flag", nil, []string{"hook", "--no-such-flag", "claude"}, "no-such-flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runHook(t, stdinOf(t, c.stdin), dir, nil, c.args...)
			r.failsOpen(t, c.name)
			if !strings.Contains(r.stderr, c.says) {
				t.Errorf("stderr %q does not say %q", r.stderr, c.says)
			}
		})
	}
	t.Run("stdin never closes", func(t *testing.T) {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		defer pw.Close()
		pw.Write([]byte(`{"hook_event_name":`)) // and nothing more, ever
		r := runHook(t, pr, dir, nil, "hook", "claude")
		r.failsOpen(t, "stdin never closes")
		if !strings.Contains(r.stderr, "gave up") {
			t.Errorf("stderr %q", r.stderr)
		}
	})
}

// TestHookReachesDaemon: inside a real tmux pane, `attn hook` hands each
// fixture's event to the hook socket with the pane it ran in; a malformed
// payload still reaches the daemon's log as an ignored event; a daemon
// that never answers does not hold the hook.
func TestHookReachesDaemon(t *testing.T) {
	dir := hookStateDir(t)
	r, err := hook.Listen(filepath.Join(dir, hook.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan hook.Event, 32)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx, func(_ context.Context, ev hook.Event) { events <- ev }) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	next := func(t *testing.T) hook.Event {
		t.Helper()
		select {
		case ev := <-events:
			return ev
		case <-time.After(10 * time.Second):
			t.Fatal("no event reached the socket")
			return hook.Event{}
		}
	}

	tm := startTmux(t)
	tmuxDir := t.TempDir()
	cases := []struct {
		fixture, agent string
		argv           bool // Codex's notify: the payload as the last argument
		kind           hook.Kind
		tool           string
	}{
		{"claude-permission-request.json", "claude", false, hook.KindBlocked, "Bash"},
		{"claude-notification-idle.json", "claude", false, hook.KindReminder, ""},
		{"claude-subagent-stop.json", "claude", false, hook.KindIgnored, ""},
		{"codex-notify-argv.json", "codex", true, hook.KindFinished, ""},
		{"gemini-notification-toolpermission.json", "gemini", false, hook.KindBlocked, "run_shell_command"},
		{"opencode-permission-asked.json", "opencode", false, hook.KindBlocked, "bash"},
	}
	for i, c := range cases {
		t.Run(c.fixture, func(t *testing.T) {
			payload := filepath.Join(tmuxDir, c.fixture)
			writeFile(t, payload, string(hookFixture(t, c.fixture)))
			errFile := filepath.Join(tmuxDir, c.fixture+".err")
			script := "ATTN_STATE_DIR=" + dir + " " + attnBinary(t) + " hook " + c.agent + " < " + payload
			if c.argv {
				script = "ATTN_STATE_DIR=" + dir + " " + attnBinary(t) + " hook " + c.agent + ` "$(cat ` + payload + `)" < /dev/null`
			}
			script += " > " + errFile + ".out 2> " + errFile + "; exec sleep 60"
			pane := tm.newWindow(t, "h"+itoa(i), "sh", "-c", script)
			ev := next(t)
			if ev.Agent != c.agent || ev.Kind != c.kind || ev.Tool != c.tool || ev.Pane != pane {
				t.Errorf("got %+v; want agent %s kind %s tool %q pane %s", ev, c.agent, c.kind, c.tool, pane)
			}
			if ev.TmuxSocket == "" || !strings.HasSuffix(ev.TmuxSocket, "/"+tm.socket) {
				t.Errorf("tmux socket %q, want the path of -L %s", ev.TmuxSocket, tm.socket)
			}
			// The hook said nothing at all.
			deadline := time.Now().Add(5 * time.Second)
			for {
				out, err1 := os.ReadFile(errFile + ".out")
				errOut, err2 := os.ReadFile(errFile)
				if err1 == nil && err2 == nil {
					if len(out) != 0 || len(errOut) != 0 {
						t.Errorf("stdout %q, stderr %q", out, errOut)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the hook's output files never appeared")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}

	t.Run("malformed payload is logged by the daemon", func(t *testing.T) {
		run := runHook(t, stdinOf(t, []byte("{not json")), dir, []string{"TMUX_PANE=%7"}, "hook", "claude")
		run.failsOpen(t, "malformed")
		ev := next(t)
		if ev.Kind != hook.KindIgnored || ev.Agent != "claude" || ev.Pane != "%7" || !strings.Contains(ev.Reason, "malformed hook payload: hook payload is not JSON") {
			t.Errorf("got %+v", ev)
		}
	})

	t.Run("a daemon that never answers", func(t *testing.T) {
		dir := hookStateDir(t)
		ln, err := net.Listen("unix", filepath.Join(dir, hook.SocketName))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				defer c.Close()
			}
		}()
		run := runHook(t, stdinOf(t, hookFixture(t, "claude-stop.json")), dir, nil, "hook", "claude")
		run.failsOpen(t, "wedged daemon")
	})
}

// TestHookInstall: `attn hook install claude` on a home whose settings
// hold hooks of their own: --dry-run prints the diff and writes nothing;
// the install keeps every other setting and a backup; a second install
// changes nothing.
func TestHookInstall(t *testing.T) {
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o700)
	original := `{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard"}]}]
  }
}
`
	writeFile(t, settings, original)
	install := func(args ...string) hookRun {
		t.Helper()
		return runHook(t, stdinOf(t, nil), hookStateDir(t), []string{"HOME=" + home}, append([]string{"hook", "install"}, args...)...)
	}

	r := install("claude", "--dry-run")
	if r.code != 0 || !strings.Contains(r.stdout, "+++ ~/.claude/settings.json") || !regexp.MustCompile(`(?m)^\+ +"command": "attn hook claude",$`).MatchString(r.stdout) ||
		!strings.Contains(r.stdout, "dry run: ~/.claude/settings.json not written") {
		t.Fatalf("dry run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(settings); string(b) != original {
		t.Fatal("dry run wrote the file")
	}

	r = install("claude")
	if r.code != 0 || !strings.Contains(r.stdout, "installed attn hook in ~/.claude/settings.json (the original is in "+settings+".attn-backup-") {
		t.Fatalf("install: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(settings)
	for _, want := range []string{`"model": "opus"`, `"command": "say done"`, `"command": "guard"`, `"PermissionRequest"`, `"Notification"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("settings lack %s:\n%s", want, b)
		}
	}
	if n := strings.Count(string(b), `"command": "attn hook claude"`); n != 3 {
		t.Errorf("%d attn hooks:\n%s", n, b)
	}
	backups, _ := filepath.Glob(settings + ".attn-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups %v", backups)
	}
	if ob, _ := os.ReadFile(backups[0]); string(ob) != original {
		t.Errorf("backup holds %s", ob)
	}

	r = install("claude")
	if r.code != 0 || !strings.Contains(r.stdout, "already installed") {
		t.Errorf("second install: exit %d\n%s", r.code, r.stdout)
	}
	if b2, _ := os.ReadFile(settings); string(b2) != string(b) {
		t.Error("second install changed the file")
	}

	// A file attn cannot parse is refused, untouched.
	bad := filepath.Join(home, ".gemini", "settings.json")
	os.MkdirAll(filepath.Dir(bad), 0o700)
	writeFile(t, bad, "{ // comments\n}")
	r = install("gemini")
	if r.code != 1 || !strings.Contains(r.stderr, "not valid JSON") || r.stdout != "" {
		t.Errorf("unparseable: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if b, _ := os.ReadFile(bad); string(b) != "{ // comments\n}" {
		t.Error("unparseable file touched")
	}
}
