package tmux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestNotification(t *testing.T) {
	for _, c := range []struct {
		line, id string
		ok       bool
	}{
		{"%output %12 hello\\015\\012\n", "%12", true},
		{"%extended-output %3 120 : x\n", "%3", true},
		{"%layout-change @1 b25d,80x24,0,0,2 b25d,80x24,0,0,2 *\n", "", true},
		{"%window-add @4\n", "", true},
		{"%window-close @4\n", "", true},
		{"%sessions-changed\n", "%sessions-changed", true},
		{"%begin 1700000000 12 0\n", "", false},
		{"%session-renamed $1 x\n", "", false},
		{"%output bad\n", "", false},
		{"%output\n", "", false},
		{"plain text\n", "", false},
	} {
		id, ok := notification([]byte(c.line))
		if id != c.id || ok != c.ok {
			t.Errorf("notification(%q) = %q, %v; want %q, %v", c.line, id, ok, c.id, c.ok)
		}
	}
}

// controlServer starts a private tmux server with a session "one" whose
// pane runs cat (it echoes what is typed: output on demand).
func controlServer(t *testing.T) (*Client, func(args ...string) string) {
	t.Helper()
	c := startServer(t, "exec cat")
	tm := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-L", c.Socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	return c, tm
}

// waitFor reads changed until want arrives (bounded), returning what came
// before it.
func waitFor(t *testing.T, changed <-chan string, done <-chan error, want string) []string {
	t.Helper()
	var seen []string
	timeout := time.After(10 * time.Second)
	for {
		select {
		case id := <-changed:
			if id == want {
				return seen
			}
			seen = append(seen, id)
		case err := <-done:
			t.Fatalf("Watch returned %v while waiting for %q (saw %q)", err, want, seen)
		case <-timeout:
			t.Fatalf("no %q within 10 s (saw %q)", want, seen)
		}
	}
}

// TestControlFollowsSessions: output in a pane is reported with its id; a
// new session is followed too; the clients are read-only and never
// resize; the server going away is a change, and a new one is followed.
func TestControlFollowsSessions(t *testing.T) {
	c, tm := controlServer(t)
	pane := tm("display-message", "-p", "-t", "t", "#{pane_id}")
	ctl := &Control{Socket: c.Socket}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan string, 64)
	done := make(chan error, 1)
	go func() { done <- ctl.Watch(ctx, changed) }()

	// Wait for the client to attach, then make the pane print.
	waitClients(t, tm, 1)
	if got := tm("list-clients", "-F", "#{client_control_mode} #{client_readonly} #{client_flags}"); !strings.HasPrefix(got, "1 1 ") || !strings.Contains(got, "ignore-size") {
		t.Errorf("control client: %q, want control mode, read-only, ignore-size", got)
	}
	tm("send-keys", "-t", pane, "hello", "Enter")
	waitFor(t, changed, done, pane)

	tm("new-session", "-d", "-s", "two", "exec cat")
	waitFor(t, changed, done, "") // %sessions-changed
	other := tm("display-message", "-p", "-t", "two", "#{pane_id}")
	waitClients(t, tm, 2)
	tm("send-keys", "-t", other, "x", "Enter")
	waitFor(t, changed, done, other)
	if size := tm("display-message", "-p", "-t", "two", "#{window_width}x#{window_height}"); size != "80x24" {
		t.Errorf("window size %s: a control client resized it", size)
	}

	// The server going away is a change ("": its panes are gone); Watch
	// waits for another, and follows it.
	tm("kill-server")
	waitFor(t, changed, done, "")
	for i := 0; ; i++ { // the old server may still be exiting
		out, err := exec.Command("tmux", "-L", c.Socket, "-f", "/dev/null", "new-session", "-d", "-s", "three", "exec cat").CombinedOutput()
		if err == nil {
			break
		}
		if i == 100 {
			t.Fatalf("new server: %v %s", err, out)
		}
		time.Sleep(20 * time.Millisecond)
	}
	third := tm("display-message", "-p", "-t", "three", "#{pane_id}")
	waitClients(t, tm, 1)
	tm("send-keys", "-t", third, "x", "Enter")
	waitFor(t, changed, done, third)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after ctx ended")
	}
}

func TestControlStops(t *testing.T) {
	c, tm := controlServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&Control{Socket: c.Socket}).Watch(ctx, make(chan string)) }() // nobody reads
	waitClients(t, tm, 1)
	tm("send-keys", "-t", "t", "hello", "Enter") // the client blocks on changed
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Watch did not return after ctx ended")
	}
	waitClients(t, tm, 0)
}

// TestControlNothingToFollow: with no server, Watch waits and looks
// again every Recheck; without tmux it fails at once.
func TestControlNothingToFollow(t *testing.T) {
	if err := (&Control{Binary: "/nonexistent/tmux"}).Watch(context.Background(), make(chan string)); err == nil || !strings.Contains(err.Error(), "put it on $PATH") {
		t.Errorf("no tmux: %v", err)
	}
	sock := fmt.Sprintf("attn-test-%d-later", os.Getpid())
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan string, 16)
	done := make(chan error, 1)
	go func() { done <- (&Control{Socket: sock, Recheck: 50 * time.Millisecond}).Watch(ctx, changed) }()
	select {
	case err := <-done:
		t.Fatalf("Watch returned %v with no server", err)
	case id := <-changed:
		t.Fatalf("change %q with no server", id)
	case <-time.After(300 * time.Millisecond):
	}
	if out, err := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "exec cat").CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	waitFor(t, changed, done, "") // the new server's panes
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Watch: %v", err)
	}
}

// waitClients polls (bounded) until the server has n clients.
func waitClients(t *testing.T, tm func(args ...string) string, n int) {
	t.Helper()
	var got string
	for range 200 {
		got = tm("list-clients", "-F", "#{client_name}")
		if c := len(strings.Fields(got)); c == n {
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("want %d clients, have %q", n, got)
}
