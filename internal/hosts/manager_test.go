package hosts

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/hosts/hoststest"
	"github.com/attn-dev/attn/internal/source/tmux"
)

// privateTmux starts a tmux server on a private socket with one pane
// running script; it is killed when the test ends.
func privateTmux(t *testing.T, script string) string {
	t.Helper()
	sock := fmt.Sprintf("attn-hosts-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	out, err := exec.Command("tmux", "-L", sock, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24", "-s", "t", "-n", "remote-agent", script).CombinedOutput()
	if err != nil {
		t.Fatalf("start tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("tmux", "-L", sock, "kill-server").Run() })
	return sock
}

// served records Serve and Down calls.
type served struct {
	mu      sync.Mutex
	running map[string]*Client
	starts  map[string]int
	downs   map[string]int
}

func (s *served) serve(ctx context.Context, host string, c *Client) {
	s.mu.Lock()
	s.running[host] = c
	s.starts[host]++
	s.mu.Unlock()
	<-ctx.Done()
	s.mu.Lock()
	delete(s.running, host)
	s.mu.Unlock()
}

func (s *served) down(host string) {
	s.mu.Lock()
	s.downs[host]++
	s.mu.Unlock()
}

func (s *served) get(host string) (*Client, int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running[host], s.starts[host], s.downs[host]
}

// waitFor polls cond every 20 ms for up to 15 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestManager(t *testing.T) {
	sock := privateTmux(t, "printf 'hello from devbox\\n'; exec sleep 300")
	fake, err := hoststest.Install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake.PATH())
	fake.Tmux("devbox", sock)
	fake.Hang("slow")
	fake.Fail("gone", "ssh: connect to host 10.9.9.9 port 22: Connection refused")
	home := t.TempDir()
	write(t, filepath.Join(home, ".ssh", "config"), "Host slow devbox gone\nHost *\n  User me\n")
	rec := &served{running: map[string]*Client{}, starts: map[string]int{}, downs: map[string]int{}}
	m, err := New(Options{Hostname: "Titan", Home: home, Remote: true, StateDir: t.TempDir(),
		ProbeTimeout: 2 * time.Second, ProbeEvery: 300 * time.Millisecond, CallTimeout: 2 * time.Second,
		Serve: rec.serve, Down: rec.down})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.Start(ctx)
	defer func() { cancel(); m.Wait() }()

	// Listing answers at once, probes or not.
	begin := time.Now()
	l := m.List()
	if took := time.Since(begin); took > 100*time.Millisecond {
		t.Errorf("List took %v while probing", took)
	}
	if l.Active != "titan" || len(l.Hosts) != 4 || l.Hosts[0].Name != "titan" || !l.Hosts[0].Own || l.Hosts[0].State != StateReachable {
		t.Fatalf("first listing = %+v", l)
	}
	if !l.Probing || l.Hosts[1].State != StateProbing {
		t.Errorf("first listing should say the remote hosts are being probed: %+v", l)
	}
	if _, err := m.Client("slow"); err == nil || !strings.Contains(err.Error(), "still being probed") {
		t.Errorf("Client(slow) while probing: err = %v", err)
	}

	// The failing host is reported with ssh's reason; the hanging one
	// does not hold up the others.
	waitFor(t, "devbox reachable and gone unreachable", func() bool {
		d, _ := m.Get("devbox")
		g, _ := m.Get("gone")
		return d.State == StateReachable && g.State == StateUnreachable
	})
	if s, _ := m.Get("slow"); s.State != StateProbing {
		t.Errorf("slow = %+v, want still probing (its probe hangs for 2 s)", s)
	}
	g, _ := m.Get("gone")
	if g.Error != "ssh gone: ssh: connect to host 10.9.9.9 port 22: Connection refused" || g.CheckedAt.IsZero() {
		t.Errorf("gone = %+v", g)
	}
	begin = time.Now()
	if l := m.List(); !l.Probing || time.Since(begin) > 100*time.Millisecond {
		t.Errorf("listing during a hung probe: %+v (took %v)", l, time.Since(begin))
	}
	waitFor(t, "slow unreachable after its probe timeout", func() bool {
		s, _ := m.Get("slow")
		return s.State == StateUnreachable
	})
	if s, _ := m.Get("slow"); !strings.Contains(s.Error, "no answer from slow in time") {
		t.Errorf("slow = %+v", s)
	}
	if m.List().Probing {
		t.Error("listing still says probing after every host answered or timed out")
	}

	// Serve runs for the own host and the reachable one, with a client
	// that reaches the "remote" tmux server.
	waitFor(t, "serve devbox", func() bool { c, _, _ := rec.get("devbox"); return c != nil })
	c, _, _ := rec.get("devbox")
	panes, err := c.ListPanes(context.Background())
	if err != nil || len(panes) != 1 || panes[0].WindowName != "remote-agent" {
		t.Fatalf("devbox panes = %+v, %v", panes, err)
	}
	if own, _, _ := rec.get("titan"); own == nil || own.Host() != "titan" {
		t.Errorf("own host served with %+v", own)
	}
	if _, starts, _ := rec.get("gone"); starts != 0 {
		t.Errorf("unreachable host served %d times", starts)
	}
	if mc, err := m.Client("gone"); mc != nil || err == nil || !strings.Contains(err.Error(), "gone is unreachable: ssh gone: ssh: connect") {
		t.Errorf("Client(gone) = %v, %v", mc, err)
	}

	// An outage: a failing call asks for a check at once; the host's
	// Serve stops, and starts again when it is back.
	fake.Fail("devbox", "ssh: connect to host devbox port 22: Connection timed out")
	if _, err := c.ListPanes(context.Background()); err == nil {
		t.Fatal("ListPanes during the outage: want an error")
	}
	waitFor(t, "devbox down", func() bool { _, _, downs := rec.get("devbox"); return downs == 1 })
	if d, _ := m.Get("devbox"); d.State != StateUnreachable || !strings.Contains(d.Error, "Connection timed out") {
		t.Errorf("devbox during outage = %+v", d)
	}
	fake.Tmux("devbox", sock)
	waitFor(t, "devbox back", func() bool { c, starts, _ := rec.get("devbox"); return c != nil && starts == 2 })

	// Names: the own host answers to its hostname in any case and to local.
	for _, arg := range []string{"", "local", "TITAN"} {
		if n, err := m.Resolve(arg); n != "titan" || err != nil {
			t.Errorf("Resolve(%q) = %q, %v", arg, n, err)
		}
	}
	if _, err := m.Resolve("elsewhere"); err == nil || !strings.Contains(err.Error(), "slow, devbox, gone") {
		t.Errorf("Resolve(elsewhere): err = %v", err)
	}
}

