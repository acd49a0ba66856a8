// Package tracker keeps each pane's state from one snapshot to the next and
// turns snapshots into transitions: a blocked fingerprint that has held
// still for the settle time and is not yet announced; a wait that cleared
// (before or after it was announced); a turn that finished. The
// notified-set is persisted, so a restart does not announce a wait again; a
// fingerprint is forgotten when its wait clears; a vanished pane is
// remembered for 10 minutes (DESIGN.md, "The flow" and "The rules").
package tracker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/store"
)

// Observation is one pane as a source saw it at one moment.
type Observation struct {
	Ref         agent.PaneRef
	Incarnation string // which process lives in the pane (its pid)
	Name        string // the agent's display name: pane title or window name
	Dir         string // the pane's working directory ("" when unknown)
	Reading     agent.Reading
}

// Kind says what a transition is.
type Kind int

// The transitions.
const (
	// Settled: a blocked fingerprint held still for the settle time and is
	// now in the notified-set: announce it.
	Settled Kind = iota + 1
	// ClearedEarly: a blocked wait cleared before it settled — the person
	// answered at the terminal. Held says how long it was on screen.
	ClearedEarly
	// Cleared: an announced wait cleared (answered anywhere, or the pane
	// vanished for good).
	Cleared
	// Finished: the agent went from working to idle: a turn ended.
	Finished
	// HookContradicted: an agent hook said blocked, and the screen did not
	// agree within HookGrace. Nothing is sent; the decision is logged.
	HookContradicted
)

// HookGrace is how long the screen has to agree with a hook that says
// blocked before the hook is dropped as contradicted.
const HookGrace = 3 * time.Second

// Transition is one change the pipeline acts on.
type Transition struct {
	Kind Kind
	Observation
	Fingerprint string
	// Since is when the fingerprint was first seen (Settled, ClearedEarly,
	// Cleared: when the wait began).
	Since time.Time
	// Held is how long the wait lasted (ClearedEarly, Cleared).
	Held time.Duration
}

// NotifiedSet is the persisted set of fingerprints already announced
// (implemented by *store.Store).
type NotifiedSet interface {
	MarkNotified(ctx context.Context, a store.Announced) (bool, error)
	Notified(ctx context.Context) ([]store.Announced, error)
	ForgetNotified(ctx context.Context, fingerprint string) error
}

// VanishGrace is how long a vanished pane's notified fingerprints are kept:
// a host that drops off and comes back is not read as newly blocked
// (DESIGN.md, "The tracker").
const VanishGrace = 10 * time.Minute

// SettleFunc returns the settle time for a pane (its resolved settings).
type SettleFunc func(o Observation) time.Duration

// Tracker keeps per-pane state. Not safe for concurrent use: one watcher
// feeds it.
type Tracker struct {
	// OnStoreError, when set, hears of a store write that failed (the
	// tracker retries at the next snapshot).
	OnStoreError func(err error)

	settle   SettleFunc
	set      NotifiedSet
	log      *slog.Logger
	pending  map[agent.PaneRef]candidate    // fingerprint settling per pane
	notified map[string]store.Announced     // the notified-set, in memory
	vanished map[agent.PaneRef]time.Time    // when a pane with notified fingerprints was last seen
	status   map[agent.PaneRef]agent.Status // last status per pane, for Finished
	last     map[agent.PaneRef]Observation  // last observation per pane
	finished map[agent.PaneRef]time.Time    // when a turn last ended per pane
	hooked   map[agent.PaneRef]time.Time    // when a hook last said the pane is blocked
}

// FinishedDedup is how close a hook's "finished" and the screen's working
// → idle must be to be one turn's end, not two.
const FinishedDedup = 30 * time.Second

type candidate struct {
	fingerprint string
	since       time.Time // when the pane turned blocked
	stable      time.Time // when this fingerprint first appeared
	confirmed   bool      // a hook said blocked and the screen agrees: no settle wait
	obs         Observation
}

