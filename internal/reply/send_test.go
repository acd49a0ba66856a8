package reply

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/source/tmux"
)

// pasteMenu is the fake menu that also takes pastes.
type pasteMenu struct {
	*menu
	pasted []string
}

func (p *pasteMenu) Paste(_ context.Context, _ string, text string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pasted = append(p.pasted, text)
	return nil
}

func TestSendMovesTheInputGeneration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m, st, nonce := setup(t)
		pm := &pasteMenu{menu: m}
		s.Term = pm
		res := s.Send(context.Background(), Message{Ref: ref, Text: "run the tests\nthen stop", Surface: SurfaceMCP, Device: "agent"})
		if res.Outcome != Applied || len(pm.pasted) != 1 || pm.pasted[0] != "run the tests\nthen stop" || strings.Join(m.keys, " ") != "Enter" {
			t.Fatalf("send: %+v, pasted %q, keys %v", res, pm.pasted, m.keys)
		}
		a := lastAudit(t, st)
		if a.Surface != SurfaceMCP || a.Outcome != Applied || a.OptionIndex != -1 || a.OptionLabel != "message (23 characters)" || a.Pane != "%1" {
			t.Fatalf("audit %+v", a)
		}
		if strings.Contains(a.OptionLabel+a.Detail, "run the tests") {
			t.Fatal("the audit keeps the message's text")
		}
		// A notification's answer minted before the message is refused.
		if res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: 0, Surface: SurfacePush}); res.Gate != GateGeneration {
			t.Fatalf("answer after a message: %+v, want refused at %s", res, GateGeneration)
		}
	})
}

func TestSendRefusedTypesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m, _, nonce := setup(t)
		pm := &pasteMenu{menu: m}
		s.Term = pm
		check := func(ctx context.Context, term Terminal, p tmux.Pane) error {
			if p.ID != "%1" || term != Terminal(pm) {
				t.Errorf("check got pane %+v, terminal %T", p, term)
			}
			return &Refusal{Gate: "agent-blocked", Detail: "the agent is blocked on a question: answer it first"}
		}
		res := s.Send(context.Background(), Message{Ref: ref, Text: "hi", Surface: SurfaceMCP, Check: check})
		if res.Outcome != Refused || res.Gate != "agent-blocked" || len(pm.pasted) != 0 || len(m.keys) != 0 {
			t.Fatalf("refused send: %+v, pasted %q, keys %v", res, pm.pasted, m.keys)
		}
		res = s.Send(context.Background(), Message{Ref: ref, Text: "hi", Surface: SurfaceMCP,
			Check: func(context.Context, Terminal, tmux.Pane) error { return errors.New("composer holds text") }})
		if res.Gate != GateRefusedByCheck || res.Detail != "composer holds text" {
			t.Fatalf("plain error check: %+v", res)
		}
		m.command = "zsh"
		if res := s.Send(context.Background(), Message{Ref: ref, Text: "hi"}); res.Gate != GateAgentExited {
			t.Fatalf("send to a shell: %+v", res)
		}
		m.command = "claude"
		// Nothing was typed, so the pending answer still goes through.
		if res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: 0, Surface: SurfacePush}); res.Outcome != Applied {
			t.Fatalf("answer after refused sends: %+v", res)
		}
	})
}

func TestTerminalPerHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, m, _, nonce := setup(t)
		s.Term = nil
		var asked []string
		s.Terms = func(host string) (Terminal, error) {
			asked = append(asked, host)
			if host == "box" {
				return m, nil
			}
			return nil, errors.New("host devbox is unreachable: ssh devbox: Connection refused")
		}
		if res := s.Send(context.Background(), Message{Ref: agent.PaneRef{Host: "devbox", Pane: "%1"}, Text: "hi"}); res.Gate != GatePane || !strings.Contains(res.Detail, "devbox is unreachable") {
			t.Fatalf("send to an unreachable host: %+v", res)
		}
		if res := s.Answer(context.Background(), Request{Nonce: nonce, OptionIndex: 1, Surface: SurfacePush}); res.Outcome != Applied || m.chosen != "2" {
			t.Fatalf("answer on its host: %+v", res)
		}
		if strings.Join(asked, " ") != "devbox box" {
			t.Fatalf("terminals asked for %v", asked)
		}
	})
}
