package reply

import (
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
)

// SurfaceMCP is a message sent by an agent through attn's MCP tools
// (send_agent).
const SurfaceMCP = "mcp"

// Gates of Send besides the answer's.
const (
	// GateRefusedByCheck: the sender's check refused the pane (the agent
	// is blocked, its composer holds unsent text); Detail says which.
	GateRefusedByCheck = "pane-busy"
)

// Paster pastes text into a pane as one bracketed paste (implemented by
// *tmux.Client and *hosts.Client).
type Paster interface {
	Paste(ctx context.Context, pane, text string) error
}

// Refusal is an error a Message's Check returns to refuse the send with
// a gate and words for the sender.
type Refusal struct {
	Gate   string
	Detail string
}

func (r *Refusal) Error() string { return r.Detail }

// Message is text to paste into a pane and submit.
type Message struct {
	Ref     agent.PaneRef
	Text    string
	Surface string // where it comes from (SurfaceMCP)
	Device  string // who sent it, for the audit ("" when unknown)
	// Check, when set, runs under the pane's lock after the input
	// generation moved and before anything is typed, with the pane as
	// described now; an error refuses the send (a *Refusal names its
	// gate).
	Check func(ctx context.Context, term Terminal, p tmux.Pane) error
}

// Send pastes m.Text into the pane and submits it with Enter, as one input
// attempt under the same discipline as an answer: the pane's input
// generation moves before its lock is taken and is marked typed before
// the first key, so a notification's answer minted before this send is
// refused afterwards ("input-moved"). Refused, with nothing typed, when
// the pane is gone or runs a shell, or when Check refuses it. Applied
// means the screen changed after Enter. Every attempt is audited (the
// text's length, never the text).
func (s *Service) Send(ctx context.Context, m Message) Result {
	entry := store.AuditEntry{At: s.now(), Surface: m.Surface, Device: m.Device, Host: m.Ref.Host, Pane: m.Ref.Pane,
		OptionIndex: -1, OptionLabel: fmt.Sprintf("message (%d characters)", utf8.RuneCountInString(m.Text))}
	res := s.send(ctx, m)
	entry.Outcome, entry.Gate, entry.Detail = res.Outcome, res.Gate, res.Detail
	if err := s.Store.AddAudit(context.WithoutCancel(ctx), entry); err != nil {
		s.Log.Error("cannot audit a message", "err", err)
	}
	s.Log.Info("message", "surface", m.Surface, "pane", m.Ref.String(), "outcome", res.Outcome, "gate", res.Gate)
	return res
}

func (s *Service) send(ctx context.Context, m Message) Result {
	ref := m.Ref
	g, err := s.Store.BumpGeneration(ctx, ref.Host, ref.Pane)
	if err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	unlock, err := s.lock(ctx, ref)
	if err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	defer unlock()
	term, err := s.terminal(ref.Host)
	if err != nil {
		return refuse(GatePane, "cannot reach the pane: %v", err)
	}
	paster, ok := term.(Paster)
	if !ok {
		return refuse(GatePane, "this host's terminal cannot paste")
	}
	p, err := term.Describe(ctx, ref.Pane)
	if err != nil || p.Dead {
		return refuse(GatePane, "the pane is gone")
	}
	if IsShell(p.Command) {
		return refuse(GateAgentExited, "no agent runs in the pane: %s does", p.Command)
	}
	if m.Check != nil {
		if err := m.Check(ctx, term, p); err != nil {
			var r *Refusal
			if errors.As(err, &r) {
				return refuse(r.Gate, "%s", r.Detail)
			}
			return refuse(GateRefusedByCheck, "%v", err)
		}
	}
	before, err := term.Capture(ctx, p.ID)
	if err != nil {
		return refuse(GatePane, "cannot read the pane: %v", err)
	}
	if err := s.Store.MarkTyped(ctx, ref.Host, ref.Pane, g); err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	if err := paster.Paste(ctx, p.ID, m.Text); err != nil {
		return Result{Outcome: "error", Detail: fmt.Sprintf("paste: %v", err)}
	}
	// Let the paste land before Enter: an agent that is still reading the
	// paste could take Enter as part of it.
	if _, after, err := s.waitChange(ctx, term, p.ID, before); err == nil {
		before = after
	}
	changed, _, err := s.press(ctx, term, p.ID, step{key: "Enter", final: true}, before)
	if err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	if !changed {
		return Result{Outcome: NotApplied, Detail: "the message was pasted, but the screen did not change after Enter"}
	}
	return Result{Outcome: Applied, Detail: "the message was pasted and submitted"}
}

// waitChange waits (bounded by StepWait) for the pane's screen to differ
// from before, without typing.
func (s *Service) waitChange(ctx context.Context, term Terminal, pane, before string) (bool, string, error) {
	after := s.settle(ctx, term, pane, before)
	return after != before, after, nil
}
