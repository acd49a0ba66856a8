package watch

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/source/tmux"
)

// countingTmux counts a real tmux client's calls per pane.
type countingTmux struct {
	*tmux.Client
	mu       sync.Mutex
	lists    int
	captures map[string]int
}

func (c *countingTmux) ListPanes(ctx context.Context) ([]tmux.Pane, error) {
	c.mu.Lock()
	c.lists++
	c.mu.Unlock()
	return c.Client.ListPanes(ctx)
}

func (c *countingTmux) Capture(ctx context.Context, id string) (string, error) {
	c.mu.Lock()
	c.captures[id]++
	c.mu.Unlock()
	return c.Client.Capture(ctx, id)
}

func (c *countingTmux) calls() (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.captures))
	for k, v := range c.captures {
		out[k] = v
	}
	return c.lists, out
}

func (c *countingTmux) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lists, c.captures = 0, map[string]int{}
}

// privateTmux names a private tmux server killed when the test ends, and
// runs tmux commands on it.
func privateTmux(t *testing.T) (string, func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: apt-get install tmux")
	}
	sock := fmt.Sprintf("attn-watch-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	return sock, func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-L", sock, "-f", "/dev/null"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// waitUntil polls cond every 20 ms for at most 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("waited 10 s for %s", what)
}

func runWatcher(t *testing.T, w *Watcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestEventsRealTmux: on a private tmux server with three panes, after
// the first full read, output in one pane makes the watcher capture that
// pane and no other, through tmux control mode.
func TestEventsRealTmux(t *testing.T) {
	sock, tm := privateTmux(t)
	tm("new-session", "-d", "-s", "s", "-x", "120", "-y", "30", "exec cat")
	tm("new-window", "-t", "s", "exec cat")
	tm("new-window", "-t", "s", "exec cat")
	ids := strings.Fields(tm("list-panes", "-s", "-t", "s", "-F", "#{pane_id}"))
	if len(ids) != 3 {
		t.Fatalf("panes %v", ids)
	}
	panes := &countingTmux{Client: &tmux.Client{Socket: sock}, captures: map[string]int{}}
	w := &Watcher{Host: "box", Panes: panes, Tracker: &syncTracker{}, Engine: &syncEngine{}, Devices: count(1),
		Poll: time.Second, Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events: &tmux.Control{Socket: sock}, Debounce: 100 * time.Millisecond, FullPoll: time.Hour}
	runWatcher(t, w)
	waitUntil(t, "the control client and the first full read", func() bool {
		_, caps := panes.calls()
		return len(strings.Fields(tm("list-clients", "-F", "#{client_name}"))) == 1 && len(caps) == 3
	})
	// Let the attach settle (a window redraw may announce every pane once).
	time.Sleep(300 * time.Millisecond)
	panes.reset()

	tm("send-keys", "-t", ids[1], "hello", "Enter")
	waitUntil(t, "a capture of "+ids[1], func() bool { _, caps := panes.calls(); return caps[ids[1]] > 0 })
	time.Sleep(1200 * time.Millisecond) // a Poll passes: no other pane is read
	lists, caps := panes.calls()
	if !reflect.DeepEqual(caps, map[string]int{ids[1]: 1}) || lists != 1 {
		t.Fatalf("after output in %s: %d lists, captures %v; want one list and one capture of %s", ids[1], lists, caps, ids[1])
	}
}

// TestEventsNoDeviceNoTmux: with no device, the watcher touches no tmux
// server: no list, no capture, no control-mode client, and a server that
// is not running is not started.
func TestEventsNoDeviceNoTmux(t *testing.T) {
	sock, tm := privateTmux(t)
	tm("new-session", "-d", "-s", "s", "exec cat")
	absent := sock + "-absent"
	for _, s := range []string{sock, absent} {
		panes := &countingTmux{Client: &tmux.Client{Socket: s}, captures: map[string]int{}}
		w := &Watcher{Host: "box", Panes: panes, Tracker: &syncTracker{}, Engine: &syncEngine{}, Devices: count(0),
			Poll: 100 * time.Millisecond, Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
			Events: &tmux.Control{Socket: s}, FullPoll: time.Second}
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		w.Run(ctx)
		cancel()
		if lists, caps := panes.calls(); lists != 0 || len(caps) != 0 {
			t.Errorf("no device, server %s: %d lists, captures %v", s, lists, caps)
		}
	}
	if clients := tm("list-clients", "-F", "#{client_name}"); clients != "" {
		t.Errorf("no device: clients %q attached", clients)
	}
	if out, err := exec.Command("tmux", "-L", absent, "has-session").CombinedOutput(); err == nil ||
		!strings.Contains(string(out), "no server running") && !strings.Contains(string(out), "error connecting to") {
		t.Errorf("a tmux server runs on %s: %v %s", absent, err, out)
	}
}
