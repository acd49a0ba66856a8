package pipeline_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/fixtures"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/settings"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/tracker"
	"github.com/attn-dev/attn/internal/watch"
)

// Timeline tests: a fake tmux server whose screens the test changes, the
// real watcher, tracker and engine, on virtual time (testing/synctest),
// and a router that records what reached it and when.

// screen returns a real-shaped pane screen from the shared fixtures.
func screen(t *testing.T, name string) string { return fixtures.Screen(t, name) }

// panes is a fake tmux server: pane id → (title, screen).
type panes struct {
	mu     sync.Mutex
	byID   map[string]tmux.Pane
	screen map[string]string
	order  []string
}

func newPanes() *panes { return &panes{byID: map[string]tmux.Pane{}, screen: map[string]string{}} }

func (p *panes) set(id, name, title, screen string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.byID[id]; !ok {
		p.order = append(p.order, id)
	}
	p.byID[id] = tmux.Pane{ID: id, PID: "1" + id[1:], Title: title, WindowName: name, Command: "claude", Path: "/work/" + name}
	p.screen[id] = screen
}

func (p *panes) remove(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.byID, id)
	for i, v := range p.order {
		if v == id {
			p.order = append(p.order[:i], p.order[i+1:]...)
			break
		}
	}
}

func (p *panes) ListPanes(context.Context) ([]tmux.Pane, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []tmux.Pane
	for _, id := range p.order {
		out = append(out, p.byID[id])
	}
	return out, nil
}

func (p *panes) Capture(_ context.Context, id string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.screen[id], nil
}

// sent is one notification that reached the router.
type sent struct {
	at time.Duration
	n  notification.Notification
}

func (s sent) String() string {
	silent := ""
	if !s.n.Renotify {
		silent = " (silent)"
	}
	return fmt.Sprintf("%v %s %q%s", s.at, s.n.Kind, s.n.Title+": "+strings.SplitN(s.n.Body, "\n", 2)[0], silent)
}

type router struct {
	mu    sync.Mutex
	start time.Time
	got   []sent
}

func (r *router) Route(_ context.Context, n notification.Notification, _ bool) deliver.Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, sent{at: time.Since(r.start).Truncate(time.Second), n: n})
	return deliver.Report{Sent: true, Transports: []string{"webpush"}}
}

func (r *router) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, s := range r.got {
		out = append(out, s.String())
	}
	return out
}

// memLog is the decision log in memory.
type memLog struct {
	mu   sync.Mutex
	rows []store.Decision
}

func (m *memLog) AddDecision(_ context.Context, d store.Decision) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, d)
	return nil
}

func (m *memLog) reasons() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, d := range m.rows {
		out = append(out, d.Pane+" "+d.Reason)
	}
	return out
}

// world is one daemon's worth of parts over a shared store.
type world struct {
	t      *testing.T
	panes  *panes
	router *router
	log    *memLog
	st     *store.Store
	cancel context.CancelFunc
	done   chan struct{}
	engine *pipeline.Engine
	mutes  *pipeline.Mutes
	opts   settings.Settings
}

func defaults() settings.Settings {
	return settings.Settings{Settle: 5 * time.Second, BuzzInterval: 5 * time.Minute, Kinds: settings.KnownKinds}
}

// start runs a watcher polling every second until stop.
func (w *world) start() {
	t := w.t
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	mutes, err := pipeline.LoadMutes(context.Background(), w.st)
	if err != nil {
		t.Fatal(err)
	}
	w.mutes = mutes
	w.engine = pipeline.New(pipeline.Config{Settings: &settings.Resolver{Defaults: w.opts}, Mutes: mutes,
		Router: w.router, Log: w.log, Logger: quiet})
	tr, err := tracker.New(context.Background(), w.engine.Settle, w.st, quiet)
	if err != nil {
		t.Fatal(err)
	}
	wt := &watch.Watcher{Host: "box", Panes: w.panes, Tracker: tr, Engine: w.engine, Devices: one{},
		Poll: time.Second, Now: time.Now, Log: quiet}
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	go func() { wt.Run(ctx); close(w.done) }()
}

func (w *world) stop() {
	w.cancel()
	<-w.done
	w.cancel = nil
}

type one struct{}

func (one) CountDevices(context.Context) (int, error) { return 1, nil }

