package herdr_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/source/herdr"
	"github.com/attn-dev/attn/internal/source/herdr/herdrtest"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/tracker"
	"github.com/attn-dev/attn/internal/watch"
)

func fakeWithPanes(t *testing.T) *herdrtest.Server {
	t.Helper()
	s := herdrtest.Start(t)
	s.AddPane(herdrtest.Pane{ID: "w1:p1", Agent: "claude", Status: "working", Screen: "✻ Working…\n", Title: "api", Cwd: "/src/api"})
	s.AddPane(herdrtest.Pane{ID: "w1:p2", Status: "unknown", Screen: "$ \n"})
	return s
}

func TestCalls(t *testing.T) {
	s := fakeWithPanes(t)
	c := &herdr.Client{Path: s.Path}
	defer c.Close()
	ctx := context.Background()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	agents, err := c.Agents(ctx)
	if err != nil || len(agents) != 2 {
		t.Fatalf("Agents: %+v, %v", agents, err)
	}
	a := agents[0]
	if a.PaneID != "w1:p1" || a.Agent != "claude" || a.Status != herdr.StatusWorking || a.Title != "api" ||
		a.Cwd != "/src/api" || a.TerminalID != "term-w1:p1" || a.WorkspaceID != "w1" || agents[1].Agent != "" {
		t.Errorf("agents %+v", agents)
	}
	s.SetStatus("w1:p1", "blocked")
	if a, err = c.Agent(ctx, "w1:p1"); err != nil || a.Status != herdr.StatusBlocked || a.StateChangeSeq != 1 {
		t.Errorf("Agent: %+v, %v", a, err)
	}
	if text, err := c.Read(ctx, "w1:p1", herdr.SourceVisible, 0); err != nil || text != "✻ Working…\n" {
		t.Errorf("Read: %q, %v", text, err)
	}
	if err := c.SendKeys(ctx, "w1:p1", "down", "enter"); err != nil {
		t.Fatal(err)
	}
	if err := c.SendText(ctx, "w1:p1", "yes"); err != nil {
		t.Fatal(err)
	}
	if got := s.Keys("w1:p1"); !reflect.DeepEqual(got, []string{"down", "enter", "text:yes"}) {
		t.Errorf("typed %q", got)
	}
	reqs := s.Requests()
	if last := reqs[len(reqs)-2]; last.Method != "agent.send_keys" || last.Params["target"] != "w1:p1" {
		t.Errorf("request %+v", last)
	}
	if read := reqs[3]; read.Method != "agent.read" || read.Params["source"] != "visible" || read.Params["strip_ansi"] != true {
		t.Errorf("agent.read params %+v", read.Params)
	}
}

