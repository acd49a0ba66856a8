package watch

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/tracker"
)

// countingPanes serves fixed panes and counts calls per pane.
type countingPanes struct {
	mu       sync.Mutex
	panes    []tmux.Pane
	screens  map[string]string
	lists    int
	captures map[string][]time.Duration // pane → when captured, since start
	start    time.Time
}

func newCountingPanes(ids ...string) *countingPanes {
	p := &countingPanes{screens: map[string]string{}, captures: map[string][]time.Duration{}, start: time.Now()}
	for i, id := range ids {
		p.panes = append(p.panes, tmux.Pane{ID: id, PID: string(rune('a' + i)), Command: "bash"})
		p.screens[id] = "$ "
	}
	return p
}

func (p *countingPanes) ListPanes(context.Context) ([]tmux.Pane, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lists++
	return slices.Clone(p.panes), nil
}

func (p *countingPanes) Capture(_ context.Context, id string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.captures[id] = append(p.captures[id], time.Since(p.start))
	return p.screens[id], nil
}

// reset forgets the calls so far.
func (p *countingPanes) reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lists, p.captures, p.start = 0, map[string][]time.Duration{}, time.Now()
}

func (p *countingPanes) calls() (int, map[string][]time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lists, maps.Clone(p.captures)
}

// fakeSource is an event source the test drives.
type fakeSource struct {
	mu      sync.Mutex
	starts  int
	running bool
	fail    error // returned at once by Watch when set
	out     chan<- string
}

func (f *fakeSource) Watch(ctx context.Context, changed chan<- string) error {
	f.mu.Lock()
	f.starts++
	if f.fail != nil {
		f.mu.Unlock()
		return f.fail
	}
	f.running, f.out = true, changed
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	f.running, f.out = false, nil
	f.mu.Unlock()
	return ctx.Err()
}

// change reports pane id as changed (the source must be running).
func (f *fakeSource) change(t *testing.T, id string) {
	t.Helper()
	f.mu.Lock()
	out := f.out
	f.mu.Unlock()
	if out == nil {
		t.Fatalf("change %s: the source is not running", id)
	}
	out <- id
}

func (f *fakeSource) state() (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts, f.running
}

// devices is a device count the test changes.
type devices struct{ n atomic.Int64 }

func (d *devices) CountDevices(context.Context) (int, error) { return int(d.n.Load()), nil }

// syncTracker and syncEngine are the fakes, safe to read while the
// watcher runs.
type syncTracker struct {
	mu sync.Mutex
	fakeTracker
}

func (s *syncTracker) Observe(ctx context.Context, host string, now time.Time, panes []tracker.Observation) []tracker.Transition {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fakeTracker.Observe(ctx, host, now, panes)
}

// last returns the panes of the last snapshot.
func (s *syncTracker) last() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, o := range s.snapshots[len(s.snapshots)-1] {
		ids = append(ids, o.Ref.Pane)
	}
	return ids
}

type syncEngine struct {
	fakeEngine
	n atomic.Int64
}

func (s *syncEngine) Tick(context.Context, time.Time) { s.n.Add(1) }

func eventWatcher(panes Panes, src EventSource, dev DeviceCounter, tr *syncTracker, en *syncEngine) *Watcher {
	return &Watcher{Host: "box", Panes: panes, Tracker: tr, Engine: en, Devices: dev, Poll: time.Second,
		Now: time.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Events: src, Debounce: 100 * time.Millisecond, FullPoll: time.Minute}
}

