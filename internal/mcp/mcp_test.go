package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/hosts"
	"github.com/attn-dev/attn/internal/hosts/hoststest"
	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
)

// tmuxServer is a private tmux server for one test.
type tmuxServer struct{ sock string }

func startTmux(t *testing.T, name string) *tmuxServer {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed: apt-get install tmux")
	}
	s := &tmuxServer{sock: fmt.Sprintf("attn-mcp-%d-%s-%s", os.Getpid(), name, strings.ReplaceAll(t.Name(), "/", "-"))}
	s.run(t, "-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "-s", "t", "-n", "init", "exec sleep 600")
	t.Cleanup(func() { exec.Command("tmux", "-L", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxServer) run(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// window opens a window named name running argv and returns its pane id.
func (s *tmuxServer) window(t *testing.T, name string, argv ...string) string {
	t.Helper()
	args := append([]string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-n", name}, argv...)
	return strings.TrimSpace(s.run(t, args...))
}

func (s *tmuxServer) screen(t *testing.T, pane string) string {
	return s.run(t, "capture-pane", "-p", "-t", pane)
}

func (s *tmuxServer) waitScreen(t *testing.T, pane, text string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.screen(t, pane), text) {
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed %q:\n%s", pane, text, s.screen(t, pane))
		}
		time.Sleep(30 * time.Millisecond)
	}
}

// claude returns the argv of the fake agent, run through a link to bash
// named claude, so that tmux names claude as the pane's command.
func claude(t *testing.T, title string, mode ...string) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(bash, filepath.Join(dir, "claude")); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	return append([]string{filepath.Join(dir, "claude"), filepath.Join(wd, "testdata", "agent.sh"), title}, mode...)
}

// fixture returns a shared screen fixture's path.
func fixture(t *testing.T, name string) string {
	t.Helper()
	dir, _ := os.Getwd()
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		p := filepath.Join(dir, "shared", "fixtures", "screens", name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatalf("fixture %s not found", name)
	return ""
}

// world is attn's own host "titan" (a private tmux server), a reachable
// SSH host "devbox" (another private tmux server behind a fake ssh) and
// an unreachable one, "down".
type world struct {
	local, remote *tmuxServer
	hosts         *hosts.Manager
	replies       *reply.Service
	store         *store.Store
	server        *sdk.Server
	mu            sync.Mutex
	notified      []NotifyRequest
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{local: startTmux(t, "local"), remote: startTmux(t, "remote")}
	fake, err := hoststest.Install(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake.PATH())
	fake.Tmux("devbox", w.remote.sock)
	fake.Fail("down", "ssh: connect to host down port 22: Connection refused")
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte("Host devbox down\n"), 0o600)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	w.hosts, err = hosts.New(hosts.Options{Hostname: "Titan", Home: home, Remote: true, StateDir: t.TempDir(),
		Local: &tmux.Client{Socket: w.local.sock}, ProbeEvery: time.Minute, ProbeTimeout: 5 * time.Second, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w.hosts.Start(ctx)
	t.Cleanup(func() { cancel(); w.hosts.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for w.hosts.List().Probing {
		if time.Now().After(deadline) {
			t.Fatalf("hosts still probing: %+v", w.hosts.List())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w.store, err = store.Open(context.Background(), t.TempDir(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.store.Close() })
	w.replies = &reply.Service{Host: "titan", Store: w.store, Log: log, NonceTTL: time.Minute,
		StepWait: time.Second, Step: 20 * time.Millisecond,
		Terms: func(h string) (reply.Terminal, error) {
			c, err := w.hosts.Client(h)
			if err != nil {
				return nil, err
			}
			return c, nil
		}}
	w.server = New(Config{Hosts: w.hosts, Replies: w.replies, Poll: 50 * time.Millisecond, KillWait: 2 * time.Second, Log: log,
		Notify: func(_ context.Context, req NotifyRequest) (NotifyResult, error) {
			w.mu.Lock()
			w.notified = append(w.notified, req)
			w.mu.Unlock()
			title := req.Title
			if title == "" {
				title = "attn"
			}
			return NotifyResult{Sent: true, Transports: []string{"webpush"}, Title: title}, nil
		}})
	return w
}

// client connects an MCP client to the world's server in memory: an
// unidentified caller, who reaches every host.
func (w *world) client(t *testing.T) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := w.server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// httpClient connects over streamable HTTP on loopback, as the daemon
// serves /mcp, with bearer "fleet" (every host) or "host:NAME" (a
// per-host credential).
func (w *world) httpClient(t *testing.T, token string) *sdk.ClientSession {
	t.Helper()
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		ti := &auth.TokenInfo{UserID: tok, Expiration: time.Now().Add(time.Hour), Extra: map[string]any{}}
		if h, ok := strings.CutPrefix(tok, "host:"); ok {
			ti.Extra[ScopeHost] = h
		} else if tok != "fleet" {
			return nil, auth.ErrInvalidToken
		}
		return ti, nil
	}
	srv := httptest.NewServer(auth.RequireBearerToken(verify, nil)(Handler(w.server)))
	t.Cleanup(srv.Close)
	cs, err := Dial(context.Background(), srv.URL, token, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its structured result (or nil), whether
// it is a tool error, and its text.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (map[string]any, bool, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text += tc.Text
		}
	}
	var out map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
	}
	return out, res.IsError, text
}

func mustCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr, text := call(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s(%v): tool error: %s", tool, args, text)
	}
	return out
}

func mustRefuse(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, want string) {
	t.Helper()
	_, isErr, text := call(t, cs, tool, args)
	if !isErr || !strings.Contains(text, want) {
		t.Fatalf("%s(%v) = error %v %q; want an error containing %q", tool, args, isErr, text, want)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// waitStatus waits until the agent at to reads as status.
func waitStatus(t *testing.T, cs *sdk.ClientSession, args map[string]any, status string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, isErr, text := call(t, cs, "get_agent", args)
		if !isErr && out["agent"].(map[string]any)["status"] == status {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("agent %v never read %s: %s", args, status, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

var _ = agent.StatusIdle