// New loads the notified-set and returns a tracker.
func New(ctx context.Context, settle SettleFunc, set NotifiedSet, log *slog.Logger) (*Tracker, error) {
	rows, err := set.Notified(ctx)
	if err != nil {
		return nil, fmt.Errorf("load notified-set: %w", err)
	}
	t := &Tracker{
		settle: settle, set: set, log: log,
		pending:  map[agent.PaneRef]candidate{},
		notified: make(map[string]store.Announced, len(rows)),
		vanished: map[agent.PaneRef]time.Time{},
		status:   map[agent.PaneRef]agent.Status{},
		last:     map[agent.PaneRef]Observation{},
		finished: map[agent.PaneRef]time.Time{},
		hooked:   map[agent.PaneRef]time.Time{},
	}
	for _, r := range rows {
		t.notified[r.Fingerprint] = r
	}
	return t, nil
}

// Observe takes one complete snapshot of a host's panes at time now and
// returns the transitions, in pane order. A pane of that host missing from
// the snapshot has vanished. Store errors are logged and retried at the
// next snapshot; nothing already stored is lost.
func (t *Tracker) Observe(ctx context.Context, host string, now time.Time, panes []Observation) []Transition {
	var out []Transition
	seen := make(map[agent.PaneRef]bool, len(panes))
	current := make(map[agent.PaneRef]string, len(panes)) // blocked fingerprint per pane
	for _, o := range panes {
		seen[o.Ref] = true
		delete(t.vanished, o.Ref)
		t.last[o.Ref] = o
		prev, known := t.status[o.Ref]
		t.status[o.Ref] = o.Reading.Status
		if known && prev == agent.StatusWorking && o.Reading.Status == agent.StatusIdle && t.turnEnded(o.Ref, now) {
			out = append(out, Transition{Kind: Finished, Observation: o})
		}
		hookedAt, hooked := t.hooked[o.Ref]
		if hooked && o.Reading.Status != agent.StatusBlocked && now.Sub(hookedAt) >= HookGrace {
			delete(t.hooked, o.Ref)
			out = append(out, Transition{Kind: HookContradicted, Observation: o, Since: hookedAt, Held: now.Sub(hookedAt)})
		}
		if o.Reading.Status != agent.StatusBlocked {
			if c, ok := t.pending[o.Ref]; ok {
				delete(t.pending, o.Ref)
				out = append(out, Transition{Kind: ClearedEarly, Observation: c.obs, Fingerprint: c.fingerprint,
					Since: c.since, Held: now.Sub(c.since)})
			}
			continue
		}
		fp := agent.Fingerprint(o.Ref, o.Incarnation, o.Reading.Question, o.Reading.Headline)
		current[o.Ref] = fp
		delete(t.hooked, o.Ref) // the screen agrees with any hook
		if _, done := t.notified[fp]; done {
			delete(t.pending, o.Ref)
			continue
		}
		c, ok := t.pending[o.Ref]
		switch {
		case !ok:
			c = candidate{fingerprint: fp, since: now, stable: now}
		case c.fingerprint != fp:
			// Changed before settling (a half-drawn frame, a new question):
			// the new fingerprint must hold still anew; the wait began earlier.
			c.fingerprint, c.stable = fp, now
		}
		if hooked {
			// The hook and the screen describe one prompt: one occurrence,
			// announced at once.
			c.confirmed = true
		}
		c.obs = o
		t.pending[o.Ref] = c
		if !c.confirmed && now.Sub(c.stable) < t.settle(o) {
			continue
		}
		a := store.Announced{Fingerprint: fp, Host: o.Ref.Host, Pane: o.Ref.Pane, At: now}
		fresh, err := t.set.MarkNotified(ctx, a)
		if err != nil {
			t.log.Error("cannot persist notified fingerprint; will retry", "pane", o.Ref.String(), "err", err)
			if t.OnStoreError != nil {
				t.OnStoreError(err)
			}
			continue
		}
		delete(t.pending, o.Ref)
		t.notified[fp] = a
		if fresh {
			out = append(out, Transition{Kind: Settled, Observation: o, Fingerprint: fp, Since: c.since})
		}
	}
	return append(out, t.sweep(ctx, host, now, seen, current)...)
}

