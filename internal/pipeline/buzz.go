package pipeline

import (
	"time"

	"github.com/attn-dev/attn/internal/agent"
)

// buzz allows one audible push per agent per BuzzInterval (the pane's
// setting, 5 minutes by default). A newer question inside the interval is
// still sent — the device must show what is really asked — but silently,
// replacing the shown one under the same tag. It never drops.
type buzz struct {
	audible map[agent.PaneRef]time.Time // last audible push per pane
	shown   map[agent.PaneRef]time.Time // last push of any kind per pane
}

func newBuzz() *buzz {
	return &buzz{audible: map[agent.PaneRef]time.Time{}, shown: map[agent.PaneRef]time.Time{}}
}

func (*buzz) Name() string { return "buzz" }

func (s *buzz) Apply(c *Candidate) *Drop {
	last, ok := s.audible[c.Ref]
	if ok && c.At.Sub(last) < c.Settings.BuzzInterval {
		c.N.Renotify = false
		c.N.Replaces = c.At.Sub(s.shown[c.Ref])
	} else {
		c.N.Renotify = true
		s.audible[c.Ref] = c.At
	}
	s.shown[c.Ref] = c.At
	return nil
}

func (s *buzz) forget(now time.Time, longest time.Duration) {
	for ref, t := range s.shown {
		if now.Sub(t) >= longest {
			delete(s.shown, ref)
			delete(s.audible, ref)
		}
	}
}
