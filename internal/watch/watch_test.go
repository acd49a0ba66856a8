package watch

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/fixtures"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/tracker"
)

type fakePanes struct {
	panes   []tmux.Pane
	screens map[string]string
	calls   int
}

func (f *fakePanes) ListPanes(context.Context) ([]tmux.Pane, error) {
	f.calls++
	return f.panes, nil
}

func (f *fakePanes) Capture(_ context.Context, id string) (string, error) {
	f.calls++
	return f.screens[id], nil
}

// fakeTracker records snapshots and returns scripted transitions.
type fakeTracker struct {
	snapshots [][]tracker.Observation
	next      []tracker.Transition
	retracted []string
}

func (f *fakeTracker) Observe(_ context.Context, _ string, _ time.Time, panes []tracker.Observation) []tracker.Transition {
	f.snapshots = append(f.snapshots, panes)
	ts := f.next
	f.next = nil
	return ts
}

func (f *fakeTracker) HookFinished(agent.PaneRef, time.Time) []tracker.Transition { return nil }

func (f *fakeTracker) HookBlocked(agent.PaneRef, time.Time) {}

func (f *fakeTracker) Retract(_ context.Context, fp string) { f.retracted = append(f.retracted, fp) }

type fakeEngine struct {
	handled [][]tracker.Transition
	ticks   int
	retract []string
}

func (f *fakeEngine) Handle(_ context.Context, _ time.Time, ts []tracker.Transition) []string {
	f.handled = append(f.handled, ts)
	return f.retract
}

func (f *fakeEngine) Tick(context.Context, time.Time) { f.ticks++ }

type count int

func (c count) CountDevices(context.Context) (int, error) { return int(c), nil }

func newWatcher(t *testing.T, devices int) (*Watcher, *fakePanes, *fakeTracker, *fakeEngine) {
	panes := &fakePanes{
		panes: []tmux.Pane{
			{ID: "%3", PID: "42", Title: "✳ Claude Code", WindowName: "api", Command: "claude", Path: "/home/dev/api"},
			{ID: "%4", PID: "43", Title: "bash", WindowName: "sh", Command: "bash", Dead: true},
		},
		screens: map[string]string{"%3": fixtures.Screen(t, "claude-bash-permission")},
	}
	tr, en := &fakeTracker{}, &fakeEngine{}
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	w := &Watcher{Host: "box", Panes: panes, Tracker: tr, Engine: en, Devices: count(devices),
		Poll: time.Second, Now: func() time.Time { return now }, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return w, panes, tr, en
}

func TestNoDeviceTouchesNoTmux(t *testing.T) {
	w, panes, tr, en := newWatcher(t, 0)
	for range 3 {
		if err := w.Tick(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if panes.calls != 0 || len(tr.snapshots) != 0 || en.ticks != 0 {
		t.Fatalf("tmux calls %d, snapshots %d, engine ticks %d; want none with no device", panes.calls, len(tr.snapshots), en.ticks)
	}
}

func TestSnapshotReadsLivePanes(t *testing.T) {
	w, _, tr, en := newWatcher(t, 1)
	tr.next = []tracker.Transition{{Kind: tracker.Settled, Fingerprint: "fp"}}
	en.retract = []string{"fp"}
	if err := w.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(tr.snapshots) != 1 || len(tr.snapshots[0]) != 1 {
		t.Fatalf("snapshots = %+v, want one with the live pane only", tr.snapshots)
	}
	o := tr.snapshots[0][0]
	if o.Ref != (agent.PaneRef{Host: "box", Pane: "%3"}) || o.Incarnation != "42" || o.Name != "api" || o.Dir != "/home/dev/api" ||
		o.Reading.Agent != "claude" || o.Reading.Status != agent.StatusBlocked || o.Reading.Question.Prompt != "Do you want to proceed?" {
		t.Fatalf("observation = %+v", o)
	}
	if len(en.handled) != 1 || len(en.handled[0]) != 1 || en.ticks != 1 {
		t.Fatalf("engine handled %+v, ticks %d", en.handled, en.ticks)
	}
	if len(tr.retracted) != 1 || tr.retracted[0] != "fp" {
		t.Fatalf("retracted %v, want the fingerprint the engine could not hand on", tr.retracted)
	}
}
