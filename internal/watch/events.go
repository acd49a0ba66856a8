package watch

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/detect"
	"github.com/attn-dev/attn/internal/source/tmux"
)

// Event-driven watching. Polling reads every pane every Poll: a tmux call
// per pane per second. With Events, a source says which panes changed
// (tmux control mode's %output, herdr's status events) and the watcher
// reads only those:
//
//   - a changed pane is read once it has held still for Debounce (a
//     prompt paints, then stays: it is read 100 ms later), or at the
//     latest Poll after its first unread change (a spinner never holds
//     still: it is read once per Poll, as polling would);
//   - every Poll, without touching tmux, the last readings go to the
//     tracker again (a wait settles on time) and the pipeline ticks;
//   - every FullPoll, and at once after the source (re)starts, every pane
//     is read (what no event announces: a title set without output);
//   - while the source is down (it failed: e.g. a tmux too old for
//     control mode), every pane is read every Poll, as without Events,
//     and the source is started again after FullPoll;
//   - a hook's hint reads its pane at once.
//
// With no device registered, nothing runs: no source, no tmux call.

// The defaults of Debounce and FullPoll.
const (
	DefaultDebounce = 100 * time.Millisecond
	DefaultFullPoll = 10 * time.Second
)

// EventSource reports panes whose screen may have changed. Watch sends
// pane ids on changed ("" when panes came or went: list them again) until
// ctx ends, never blocking on changed past ctx, and returns why it
// stopped (ctx.Err() when ctx ended). Implemented by *tmux.Control and
// herdr's Source.
type EventSource interface {
	Watch(ctx context.Context, changed chan<- string) error
}

// Sources is several event sources as one: Watch runs them all and
// returns when the first stops, stopping the others.
type Sources []EventSource

// Watch runs every source until one stops, and returns its error.
func (s Sources) Watch(ctx context.Context, changed chan<- string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, len(s))
	for _, src := range s {
		go func() { errs <- src.Watch(ctx, changed) }()
	}
	err := <-errs
	cancel()
	for range len(s) - 1 {
		<-errs
	}
	return err
}

// screen is a pane's last reading.
type screen struct {
	pid, title, command string
	text                string
	reading             agent.Reading
}

// scope says what one tick reads: the panes named (and any pane it has no
// reading of, or whose process or title moved); with cached, no tmux at
// all: the last pane list and readings.
type scope struct {
	panes  map[string]bool
	cached bool
}

// listPanes lists the panes, or with a cached scope returns the last list.
func (w *Watcher) listPanes(ctx context.Context, sc *scope) ([]tmux.Pane, error) {
	if sc != nil && sc.cached {
		return w.panes, nil
	}
	panes, err := w.Panes.ListPanes(ctx)
	if w.Events != nil && (err == nil || errors.Is(err, tmux.ErrNoServer)) {
		w.panes = panes
		live := make(map[string]bool, len(panes))
		for _, p := range panes {
			live[p.ID] = true
		}
		maps.DeleteFunc(w.screens, func(id string, _ screen) bool { return !live[id] })
	}
	return panes, err
}

// read returns pane p's screen and its reading: the last one when the
// scope does not name the pane and the pane is as it was, else captured
// and classified now.
func (w *Watcher) read(ctx context.Context, p tmux.Pane, sc *scope) (string, agent.Reading, error) {
	if sc != nil {
		if s, ok := w.screens[p.ID]; ok && (sc.cached || !sc.panes[p.ID]) &&
			s.pid == p.PID && s.title == p.Title && s.command == p.Command {
			return s.text, s.reading, nil
		}
	}
	text, err := w.Panes.Capture(ctx, p.ID)
	if err != nil {
		return "", agent.Reading{}, err
	}
	r := detect.ClassifyPane(detect.Pane{Screen: text, Title: p.Title, Command: p.Command})
	if w.Events != nil {
		if w.screens == nil {
			w.screens = map[string]screen{}
		}
		w.screens[p.ID] = screen{pid: p.PID, title: p.Title, command: p.Command, text: text, reading: r}
	}
	return text, r, nil
}