// timeline runs f in a synctest bubble with a fresh world whose watcher
// polls at 0 s, 1 s, 2 s, …; f starts at 0.5 s, so its sleeps of whole
// seconds land between polls, and every time reported is a poll's.
func timeline(t *testing.T, opts settings.Settings, f func(w *world)) {
	synctest.Test(t, func(t *testing.T) {
		st, err := store.Open(context.Background(), t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		w := &world{t: t, panes: newPanes(), router: &router{start: time.Now()}, log: &memLog{}, st: st, opts: opts}
		w.start()
		defer func() {
			if w.cancel != nil {
				w.stop()
			}
		}()
		time.Sleep(500 * time.Millisecond)
		f(w)
	})
}

func want(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sent:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

const (
	claudeTitle = "✳ Claude Code"
	working     = "⠂ Working"
)

func TestFlappingScreenSendsOnceWithTheFullQuestion(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		w.panes.set("%1", "api", working, screen(t, "claude-working"))
		time.Sleep(2 * time.Second)
		// The menu flashes, a half-drawn frame, the menu again, then it holds.
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(2 * time.Second)
		w.panes.set("%1", "api", working, screen(t, "claude-working"))
		time.Sleep(time.Second)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-edit-file"))
		time.Sleep(time.Second)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(20 * time.Second)
		// First seen at 3 s, cleared at 5 s; the edit prompt at 6 s, the
		// permission prompt again at 7 s: settled 5 s later.
		want(t, w.router.list(), `12s blocked "api: Do you want to proceed?"`)
		if got := w.log.reasons(); len(got) != 1 || got[0] != "%1 answered-at-terminal" {
			t.Fatalf("decisions = %v: want the first flash logged as answered at the terminal", got)
		}
	})
}

func TestNextApprovalWithinAMinuteIsSilent(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(10 * time.Second)
		w.panes.set("%1", "api", working, screen(t, "claude-working")) // answered
		time.Sleep(20 * time.Second)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-edit-file")) // the next one
		time.Sleep(10 * time.Second)
		want(t, w.router.list(),
			`6s blocked "api: Do you want to proceed?"`,
			`36s blocked "api: Do you want to make this edit to session.ts?" (silent)`)
		if got := w.router.got[1].n; got.Tag != "block:box/%1" || got.Replaces != 30*time.Second {
			t.Fatalf("replacement tag %q replaces %v: want the same tag, the first shown 30s earlier", got.Tag, got.Replaces)
		}
	})
}

func TestFourthPushInFifteenMinutesIsDropped(t *testing.T) {
	questions := []string{"claude-bash-permission", "claude-edit-file", "claude-plan-gate", "claude-ask-user-question"}
	timeline(t, defaults(), func(w *world) {
		for _, q := range questions {
			w.panes.set("%1", "api", claudeTitle, screen(t, q))
			time.Sleep(10 * time.Second)
			w.panes.set("%1", "api", working, screen(t, "claude-working"))
			time.Sleep(4 * time.Minute)
		}
		// Inside the buzz interval the second and third replace the shown
		// question silently; the fourth, 12.5 minutes after the first, is
		// over the ceiling.
		want(t, w.router.list(),
			`6s blocked "api: Do you want to proceed?"`,
			`4m16s blocked "api: Do you want to make this edit to session.ts?" (silent)`,
			`8m26s blocked "api: Claude has written up a plan and is ready to execute. Would you like to proceed?"`)
		if got := w.log.reasons(); strings.Join(got, ",") != "%1 ceiling" {
			t.Fatalf("decisions = %v, want the fourth dropped by the ceiling", got)
		}
		if d := w.log.rows[0]; !strings.Contains(d.Detail, "3 pushes for this pane in the last 15m0s") {
			t.Fatalf("detail = %q", d.Detail)
		}
	})
}

func TestRestartMidSettleSendsOnceAfterRestart(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(3 * time.Second)
		w.stop()
		time.Sleep(10 * time.Second)
		w.start()
		time.Sleep(30 * time.Second)
		w.stop()
		w.start() // and a restart after it was sent: nothing more
		time.Sleep(30 * time.Second)
		// First seen at 1 s; stopped at 3.5 s; restarted at 13.5 s, when the
		// settle starts again.
		want(t, w.router.list(), `18s blocked "api: Do you want to proceed?"`)
	})
}

func TestPaneGoneAndBack(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(10 * time.Second)
		w.panes.remove("%1")
		time.Sleep(5 * time.Minute)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission")) // back after 5 min: nothing
		time.Sleep(10 * time.Second)
		w.panes.remove("%1")
		time.Sleep(11 * time.Minute)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission")) // back after 11 min: once
		time.Sleep(10 * time.Second)
		want(t, w.router.list(),
			`6s blocked "api: Do you want to proceed?"`,
			`16m26s blocked "api: Do you want to proceed?"`)
	})
}

func TestFinishedTurnsCoalesceAndNeverDelayBlocked(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		for i := range 20 {
			w.panes.set(fmt.Sprintf("%%%d", i+1), fmt.Sprintf("a%02d", i+1), working, screen(t, "claude-working"))
		}
		time.Sleep(2 * time.Second)
		for i := range 20 {
			w.panes.set(fmt.Sprintf("%%%d", i+1), fmt.Sprintf("a%02d", i+1), claudeTitle, screen(t, "claude-idle"))
			if i == 9 {
				w.panes.set("%99", "web", claudeTitle, screen(t, "claude-bash-permission"))
			}
			time.Sleep(2 * time.Second)
		}
		time.Sleep(time.Minute)
		// The first turn ends at 3 s and opens the window; the blocked wait
		// appears at 21 s and goes out at 26 s, inside the window.
		names := make([]string, 20)
		for i := range names {
			names[i] = fmt.Sprintf("a%02d", i+1)
		}
		want(t, w.router.list(),
			`26s blocked "web: Do you want to proceed?"`,
			`1m3s finished "20 agents finished: `+strings.Join(names, ", ")+`"`)
		if n := w.router.got[1].n; n.Pane != "" || n.Kind != notification.KindFinished || !n.Renotify {
			t.Fatalf("coalesced = %+v", n)
		}
	})
}

