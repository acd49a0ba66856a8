package board

import (
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

func TestReplaceListAndChanges(t *testing.T) {
	b := New()
	ch, seq, cancel := b.Subscribe()
	defer cancel()
	if seq != 0 {
		t.Fatalf("seq = %d", seq)
	}
	q := &agent.Question{Prompt: "Do you want to proceed?", Options: []string{"Yes", "No"}}
	b.Replace("box", t0, []Pane{
		{Pane: "%10", Name: "docs", State: agent.StatusIdle},
		{Pane: "%2", Name: "api", State: agent.StatusWorking},
		{Pane: "%3", Name: "web", State: agent.StatusBlocked, Question: q, Incarnation: "9"},
	})
	b.Replace("box", t0.Add(time.Minute), []Pane{
		{Pane: "%10", Name: "docs", State: agent.StatusIdle},
		{Pane: "%2", Name: "api", State: agent.StatusBlocked, Headline: "Bash(ls)"},
		{Pane: "%3", Name: "web", State: agent.StatusBlocked, Question: q, Incarnation: "9"},
	})
	var names []string
	for _, p := range b.List() {
		names = append(names, p.Name+":"+string(p.State))
	}
	if got := names; len(got) != 3 || got[0] != "web:blocked" || got[1] != "api:blocked" || got[2] != "docs:idle" {
		t.Fatalf("list = %v: want blocked, longest waiting first, then the rest", got)
	}
	web, _ := b.Get(agent.PaneRef{Host: "box", Pane: "%3"})
	if !web.Since.Equal(t0) || web.Fingerprint != agent.Fingerprint(web.Ref(), "9", q, "") {
		t.Fatalf("web = %+v: since must hold while the status stays", web)
	}
	if len(ch) != 4 { // three new panes, then api turned blocked
		t.Fatalf("changes = %d, want 4", len(ch))
	}
	b.Replace("box", t0.Add(2*time.Minute), nil)
	if len(b.List()) != 0 || len(ch) != 7 {
		t.Fatalf("after the host emptied: %d panes, %d changes", len(b.List()), len(ch))
	}
	var last Change
	for len(ch) > 0 {
		last = <-ch
	}
	if !last.Gone || last.Seq != 7 {
		t.Fatalf("last change = %+v", last)
	}
}

func TestOtherHostsKept(t *testing.T) {
	b := New()
	b.Replace("a", t0, []Pane{{Pane: "%1", State: agent.StatusIdle}})
	b.Replace("b", t0, []Pane{{Pane: "%1", State: agent.StatusIdle}})
	b.Replace("a", t0, nil)
	if l := b.List(); len(l) != 1 || l[0].Host != "b" {
		t.Fatalf("list = %+v", l)
	}
}
