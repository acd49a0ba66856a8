// Package watch is the screen watcher: every poll it lists the tmux
// server's panes, reads each screen, classifies it, hands the snapshot to
// the tracker and its transitions to the pipeline. It runs only while at
// least one device is registered: with none it touches no tmux server.
package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/board"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/tracker"
)

// Panes lists and reads panes (implemented by *tmux.Client).
type Panes interface {
	ListPanes(ctx context.Context) ([]tmux.Pane, error)
	Capture(ctx context.Context, id string) (string, error)
}

// Tracker turns snapshots into transitions (implemented by
// *tracker.Tracker).
type Tracker interface {
	Observe(ctx context.Context, host string, now time.Time, panes []tracker.Observation) []tracker.Transition
	HookFinished(ref agent.PaneRef, now time.Time) []tracker.Transition
	HookBlocked(ref agent.PaneRef, now time.Time)
	Retract(ctx context.Context, fingerprint string)
}

// Hint is a fast signal from an agent hook about one of this host's panes.
// The screen stays the truth: a hint only makes the watcher look now.
type Hint struct {
	Pane     string // tmux pane id, e.g. "%3"
	Finished bool   // the agent says its turn ended
	Blocked  bool   // the agent says it waits on the person now
}

// Engine decides on transitions (implemented by *pipeline.Engine).
type Engine interface {
	Handle(ctx context.Context, now time.Time, ts []tracker.Transition) (retract []string)
	Tick(ctx context.Context, now time.Time)
}

// DeviceCounter says how many devices are registered.
type DeviceCounter interface {
	CountDevices(ctx context.Context) (int, error)
}

// Watcher polls one tmux server.
type Watcher struct {
	Host    string // this host's name
	Panes   Panes
	Tracker Tracker
	Engine  Engine
	Devices DeviceCounter
	// Board, when set, gets every snapshot: the live state the inbox shows.
	Board *board.Board
	Poll  time.Duration
	Now   func() time.Time
	Log   *slog.Logger
	// Events, when set, says which panes changed (tmux control mode,
	// herdr): the watcher then reads a changed pane once it has held
	// still for Debounce, and every pane only every FullPoll, or every
	// Poll while Events is down (events.go). nil: every pane every Poll.
	Events   EventSource
	Debounce time.Duration // default DefaultDebounce
	FullPoll time.Duration // default DefaultFullPoll

	hintsOnce sync.Once
	hints     chan Hint
	screens   map[string]screen // last reading per pane, for partial reads
	panes     []tmux.Pane       // last pane list, for reads without tmux
}

// Hint hands a hook's signal to the watcher without waiting; it reports
// false when too many are pending (the next poll sees the screen anyway).
func (w *Watcher) Hint(h Hint) bool {
	select {
	case w.hintQueue() <- h:
		return true
	default:
		return false
	}
}

func (w *Watcher) hintQueue() chan Hint {
	w.hintsOnce.Do(func() { w.hints = make(chan Hint, 64) })
	return w.hints
}

// Run polls until ctx ends, and at once when a hint arrives. With Events
// it reads changed panes instead (runEvents).
func (w *Watcher) Run(ctx context.Context) {
	if w.Events != nil {
		w.runEvents(ctx)
		return
	}
	hints := w.hintQueue()
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		if err := w.Tick(ctx); err != nil && ctx.Err() == nil {
			w.Log.Warn("screen poll failed; will retry", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case h := <-hints:
			now, ref := w.Now(), agent.PaneRef{Host: w.Host, Pane: h.Pane}
			switch {
			case h.Finished:
				w.Engine.Handle(ctx, now, w.Tracker.HookFinished(ref, now))
			case h.Blocked:
				w.Tracker.HookBlocked(ref, now)
			}
		}
	}
}

// Tick runs one poll: list, capture, classify, track, decide.
func (w *Watcher) Tick(ctx context.Context) error { return w.tick(ctx, nil) }

// tick is Tick reading only what sc says (nil: everything).
func (w *Watcher) tick(ctx context.Context, sc *scope) error {
	n, err := w.Devices.CountDevices(ctx)
	if err != nil {
		return fmt.Errorf("count devices: %w", err)
	}
	if n == 0 {
		return nil
	}
	panes, err := w.listPanes(ctx, sc)
	if err != nil && !errors.Is(err, tmux.ErrNoServer) {
		return err
	}
	obs := make([]tracker.Observation, 0, len(panes))
	live := make([]board.Pane, 0, len(panes))
	for _, p := range panes {
		if p.Dead {
			continue
		}
		screen, reading, err := w.read(ctx, p, sc)
		if err != nil {
			// The pane may have closed between list and capture; it is
			// simply absent from this snapshot.
			w.Log.Debug("capture failed", "pane", p.ID, "err", err)
			continue
		}
		o := tracker.Observation{
			Ref:         agent.PaneRef{Host: w.Host, Pane: p.ID},
			Incarnation: p.PID,
			Name:        Name(p, w.Host),
			Dir:         p.Path,
			Reading:     reading,
		}
		obs = append(obs, o)
		live = append(live, board.Pane{Pane: p.ID, Name: o.Name, Agent: o.Reading.Agent, Dir: p.Path,
			State: o.Reading.Status, Question: o.Reading.Question, Headline: o.Reading.Headline,
			Incarnation: p.PID, Screen: screen})
	}
	now := w.Now()
	if w.Board != nil {
		w.Board.Replace(w.Host, now, live)
	}
	ts := w.Tracker.Observe(ctx, w.Host, now, obs)
	for _, fp := range w.Engine.Handle(ctx, now, ts) {
		w.Tracker.Retract(ctx, fp)
	}
	w.Engine.Tick(ctx, now)
	w.Log.Debug("poll done", "panes", len(obs), "transitions", len(ts))
	return nil
}