// TestErrors: herdr's error answers come back as *Error with its code and
// message; a call herdr never answers times out without spoiling the
// connection.
func TestErrors(t *testing.T) {
	s := fakeWithPanes(t)
	c := &herdr.Client{Path: s.Path, Timeout: 200 * time.Millisecond}
	defer c.Close()
	ctx := context.Background()
	cases := []struct {
		call       func() error
		code, text string
		notFound   bool
	}{
		{func() error { _, err := c.Agent(ctx, "w9:p9"); return err }, "pane_not_found", "herdr agent.get: pane w9:p9 not found (pane_not_found)", true},
		{func() error { return c.Call(ctx, "agent.get", nil, nil) }, "invalid_params", "herdr agent.get: invalid params: missing field `target` (invalid_params)", false},
		{func() error { return c.SendKeys(ctx, "w1:p1", "F13") }, "invalid_params", `herdr agent.send_keys: invalid key: "F13" (invalid_params)`, false},
		{func() error { return c.Call(ctx, "pane.teleport", nil, nil) }, "unknown_method", "herdr pane.teleport: unknown method: pane.teleport (unknown_method)", false},
	}
	for _, tc := range cases {
		err := tc.call()
		var he *herdr.Error
		if !errors.As(err, &he) || he.Code != tc.code || err.Error() != tc.text || herdr.NotFound(err) != tc.notFound {
			t.Errorf("error %v (%#v), want %s: %s", err, he, tc.code, tc.text)
		}
	}
	s.Silence("agent.list")
	start := time.Now()
	_, err := c.Agents(ctx)
	if !errors.Is(err, herdr.ErrTimeout) || !strings.Contains(err.Error(), "herdr agent.list after 200ms") {
		t.Errorf("silent method: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	if err := c.Ping(ctx); err != nil {
		t.Errorf("a call after a timeout: %v", err)
	}
	if _, err := (&herdr.Client{Path: s.Path + ".none"}).Agents(ctx); err == nil || !strings.Contains(err.Error(), "is herdr running?") {
		t.Errorf("no server: %v", err)
	}
}

// TestReconnect: a herdr that dropped its connections, or restarted, is
// reached again by the next call.
func TestReconnect(t *testing.T) {
	s := fakeWithPanes(t)
	c := &herdr.Client{Path: s.Path, Timeout: time.Second}
	defer c.Close()
	ctx := context.Background()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	s.DropConnections()
	// The client may not have seen the close yet: a failed write is
	// retried on a new connection, a lost one fails just that call.
	var err error
	for range 3 {
		if err = c.Ping(ctx); err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("after a dropped connection: %v", err)
	}
	s.Stop()
	if err := c.Ping(ctx); err == nil {
		t.Fatal("a call to a stopped herdr succeeded")
	}
	s.Listen()
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
}

func next(t *testing.T, st *herdr.Stream) herdr.Event {
	t.Helper()
	select {
	case ev, ok := <-st.Events():
		if !ok {
			t.Fatalf("stream ended: %v", st.Err())
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	return herdr.Event{}
}

func TestSubscribe(t *testing.T) {
	s := fakeWithPanes(t)
	c := &herdr.Client{Path: s.Path, Timeout: 300 * time.Millisecond}
	ctx := context.Background()
	st, err := c.Subscribe(ctx, []herdr.Subscription{{Type: herdr.EventPaneCreated}, {Type: herdr.EventStatusChanged, PaneID: "w1:p1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s.SetStatus("w1:p2", "working") // not subscribed
	s.SetStatus("w1:p1", "blocked")
	ev := next(t, st)
	sc, ok := ev.StatusChange()
	if !ok || sc != (herdr.StatusChange{PaneID: "w1:p1", Agent: "claude", Status: "blocked"}) {
		t.Fatalf("event %s %s → %+v", ev.Type, ev.Data, sc)
	}
	s.AddPane(herdrtest.Pane{ID: "w2:p1", Status: "idle"})
	life := next(t, st)
	if life.Type != herdr.EventPaneCreated || !strings.Contains(string(life.Data), `"pane_id":"w2:p1"`) {
		t.Fatalf("lifecycle event %s %s", life.Type, life.Data)
	}
	if _, ok := life.StatusChange(); ok {
		t.Error("a lifecycle event read as a status change")
	}
	st.Close()
	if _, ok := <-st.Events(); ok {
		t.Error("events after Close")
	}
	if st.Err() != nil {
		t.Errorf("Err after Close: %v", st.Err())
	}

	// Refused, and never acknowledged.
	_, err = c.Subscribe(ctx, []herdr.Subscription{{Type: herdr.EventStatusChanged}})
	var he *herdr.Error
	if !errors.As(err, &he) || he.Code != "invalid_request" || he.Message != "invalid request: missing field `pane_id`" {
		t.Errorf("refused: %v", err)
	}
	s.Silence("events.subscribe")
	if _, err = c.Subscribe(ctx, nil); !errors.Is(err, herdr.ErrTimeout) {
		t.Errorf("never acknowledged: %v", err)
	}
	// herdr going away ends the stream with a reason.
	s2 := fakeWithPanes(t)
	st2, err := (&herdr.Client{Path: s2.Path}).Subscribe(ctx, []herdr.Subscription{{Type: herdr.EventPaneClosed}})
	if err != nil {
		t.Fatal(err)
	}
	s2.Stop()
	select {
	case _, ok := <-st2.Events():
		if ok || st2.Err() == nil || !strings.Contains(st2.Err().Error(), "herdr event stream ended") {
			t.Errorf("after herdr stopped: open %v, err %v", ok, st2.Err())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end")
	}
}

func TestSourcePanesAndTerminal(t *testing.T) {
	s := fakeWithPanes(t)
	src := &herdr.Source{Client: &herdr.Client{Path: s.Path}}
	ctx := context.Background()
	panes, err := src.ListPanes(ctx)
	want := []tmux.Pane{
		{ID: "w1:p1", PID: "term-w1:p1", Title: "api", Session: "w1", Command: "claude", Path: "/src/api"},
		{ID: "w1:p2", PID: "term-w1:p2", Session: "w1"},
	}
	if err != nil || !reflect.DeepEqual(panes, want) {
		t.Fatalf("ListPanes: %+v, %v\nwant %+v", panes, err, want)
	}
	if p, err := src.Describe(ctx, "w1:p1"); err != nil || p != want[0] {
		t.Errorf("Describe: %+v, %v", p, err)
	}
	if _, err := src.Describe(ctx, "w7:p1"); !herdr.NotFound(err) || !strings.Contains(err.Error(), "pane w7:p1 not found") {
		t.Errorf("Describe of a gone pane: %v", err)
	}
	if screen, err := src.Capture(ctx, "w1:p2"); err != nil || screen != "$ \n" {
		t.Errorf("Capture: %q, %v", screen, err)
	}
	if err := src.SendKeys(ctx, "w1:p1", false, "Down", "Down", "Enter"); err != nil {
		t.Fatal(err)
	}
	if err := src.SendKeys(ctx, "w1:p1", false, "y", "Enter"); err != nil {
		t.Fatal(err)
	}
	if err := src.SendKeys(ctx, "w1:p1", true, "fix the ", "tests"); err != nil {
		t.Fatal(err)
	}
	if err := src.SendKeys(ctx, "w1:p1", false, "Escape", "F13", "Enter"); err == nil || !strings.Contains(err.Error(), `key "F13" has no herdr name`) {
		t.Errorf("unknown key: %v", err)
	}
	if got, want := s.Keys("w1:p1"), []string{"down", "down", "enter", "text:y", "enter", "text:fix the tests"}; !reflect.DeepEqual(got, want) {
		t.Errorf("typed %q, want %q", got, want)
	}
	if herdr.FromEnv(func(string) string { return "" }, nil) != nil {
		t.Error("FromEnv without the variable")
	}
	if src := herdr.FromEnv(func(k string) string { return map[string]string{"HERDR_SOCKET_PATH": "/run/h.sock"}[k] }, nil); src == nil || src.Client.Path != "/run/h.sock" {
		t.Errorf("FromEnv: %+v", src)
	}
}

// wantChange reads changed until want (bounded).
func wantChange(t *testing.T, changed <-chan string, want string) {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case id := <-changed:
			if id == want {
				return
			}
		case <-timeout:
			t.Fatalf("no %q on changed within 5 s", want)
		}
	}
}

// TestSourceWatch: status changes reach OnStatus and the channel; a new
// pane is followed after a resubscription; herdr restarting is followed
// again after a reconnection.
func TestSourceWatch(t *testing.T) {
	s := fakeWithPanes(t)
	statuses := make(chan herdr.StatusChange, 16)
	src := &herdr.Source{Client: &herdr.Client{Path: s.Path, Timeout: time.Second},
		OnStatus: func(sc herdr.StatusChange) { statuses <- sc }, RetryMin: 10 * time.Millisecond, RetryMax: 50 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan string, 64)
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, changed) }()
	wantChange(t, changed, "")

	s.SetStatus("w1:p1", "blocked")
	wantChange(t, changed, "w1:p1")
	if sc := <-statuses; sc != (herdr.StatusChange{PaneID: "w1:p1", Agent: "claude", Status: "blocked"}) {
		t.Errorf("OnStatus %+v", sc)
	}
	s.AddPane(herdrtest.Pane{ID: "w2:p1", Agent: "codex", Status: "working"})
	wantChange(t, changed, "")
	// The new subscription replaces the old one.
	waitFor(t, func() bool { return s.Subscribers() == 1 })
	s.SetStatus("w2:p1", "done")
	wantChange(t, changed, "w2:p1")

	s.Stop()
	s.Listen()
	wantChange(t, changed, "") // reconnected
	s.SetStatus("w1:p2", "working")
	wantChange(t, changed, "w1:p2")

	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Watch: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return")
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 250 {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("condition not met within 5 s")
}

// fakeTmux is tmux with one pane, in memory.
type fakeTmux struct{ typed []string }

func (f *fakeTmux) ListPanes(context.Context) ([]tmux.Pane, error) {
	return []tmux.Pane{{ID: "%3", PID: "42", Command: "claude"}}, nil
}
func (f *fakeTmux) Capture(_ context.Context, id string) (string, error) { return "tmux " + id, nil }
func (f *fakeTmux) Describe(_ context.Context, id string) (tmux.Pane, error) {
	return tmux.Pane{ID: id, PID: "42"}, nil
}
func (f *fakeTmux) SendKeys(_ context.Context, id string, _ bool, keys ...string) error {
	f.typed = append(f.typed, id+":"+strings.Join(keys, ","))
	return nil
}

func TestMux(t *testing.T) {
	s := fakeWithPanes(t)
	tm := &fakeTmux{}
	m := &herdr.Mux{Tmux: tm, Herdr: &herdr.Source{Client: &herdr.Client{Path: s.Path}}}
	ctx := context.Background()
	panes, err := m.ListPanes(ctx)
	var ids []string
	for _, p := range panes {
		ids = append(ids, p.ID)
	}
	if err != nil || !reflect.DeepEqual(ids, []string{"%3", "w1:p1", "w1:p2"}) {
		t.Fatalf("ListPanes: %v, %v", ids, err)
	}
	if sc, _ := m.Capture(ctx, "%3"); sc != "tmux %3" {
		t.Errorf("tmux capture %q", sc)
	}
	if sc, _ := m.Capture(ctx, "w1:p2"); sc != "$ \n" {
		t.Errorf("herdr capture %q", sc)
	}
	m.SendKeys(ctx, "%3", false, "Enter")
	m.SendKeys(ctx, "w1:p1", false, "Enter")
	if !reflect.DeepEqual(tm.typed, []string{"%3:Enter"}) || !reflect.DeepEqual(s.Keys("w1:p1"), []string{"enter"}) {
		t.Errorf("typed: tmux %q, herdr %q", tm.typed, s.Keys("w1:p1"))
	}
	// herdr down: tmux's panes still listed.
	s.Stop()
	panes, err = m.ListPanes(ctx)
	if err != nil || len(panes) != 1 || panes[0].ID != "%3" {
		t.Errorf("herdr down: %+v, %v", panes, err)
	}
}

// Minimal tracker and engine for a watcher.
type nopTracker struct{}

func (nopTracker) Observe(context.Context, string, time.Time, []tracker.Observation) []tracker.Transition {
	return nil
}
func (nopTracker) HookFinished(agent.PaneRef, time.Time) []tracker.Transition { return nil }
func (nopTracker) HookBlocked(agent.PaneRef, time.Time)                       {}
func (nopTracker) Retract(context.Context, string)                            {}

type nopEngine struct{}

func (nopEngine) Handle(context.Context, time.Time, []tracker.Transition) []string { return nil }
func (nopEngine) Tick(context.Context, time.Time)                                  {}

type oneDevice struct{}

func (oneDevice) CountDevices(context.Context) (int, error) { return 1, nil }

// reads counts agent.read requests per pane from request from on.
func reads(s *herdrtest.Server, from int) (map[string]int, int) {
	reqs := s.Requests()
	out := map[string]int{}
	for _, r := range reqs[from:] {
		if r.Method == "agent.read" {
			out[r.Params["target"].(string)]++
		}
	}
	return out, len(reqs)
}

// TestWatcherOnHerdr: the watcher with herdr as its panes and its event
// source reads every pane once, then only the pane whose status changed.
func TestWatcherOnHerdr(t *testing.T) {
	s := fakeWithPanes(t)
	src := &herdr.Source{Client: &herdr.Client{Path: s.Path}, RetryMin: 10 * time.Millisecond}
	w := &watch.Watcher{Host: "box", Panes: src, Events: src, Tracker: nopTracker{}, Engine: nopEngine{}, Devices: oneDevice{},
		Poll: time.Second, FullPoll: time.Hour, Debounce: 50 * time.Millisecond, Now: time.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitFor(t, func() bool { r, _ := reads(s, 0); return s.Subscribers() == 1 && r["w1:p1"] == 1 && r["w1:p2"] == 1 })
	time.Sleep(200 * time.Millisecond) // the subscription's "" is handled: a list, no read
	_, mark := reads(s, 0)
	s.SetScreen("w1:p1", "Do you want to proceed?\n❯ 1. Yes\n  2. No\n")
	s.SetStatus("w1:p1", "blocked")
	waitFor(t, func() bool { r, _ := reads(s, mark); return r["w1:p1"] == 1 })
	time.Sleep(1200 * time.Millisecond) // a Poll passes
	if r, _ := reads(s, mark); !reflect.DeepEqual(r, map[string]int{"w1:p1": 1}) {
		t.Errorf("reads after w1:p1 changed: %v, want w1:p1 once", r)
	}
}