// startWatcher runs w in the bubble until the test's end.
func startWatcher(t *testing.T, w *Watcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// TestEventsReadOnlyChangedPanes: at start the source starts and every
// pane is read once; three changes of one pane in quick succession are
// one capture of that pane, 100 ms after the last; a pane changing all the
// time is read once a Poll; the tracker keeps getting every pane, the
// others from their last reading, and nothing touches tmux in between.
func TestEventsReadOnlyChangedPanes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		panes, src, dev := newCountingPanes("%1", "%2", "%3"), &fakeSource{}, &devices{}
		dev.n.Store(1)
		tr, en := &syncTracker{}, &syncEngine{}
		startWatcher(t, eventWatcher(panes, src, dev, tr, en))
		synctest.Wait()
		if starts, running := src.state(); starts != 1 || !running {
			t.Fatalf("source starts %d, running %v", starts, running)
		}
		lists, caps := panes.calls()
		if lists != 1 || len(caps) != 3 {
			t.Fatalf("first read: %d lists, captures %v", lists, caps)
		}

		panes.reset()
		for range 3 {
			src.change(t, "%2")
			time.Sleep(30 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		lists, caps = panes.calls()
		if want := map[string][]time.Duration{"%2": {160 * time.Millisecond}}; lists != 1 || !reflect.DeepEqual(caps, want) {
			t.Fatalf("after 3 changes of %%2: %d lists, captures %v; want 1 list and %v", lists, caps, want)
		}
		if last := tr.last(); !reflect.DeepEqual(last, []string{"%1", "%2", "%3"}) {
			t.Fatalf("snapshot of %v, want all 3 panes", last)
		}

		// A pane changing every 30 ms from t=10ms for 3 s (the last change
		// at 2980): read at 1010, 2030 and 3050 ms, each Poll after the
		// first change it has not read.
		panes.reset()
		time.Sleep(10 * time.Millisecond)
		for range 100 {
			src.change(t, "%3")
			time.Sleep(30 * time.Millisecond)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		lists, caps = panes.calls()
		want := map[string][]time.Duration{"%3": {1010 * time.Millisecond, 2030 * time.Millisecond, 3050 * time.Millisecond}}
		if lists != 3 || !reflect.DeepEqual(caps, want) {
			t.Fatalf("busy pane: %d lists, captures %v; want 3 lists and %v", lists, caps, want)
		}
		// Quiet: for a minute, only the full poll reads.
		panes.reset()
		ticks := en.n.Load()
		time.Sleep(time.Minute + time.Millisecond)
		synctest.Wait()
		lists, caps = panes.calls()
		if lists != 1 || len(caps) != 3 || len(caps["%1"]) != 1 {
			t.Fatalf("quiet minute: %d lists, captures %v; want the one full read", lists, caps)
		}
		if n := en.n.Load() - ticks; n != 60 {
			t.Errorf("engine ticked %d times in 60 s, want once a Poll", n)
		}
	})
}

// TestEventsFallBackToPolling: a source that fails leaves the watcher
// reading every pane every Poll, and is started again every FullPoll.
func TestEventsFallBackToPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		panes, dev := newCountingPanes("%1", "%2"), &devices{}
		src := &fakeSource{fail: errors.New("tmux control mode: no session")}
		dev.n.Store(1)
		w := eventWatcher(panes, src, dev, &syncTracker{}, &syncEngine{})
		w.FullPoll = 5 * time.Second
		startWatcher(t, w)
		time.Sleep(12*time.Second + time.Millisecond)
		synctest.Wait()
		if starts, _ := src.state(); starts != 3 {
			t.Errorf("source started %d times in 12 s, want at 0, 5 and 10 s", starts)
		}
		// A full read at start, after each start, and at each of the 12
		// Polls in between.
		lists, caps := panes.calls()
		if lists != 13 || len(caps["%1"]) != 13 || len(caps["%2"]) != 13 {
			t.Errorf("%d lists, captures %v; want 13 full reads", lists, caps)
		}
	})
}

// TestEventsNoDevice: with no device, the source never starts and no pane
// is read; a device registering starts both; the last one leaving stops
// the source.
func TestEventsNoDevice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		panes, src, dev := newCountingPanes("%1"), &fakeSource{}, &devices{}
		startWatcher(t, eventWatcher(panes, src, dev, &syncTracker{}, &syncEngine{}))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if lists, caps := panes.calls(); lists != 0 || len(caps) != 0 {
			t.Fatalf("no device: %d lists, captures %v", lists, caps)
		}
		if starts, _ := src.state(); starts != 0 {
			t.Fatalf("no device: source started %d times", starts)
		}
		dev.n.Store(1)
		time.Sleep(time.Second)
		synctest.Wait()
		if starts, running := src.state(); starts != 1 || !running {
			t.Fatalf("a device: source starts %d, running %v", starts, running)
		}
		dev.n.Store(0)
		time.Sleep(time.Second)
		synctest.Wait()
		if _, running := src.state(); running {
			t.Fatal("the last device left, the source still runs")
		}
	})
}

// TestEventsHintReadsItsPane: a hook's hint reads that pane at once.
func TestEventsHintReadsItsPane(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		panes, src, dev := newCountingPanes("%1", "%2"), &fakeSource{}, &devices{}
		dev.n.Store(1)
		w := eventWatcher(panes, src, dev, &syncTracker{}, &syncEngine{})
		startWatcher(t, w)
		synctest.Wait()
		panes.reset()
		w.Hint(Hint{Pane: "%2", Blocked: true})
		synctest.Wait()
		if lists, caps := panes.calls(); lists != 1 || !reflect.DeepEqual(caps, map[string][]time.Duration{"%2": {0}}) {
			t.Fatalf("hint: %d lists, captures %v", lists, caps)
		}
	})
}

// TestSources: the first source to stop stops the others.
func TestSources(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := &fakeSource{}, &fakeSource{fail: errors.New("b failed")}
		err := Sources{a, b}.Watch(context.Background(), make(chan string))
		if err == nil || err.Error() != "b failed" {
			t.Fatalf("Watch: %v", err)
		}
		if starts, running := a.state(); starts != 1 || running {
			t.Errorf("a: starts %d, running %v", starts, running)
		}
	})
}