// sweep forgets announced fingerprints whose wait cleared, keeping a
// vanished pane's for VanishGrace, and drops state of vanished panes.
func (t *Tracker) sweep(ctx context.Context, host string, now time.Time, seen map[agent.PaneRef]bool, current map[agent.PaneRef]string) []Transition {
	var out []Transition
	for ref := range t.pending {
		if ref.Host == host && !seen[ref] {
			delete(t.pending, ref)
		}
	}
	for ref := range t.status {
		if ref.Host == host && !seen[ref] {
			delete(t.status, ref)
		}
	}
	for ref := range t.hooked {
		if ref.Host == host && !seen[ref] {
			delete(t.hooked, ref)
		}
	}
	for fp, a := range t.notified {
		if a.Host != host {
			continue
		}
		ref := agent.PaneRef{Host: a.Host, Pane: a.Pane}
		if !seen[ref] {
			first, ok := t.vanished[ref]
			if !ok {
				t.vanished[ref] = now
				continue
			}
			if now.Sub(first) < VanishGrace {
				continue
			}
		} else if current[ref] == fp {
			continue
		}
		if err := t.set.ForgetNotified(ctx, fp); err != nil {
			t.log.Error("cannot forget cleared fingerprint; will retry", "pane", ref.String(), "err", err)
			continue
		}
		delete(t.notified, fp)
		o := t.last[ref]
		o.Ref = ref
		out = append(out, Transition{Kind: Cleared, Observation: o, Fingerprint: fp, Since: a.At, Held: now.Sub(a.At)})
		t.log.Info("wait cleared", "pane", ref.String(), "announced", now.Sub(a.At).Round(time.Millisecond))
	}
	for ref, first := range t.vanished {
		if ref.Host == host && !seen[ref] && now.Sub(first) >= VanishGrace {
			delete(t.vanished, ref)
		}
	}
	for ref := range t.last {
		if _, kept := t.vanished[ref]; ref.Host == host && !seen[ref] && !kept {
			delete(t.last, ref)
		}
	}
	return out
}

// turnEnded records a turn's end at now; false when one was recorded for
// the pane within FinishedDedup (the hook and the screen saw the same end).
func (t *Tracker) turnEnded(ref agent.PaneRef, now time.Time) bool {
	if last, ok := t.finished[ref]; ok && now.Sub(last) < FinishedDedup && now.Sub(last) > -FinishedDedup {
		return false
	}
	for r, at := range t.finished {
		if now.Sub(at) >= FinishedDedup {
			delete(t.finished, r)
		}
	}
	t.finished[ref] = now
	return true
}

// HookFinished takes an agent hook's word that a turn ended in pane ref
// (Claude Code's Stop, Codex's agent-turn-complete, …; sub-agents are
// already filtered out). It returns a Finished transition, unless the
// screen already reported this turn's end.
func (t *Tracker) HookFinished(ref agent.PaneRef, now time.Time) []Transition {
	if !t.turnEnded(ref, now) {
		return nil
	}
	o, ok := t.last[ref]
	if !ok {
		o = Observation{Ref: ref, Name: ref.Pane}
	}
	return []Transition{{Kind: Finished, Observation: o}}
}

// HookBlocked takes an agent hook's word that pane ref is blocked now. The
// screen stays the truth: once it shows the prompt, the wait is announced
// without the settle wait; if it does not within HookGrace, a
// HookContradicted transition says so.
func (t *Tracker) HookBlocked(ref agent.PaneRef, now time.Time) {
	t.hooked[ref] = now
}

// Retract forgets an announcement that could not be handed on (the
// delivery queue was full): the wait is announced again after it settles
// anew, while it is still current.
func (t *Tracker) Retract(ctx context.Context, fingerprint string) {
	delete(t.notified, fingerprint)
	if err := t.set.ForgetNotified(ctx, fingerprint); err != nil {
		t.log.Error("cannot retract announcement", "err", err)
	}
}
