package pipeline

import (
	"fmt"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/notification"
)

// CoalesceWindow is how long finished turns are gathered into one push.
const CoalesceWindow = 60 * time.Second

// coalescer gathers finished turns: the first opens a window, every turn
// ending inside it joins, and at its end one notification names them all
// ("3 agents finished: api, web, docs"). It holds only finished turns: a
// blocked push never waits for it.
type coalescer struct {
	window time.Duration
	opened time.Time
	held   []Candidate
}

// add holds c; it reports when the window will flush.
func (s *coalescer) add(c Candidate) time.Time {
	if len(s.held) == 0 {
		s.opened = c.At
	}
	s.held = append(s.held, c)
	return s.opened.Add(s.window)
}

// flush returns the one notification for the turns held, if the window has
// ended at now.
func (s *coalescer) flush(now time.Time) (Candidate, []Candidate, bool) {
	if len(s.held) == 0 || now.Before(s.opened.Add(s.window)) {
		return Candidate{}, nil, false
	}
	held := s.held
	s.held = nil
	var names []string
	seen := map[string]bool{}
	for _, c := range held {
		if n := c.N.Name; !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	out := held[len(held)-1]
	out.At = now
	n := &out.N
	n.Created = now
	n.Renotify = true
	if len(held) == 1 {
		return out, held, true
	}
	n.Title = fmt.Sprintf("%d agents finished", len(names))
	if len(names) == 1 {
		n.Title = fmt.Sprintf("%s finished %d turns", names[0], len(held))
	}
	n.Body = strings.Join(names, ", ")
	n.Host, n.Pane, n.Name, n.Agent, n.Tag = "", "", "", "", "finished"
	return out, held, true
}

// finishedNotification builds the notification for one finished turn.
func finishedNotification(c Candidate, cli string) notification.Notification {
	if cli == "" {
		cli = "agent"
	}
	return notification.Notification{
		Kind: notification.KindFinished, Title: c.N.Name, Name: c.N.Name,
		Body: fmt.Sprintf("finished its turn\n%s on %s", cli, c.Ref.Host),
		Tag:  "finished", Host: c.Ref.Host, Pane: c.Ref.Pane, Agent: cli,
		Urgency: "normal", TTL: time.Hour, Created: c.At,
	}
}