func TestManagerOwnHostOnly(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".ssh", "config"), "Host devbox\n")
	m, err := New(Options{Hostname: "box", Home: home, Remote: false, StateDir: t.TempDir(), Local: &tmux.Client{Socket: "x"}})
	if err != nil {
		t.Fatal(err)
	}
	l := m.List()
	if len(l.Hosts) != 1 || l.Probing || l.Hosts[0].Name != "box" || strings.Join(l.Hosts[0].Also, ",") != "local" {
		t.Fatalf("listing = %+v", l)
	}
	c, err := m.Client("box")
	if err != nil || c.Client.Socket != "x" {
		t.Fatalf("own client = %+v, %v", c, err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"": "''", "a b": "'a b'", "it's": `'it'"'"'s'`, "#{pane_id}": "'#{pane_id}'"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
		if out, err := exec.Command("sh", "-c", "printf %s "+ShellQuote(in)).Output(); err != nil || string(out) != in {
			t.Errorf("sh reads %s as %q (%v), want %q", ShellQuote(in), out, err, in)
		}
	}
}

func TestControlDir(t *testing.T) {
	if got := ControlDir("/home/u/.local/state/attn"); got != "/home/u/.local/state/attn/ssh" {
		t.Errorf("ControlDir = %s", got)
	}
	long := "/" + strings.Repeat("x", 90)
	if got := ControlDir(long); strings.HasPrefix(got, long) || len(got) > 60 {
		t.Errorf("ControlDir(long) = %s: want a short path in the temporary directory", got)
	}
}