// unread is a pane changed since it was last read.
type unread struct{ first, last time.Time }

// runEvents is Run with Events (see the comment at the top of this file).
func (w *Watcher) runEvents(ctx context.Context) {
	debounce := cmp.Or(w.Debounce, DefaultDebounce)
	fullPoll := cmp.Or(w.FullPoll, DefaultFullPoll)
	hints := w.hintQueue()
	changed := make(chan string, 256)
	var (
		evCancel context.CancelFunc
		evDone   chan error // nil: the source is not running
		retryAt  time.Time  // do not start the source before
		lastFull time.Time
		pending  = map[string]unread{}
	)
	stopEvents := func() {
		if evCancel == nil {
			return
		}
		evCancel()
		<-evDone // Watch never blocks on changed past its ctx
		evCancel, evDone = nil, nil
		for len(changed) > 0 {
			<-changed
		}
		clear(pending)
	}
	defer stopEvents()
	run := func(sc *scope) {
		if err := w.tick(ctx, sc); err != nil && ctx.Err() == nil {
			w.Log.Warn("screen read failed; will retry", "err", err)
		}
	}
	full := func() {
		lastFull = w.Now()
		clear(pending)
		run(nil)
	}
	ticker := time.NewTicker(w.Poll)
	defer ticker.Stop()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	// due returns the panes to read now, and when the next one is due.
	due := func(now time.Time) (map[string]bool, time.Time) {
		var ids map[string]bool
		var next time.Time
		for id, u := range pending {
			at := u.last.Add(debounce) // quiet long enough
			if latest := u.first.Add(w.Poll); latest.Before(at) {
				at = latest // changing for too long
			}
			if !now.Before(at) {
				if ids == nil {
					ids = map[string]bool{}
				}
				ids[id] = true
				delete(pending, id)
			} else if next.IsZero() || at.Before(next) {
				next = at
			}
		}
		return ids, next
	}
	arm := func(now, next time.Time) {
		timer.Stop()
		if !next.IsZero() {
			timer.Reset(next.Sub(now))
		}
	}

	// poll is one Poll: start the source when due, then read everything,
	// or hand the last readings on.
	poll := func() {
		n, err := w.Devices.CountDevices(ctx)
		switch {
		case err != nil:
			if ctx.Err() == nil {
				w.Log.Warn("cannot count devices; will retry", "err", err)
			}
			return
		case n == 0:
			stopEvents() // touch nothing while nobody listens
			return
		}
		now := w.Now()
		if evDone == nil && !now.Before(retryAt) {
			evCtx, cancel := context.WithCancel(ctx)
			evCancel, evDone = cancel, make(chan error, 1)
			go func() { evDone <- w.Events.Watch(evCtx, changed) }()
			full() // what changed before the source listened
			return
		}
		if evDone == nil || now.Sub(lastFull) >= fullPoll {
			full()
			return
		}
		run(&scope{cached: true})
	}

	poll()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
			poll()
		case err := <-evDone:
			evCancel()
			evCancel, evDone = nil, nil
			retryAt = w.Now().Add(fullPoll)
			w.Log.Warn("pane change events stopped; reading every pane every poll until they are back",
				"err", err, "retry_in", fullPoll)
		case id := <-changed:
			now := w.Now()
			u, ok := pending[id]
			if !ok {
				u.first = now
			}
			u.last = now
			pending[id] = u
			_, next := due(now)
			arm(now, next)
		case <-timer.C:
			now := w.Now()
			ids, next := due(now)
			if len(ids) > 0 {
				run(&scope{panes: ids})
			}
			arm(now, next)
		case h := <-hints:
			now, ref := w.Now(), agent.PaneRef{Host: w.Host, Pane: h.Pane}
			switch {
			case h.Finished:
				w.Engine.Handle(ctx, now, w.Tracker.HookFinished(ref, now))
			case h.Blocked:
				w.Tracker.HookBlocked(ref, now)
			}
			if evDone == nil {
				full()
			} else {
				delete(pending, h.Pane)
				run(&scope{panes: map[string]bool{h.Pane: true}})
			}
		}
	}
}