func TestExplicitNotifiesAreNeverCollapsed(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		for i := range 5 {
			w.engine.Asked(context.Background(), notification.Notification{Kind: notification.KindAsked,
				Title: "attn", Body: fmt.Sprintf("build %d done", i), Tag: "", Renotify: true})
			time.Sleep(200 * time.Millisecond)
		}
		want(t, w.router.list(),
			`0s asked "attn: build 0 done"`, `0s asked "attn: build 1 done"`, `0s asked "attn: build 2 done"`,
			`1s asked "attn: build 3 done"`, `1s asked "attn: build 4 done"`)
		if got := w.log.reasons(); len(got) != 0 {
			t.Fatalf("decisions = %v: explicit notifications pass no stage", got)
		}
	})
}

func TestEscalationRebuzzesOnce(t *testing.T) {
	opts := defaults()
	opts.EscalateAfter = 15 * time.Minute
	timeline(t, opts, func(w *world) {
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(40 * time.Minute)
		want(t, w.router.list(),
			`6s blocked "api: Do you want to proceed?"`,
			`15m1s blocked "Still waiting: api: Do you want to proceed?"`)
		if n := w.router.got[1].n; !n.Renotify || !n.Escalation {
			t.Fatalf("escalation = %+v", n)
		}
	})
}

func TestAnsweredWaitIsNotEscalated(t *testing.T) {
	opts := defaults()
	opts.EscalateAfter = 15 * time.Minute
	timeline(t, opts, func(w *world) {
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(10 * time.Minute)
		w.panes.set("%1", "api", working, screen(t, "claude-working"))
		time.Sleep(20 * time.Minute)
		want(t, w.router.list(), `6s blocked "api: Do you want to proceed?"`)
	})
}

func TestMuteUntilFinished(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		if err := w.mutes.Set(context.Background(), store.Mute{Host: "box", Pane: "%1", UntilFinished: true}); err != nil {
			t.Fatal(err)
		}
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		time.Sleep(10 * time.Second)
		w.panes.set("%1", "api", working, screen(t, "claude-working"))
		time.Sleep(5 * time.Second)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-idle")) // finishes: the mute lifts
		time.Sleep(5 * time.Second)
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-edit-file"))
		time.Sleep(10 * time.Second)
		want(t, w.router.list(), `26s blocked "api: Do you want to make this edit to session.ts?"`)
		if got := w.log.reasons(); strings.Join(got, ",") != "%1 muted,%1 coalesced" {
			t.Fatalf("decisions = %v: want the muted wait, then the finished turn held", got)
		}
	})
}

func TestErrorsAtMostOnceAnHour(t *testing.T) {
	timeline(t, defaults(), func(w *world) {
		for range 3 {
			w.engine.Error(context.Background(), "store", "attn cannot write its store", "disk full")
			time.Sleep(20 * time.Minute)
		}
		w.engine.Error(context.Background(), "other", "attn cannot reach 'phone'", "410")
		time.Sleep(10 * time.Minute)
		w.engine.Error(context.Background(), "store", "attn cannot write its store", "disk full")
		want(t, w.router.list(),
			`0s error "attn cannot write its store: disk full"`,
			`1h0m0s error "attn cannot reach 'phone': 410"`,
			`1h10m0s error "attn cannot write its store: disk full"`)
		if got := w.log.reasons(); strings.Join(got, ",") != " error-rate, error-rate" {
			t.Fatalf("decisions = %q", got)
		}
	})
}

func TestProjectFileOverridesDefaults(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, settings.FileName), []byte(`kinds = ["asked"]`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	timeline(t, defaults(), func(w *world) {
		w.panes.set("%1", "api", claudeTitle, screen(t, "claude-bash-permission"))
		w.panes.mu.Lock()
		p := w.panes.byID["%1"]
		p.Path = filepath.Join(dir, "src") // under the project
		w.panes.byID["%1"] = p
		w.panes.mu.Unlock()
		w.panes.set("%2", "web", claudeTitle, screen(t, "claude-edit-file")) // elsewhere: defaults
		time.Sleep(10 * time.Second)
		want(t, w.router.list(), `6s blocked "web: Do you want to make this edit to session.ts?"`)
		if got := w.log.reasons(); strings.Join(got, ",") != "%1 project-kinds" {
			t.Fatalf("decisions = %v", got)
		}
		if d := w.log.rows[0].Detail; d != filepath.Join(dir, settings.FileName)+" allows only asked" {
			t.Fatalf("detail = %q", d)
		}
	})
}
