// Package pipeline decides which observations become notifications. This
// first slice implements the blocked rules that matter most: a fingerprint
// is announced once, after holding still for the settle time; a wait that
// clears sooner sends nothing; the notified-set is persisted, so a restart
// does not announce again; a fingerprint is forgotten when its wait clears
// (DESIGN.md, "The rules", Blocked).
package pipeline

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
	Reading     agent.Reading
}

// Announcement is a blocked wait the pipeline decided to announce.
type Announcement struct {
	Observation
	Fingerprint string
	// Since is when the fingerprint was first seen: the wait began then.
	Since time.Time
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

// Blocked decides when a blocked pane is announced. Not safe for
// concurrent use: one watcher feeds it.
type Blocked struct {
	settle   time.Duration
	set      NotifiedSet
	log      *slog.Logger
	pending  map[agent.PaneRef]candidate // fingerprint settling per pane
	notified map[string]store.Announced  // the notified-set, in memory
	vanished map[agent.PaneRef]time.Time // when a pane with notified fingerprints was last seen
}

type candidate struct {
	fingerprint string
	since       time.Time
}

// NewBlocked loads the notified-set and returns a decider that announces a
// fingerprint once it has held still for settle.
func NewBlocked(ctx context.Context, settle time.Duration, set NotifiedSet, log *slog.Logger) (*Blocked, error) {
	rows, err := set.Notified(ctx)
	if err != nil {
		return nil, fmt.Errorf("load notified-set: %w", err)
	}
	b := &Blocked{
		settle: settle, set: set, log: log,
		pending:  map[agent.PaneRef]candidate{},
		notified: make(map[string]store.Announced, len(rows)),
		vanished: map[agent.PaneRef]time.Time{},
	}
	for _, r := range rows {
		b.notified[r.Fingerprint] = r
	}
	return b, nil
}

// Observe takes one complete snapshot of a host's panes at time now and
// returns the waits to announce. A pane of that host missing from the
// snapshot has vanished. Store errors are logged and retried at the next
// snapshot; nothing already stored is lost.
func (b *Blocked) Observe(ctx context.Context, host string, now time.Time, panes []Observation) []Announcement {
	var out []Announcement
	seen := make(map[agent.PaneRef]bool, len(panes))
	current := make(map[agent.PaneRef]string, len(panes)) // blocked fingerprint per pane
	for _, o := range panes {
		seen[o.Ref] = true
		delete(b.vanished, o.Ref)
		if o.Reading.Status != agent.StatusBlocked {
			if c, ok := b.pending[o.Ref]; ok {
				b.log.Debug("wait cleared before settle", "pane", o.Ref.String(), "held", now.Sub(c.since))
				delete(b.pending, o.Ref)
			}
			continue
		}
		fp := agent.Fingerprint(o.Ref, o.Incarnation, o.Reading.Question, o.Reading.Headline)
		current[o.Ref] = fp
		if _, done := b.notified[fp]; done {
			delete(b.pending, o.Ref)
			continue
		}
		c, ok := b.pending[o.Ref]
		if !ok || c.fingerprint != fp {
			// New, or changed before settling (a half-drawn frame): start over.
			c = candidate{fingerprint: fp, since: now}
			b.pending[o.Ref] = c
		}
		if now.Sub(c.since) < b.settle {
			continue
		}
		a := store.Announced{Fingerprint: fp, Host: o.Ref.Host, Pane: o.Ref.Pane, At: now}
		fresh, err := b.set.MarkNotified(ctx, a)
		if err != nil {
			b.log.Error("cannot persist notified fingerprint; will retry", "pane", o.Ref.String(), "err", err)
			continue
		}
		delete(b.pending, o.Ref)
		b.notified[fp] = a
		if fresh {
			out = append(out, Announcement{Observation: o, Fingerprint: fp, Since: c.since})
		}
	}
	for ref := range b.pending {
		if ref.Host == host && !seen[ref] {
			delete(b.pending, ref)
		}
	}
	// Forget announced fingerprints whose wait cleared; keep a vanished
	// pane's for VanishGrace.
	for fp, a := range b.notified {
		if a.Host != host {
			continue
		}
		ref := agent.PaneRef{Host: a.Host, Pane: a.Pane}
		if !seen[ref] {
			first, ok := b.vanished[ref]
			if !ok {
				b.vanished[ref] = now
				continue
			}
			if now.Sub(first) < VanishGrace {
				continue
			}
		} else if current[ref] == fp {
			continue
		}
		if err := b.set.ForgetNotified(ctx, fp); err != nil {
			b.log.Error("cannot forget cleared fingerprint; will retry", "pane", ref.String(), "err", err)
			continue
		}
		delete(b.notified, fp)
		b.log.Info("wait cleared", "pane", ref.String(), "announced", now.Sub(a.At).Round(time.Millisecond))
	}
	for ref, first := range b.vanished {
		if ref.Host == host && !seen[ref] && now.Sub(first) >= VanishGrace {
			delete(b.vanished, ref)
		}
	}
	return out
}

// Retract forgets an announcement that could not be delivered (the queue
// was full): the wait is announced again at the next snapshot while it is
// still current.
func (b *Blocked) Retract(ctx context.Context, fingerprint string) {
	delete(b.notified, fingerprint)
	if err := b.set.ForgetNotified(ctx, fingerprint); err != nil {
		b.log.Error("cannot retract announcement", "err", err)
	}
}
