package pipeline

import (
	"fmt"
	"time"

	"github.com/attn-dev/attn/internal/agent"
)

// Runaway ceiling defaults (DESIGN.md, "Blocked").
const (
	CeilingMax    = 3
	CeilingWindow = 15 * time.Minute
)

// ceiling drops a pane's push beyond Max in Window, whatever happens: a
// prompt that rephrases itself every poll mints a new fingerprint each time
// and must not buzz a pocket continuously (seed 001, "Rate cap").
type ceiling struct {
	Max    int
	Window time.Duration
	sent   map[agent.PaneRef][]time.Time
}

func newCeiling() *ceiling {
	return &ceiling{Max: CeilingMax, Window: CeilingWindow, sent: map[agent.PaneRef][]time.Time{}}
}

func (*ceiling) Name() string { return "ceiling" }

func (s *ceiling) Apply(c *Candidate) *Drop {
	recent := s.sent[c.Ref][:0]
	for _, t := range s.sent[c.Ref] {
		if c.At.Sub(t) < s.Window {
			recent = append(recent, t)
		}
	}
	if len(recent) >= s.Max {
		s.sent[c.Ref] = recent
		return &Drop{Stage: "ceiling", Reason: ReasonCeiling,
			Detail: fmt.Sprintf("%d pushes for this pane in the last %s", len(recent), s.Window), Age: c.At.Sub(recent[0])}
	}
	s.sent[c.Ref] = append(recent, c.At)
	return nil
}

// forget drops history older than the window, for panes gone quiet.
func (s *ceiling) forget(now time.Time) {
	for ref, ts := range s.sent {
		if len(ts) == 0 || now.Sub(ts[len(ts)-1]) >= s.Window {
			delete(s.sent, ref)
		}
	}
}
