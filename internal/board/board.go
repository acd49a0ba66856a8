// Package board is the live state of every pane attn watches: who is
// blocked and on what, who works, who is idle — the source of the inbox
// and the pane card (not a log). The watcher replaces a host's panes after
// each snapshot; readers list, get, and subscribe to changes. Safe for
// concurrent use.
package board

import (
	"cmp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/agent"
)

// Pane is one pane's live state.
type Pane struct {
	Host  string       `json:"host"`
	Pane  string       `json:"pane"`
	Name  string       `json:"name"`
	Agent string       `json:"agent"` // which CLI, "" for none
	Dir   string       `json:"dir,omitempty"`
	State agent.Status `json:"status"`
	// Since is when the pane entered its status (for blocked: when the
	// wait began).
	Since       time.Time       `json:"since"`
	Question    *agent.Question `json:"question,omitempty"`
	Headline    string          `json:"headline,omitempty"`
	Fingerprint string          `json:"fingerprint,omitempty"`
	Incarnation string          `json:"-"`
	// Screen is the pane's last captured screen; served only on request.
	Screen string `json:"-"`
}

// Ref is the pane's host/pane name.
func (p Pane) Ref() agent.PaneRef { return agent.PaneRef{Host: p.Host, Pane: p.Pane} }

// Change is one pane's new state, or its removal.
type Change struct {
	Seq  uint64 `json:"seq"`
	Pane Pane   `json:"pane"`
	Gone bool   `json:"gone,omitempty"`
}

// Board holds the panes.
type Board struct {
	mu    sync.RWMutex
	panes map[agent.PaneRef]Pane
	seq   uint64
	subs  map[chan Change]struct{}
}

// New returns an empty Board.
func New() *Board {
	return &Board{panes: map[agent.PaneRef]Pane{}, subs: map[chan Change]struct{}{}}
}

// Replace sets host's panes to panes (a complete snapshot) and announces
// what changed: a pane whose status, question or name moved, a new pane, a
// pane gone. Since is kept while the status stays.
func (b *Board) Replace(host string, now time.Time, panes []Pane) {
	b.mu.Lock()
	defer b.mu.Unlock()
	seen := make(map[agent.PaneRef]bool, len(panes))
	for _, p := range panes {
		p.Host = host
		ref := p.Ref()
		seen[ref] = true
		if p.State == agent.StatusBlocked && p.Fingerprint == "" {
			p.Fingerprint = agent.Fingerprint(ref, p.Incarnation, p.Question, p.Headline)
		}
		old, ok := b.panes[ref]
		p.Since = now
		if ok && old.State == p.State {
			p.Since = old.Since
		}
		b.panes[ref] = p
		if !ok || old.State != p.State || old.Fingerprint != p.Fingerprint || old.Name != p.Name || old.Agent != p.Agent {
			b.publish(Change{Pane: p})
		}
	}
	for ref, p := range b.panes {
		if ref.Host == host && !seen[ref] {
			delete(b.panes, ref)
			b.publish(Change{Pane: p, Gone: true})
		}
	}
}

// publish sends c to every subscriber without blocking; a subscriber that
// cannot keep up misses changes and should re-list (its Seq jumps).
func (b *Board) publish(c Change) {
	b.seq++
	c.Seq = b.seq
	for ch := range b.subs {
		select {
		case ch <- c:
		default:
		}
	}
}

// List returns every pane: blocked first (longest waiting first), then
// working, idle and the rest, each by host and pane.
func (b *Board) List() []Pane {
	b.mu.RLock()
	out := make([]Pane, 0, len(b.panes))
	for _, p := range b.panes {
		out = append(out, p)
	}
	b.mu.RUnlock()
	rank := map[agent.Status]int{agent.StatusBlocked: 0, agent.StatusWorking: 1, agent.StatusIdle: 2, agent.StatusDone: 2}
	order := func(s agent.Status) int {
		if r, ok := rank[s]; ok {
			return r
		}
		return 3
	}
	slices.SortFunc(out, func(a, b Pane) int {
		if c := cmp.Compare(order(a.State), order(b.State)); c != 0 {
			return c
		}
		if a.State == agent.StatusBlocked {
			if c := a.Since.Compare(b.Since); c != 0 {
				return c
			}
		}
		return cmp.Or(strings.Compare(a.Host, b.Host), cmp.Compare(paneNumber(a.Pane), paneNumber(b.Pane)))
	})
	return out
}

func paneNumber(id string) int {
	n := 0
	for _, r := range strings.TrimPrefix(id, "%") {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// Get returns one pane.
func (b *Board) Get(ref agent.PaneRef) (Pane, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	p, ok := b.panes[ref]
	return p, ok
}

// Subscribe returns a channel of changes (buffered; a slow reader misses
// changes, seen as a gap in Seq) and a cancel func. The current Seq is
// returned so a reader can List and then apply later changes.
func (b *Board) Subscribe() (<-chan Change, uint64, func()) {
	ch := make(chan Change, 64)
	b.mu.Lock()
	b.subs[ch] = struct{}{}
	seq := b.seq
	b.mu.Unlock()
	return ch, seq, func() {
		b.mu.Lock()
		delete(b.subs, ch)
		b.mu.Unlock()
	}
}
