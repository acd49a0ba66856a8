// Package reply is the remote keyboard: it mints the one-shot nonces that
// answer buttons carry, and turns an answer {nonce, option_index} into
// keystrokes in the right pane — only after every gate passes, in this
// order (DESIGN.md, "Replies"; issue 6): the nonce exists, is unused and
// is consumed atomically; the index is one it was minted for; the pane's
// input generation has not moved since (every attempt bumps it before
// taking the pane's lock, and the answer re-checks under the lock); the
// pane still runs the agent (not a shell) in the same incarnation; its
// live screen still shows the very question (same fingerprint). Then the
// option is mapped to that agent's keys, sent one at a time, each checked
// on the re-read screen, and the answer is "applied" only if the prompt
// changed. Every attempt is audited.
package reply

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/source/tmux"
	"github.com/attn-dev/attn/internal/store"
)

// Terminal reads and types into panes (implemented by *tmux.Client).
type Terminal interface {
	Describe(ctx context.Context, pane string) (tmux.Pane, error)
	Capture(ctx context.Context, pane string) (string, error)
	SendKeys(ctx context.Context, pane string, literal bool, keys ...string) error
}

// Store keeps nonces, input generations and the audit log (implemented by
// *store.Store).
type Store interface {
	AddNonce(ctx context.Context, n store.Nonce) error
	ConsumeNonce(ctx context.Context, nonce string, now time.Time) (store.Nonce, error)
	LiveNonce(ctx context.Context, fingerprint string, now time.Time) (store.Nonce, error)
	ForgetNonces(ctx context.Context, fingerprint string) error
	BumpGeneration(ctx context.Context, host, pane string) (int64, error)
	Generation(ctx context.Context, host, pane string) (gen, typed int64, err error)
	MarkTyped(ctx context.Context, host, pane string, gen int64) error
	AddAudit(ctx context.Context, e store.AuditEntry) error
}

// Surfaces an answer can come from.
const (
	SurfacePush     = "push"     // a notification's action button (service worker)
	SurfaceCard     = "card"     // the web app's pane card
	SurfaceNtfy     = "ntfy"     // an ntfy http action
	SurfaceTelegram = "telegram" // a Telegram inline button
)

// Outcomes of an answer.
const (
	Applied    = "applied"     // the keys were typed and the prompt changed
	NotApplied = "not-applied" // the keys were typed; the prompt did not change
	Refused    = "refused"     // a gate refused: nothing was typed
)

// Gates, in the order they are checked; a refusal names its gate.
const (
	GateActionsOff  = "reply-actions-off"
	GateNonce       = "nonce"
	GateNonceUsed   = "nonce-used"
	GateOption      = "option-not-offered"
	GateGeneration  = "input-moved"
	GatePane        = "pane-gone"
	GateAgentExited = "agent-exited"
	GateIncarnation = "incarnation"
	GatePrompt      = "prompt-changed"
)

// Request is one answer attempt.
type Request struct {
	Nonce       string
	OptionIndex int
	Surface     string
	Device      string // who answered, for the audit ("" when unknown)
}

// Result says what happened.
type Result struct {
	Outcome string `json:"outcome"`
	Gate    string `json:"gate,omitempty"`
	Option  string `json:"option,omitempty"`
	Detail  string `json:"detail"`
}

// Service answers.
type Service struct {
	Host string // this host's name
	Term Terminal
	// Terms, when set, gives the terminal of the host a nonce names (its
	// error, e.g. an unreachable host, refuses the answer with nothing
	// typed); nil means Term for every host.
	Terms func(host string) (Terminal, error)
	Store Store
	Log   *slog.Logger
	Now   func() time.Time
	// NonceTTL is how long a nonce lives (the blocked notification's TTL).
	NonceTTL time.Duration
	// ActionsOff refuses answers from notifications (every surface but the
	// card), for people who decide only with full context in the app.
	ActionsOff bool
	// StepWait bounds the wait for the screen to react to one key
	// (default 2 s); Step is the re-read interval (default 50 ms).
	StepWait, Step time.Duration

	locks sync.Map // "host/pane" → chan struct{}: a one-slot semaphore per pane
}

// Mint makes a nonce for a blocked pane's question, answering the given
// option indices, bound to the pane's current input generation.
func (s *Service) Mint(ctx context.Context, ref agent.PaneRef, incarnation, fingerprint string, options []int) (string, error) {
	g, _, err := s.Store.Generation(ctx, ref.Host, ref.Pane)
	if err != nil {
		return "", err
	}
	raw := make([]byte, 16)
	rand.Read(raw)
	n := store.Nonce{Nonce: base64.RawURLEncoding.EncodeToString(raw), Fingerprint: fingerprint, Host: ref.Host,
		Pane: ref.Pane, Incarnation: incarnation, Options: options, Generation: g, Created: s.now()}
	n.Expires = n.Created.Add(s.NonceTTL)
	if err := s.Store.AddNonce(ctx, n); err != nil {
		return "", err
	}
	return n.Nonce, nil
}

// NonceFor returns the live nonce for a blocked pane's question, minting
// one for all its options when there is none (the pane card's answers).
func (s *Service) NonceFor(ctx context.Context, ref agent.PaneRef, incarnation, fingerprint string, q *agent.Question) (string, error) {
	if q == nil || len(q.Options) == 0 {
		return "", nil
	}
	if n, err := s.Store.LiveNonce(ctx, fingerprint, s.now()); err == nil && n.Incarnation == incarnation && len(n.Options) == len(q.Options) {
		return n.Nonce, nil
	}
	all := make([]int, len(q.Options))
	for i := range all {
		all[i] = i
	}
	return s.Mint(ctx, ref, incarnation, fingerprint, all)
}

// Forget kills a fingerprint's nonces: its wait cleared.
func (s *Service) Forget(ctx context.Context, fingerprint string) {
	if err := s.Store.ForgetNonces(ctx, fingerprint); err != nil {
		s.Log.Error("cannot forget nonces", "err", err)
	}
}

// terminal returns host's terminal: Terms's, else Term.
func (s *Service) terminal(host string) (Terminal, error) {
	if s.Terms == nil {
		return s.Term, nil
	}
	return s.Terms(host)
}

func (s *Service) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// lock takes the pane's lock, waiting while another answer types into it;
// it returns the unlock func, or ctx's error.
func (s *Service) lock(ctx context.Context, ref agent.PaneRef) (func(), error) {
	v, _ := s.locks.LoadOrStore(ref.String(), make(chan struct{}, 1))
	sem := v.(chan struct{})
	select {
	case sem <- struct{}{}:
		return func() { <-sem }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Answer runs the gates, types the keys, and audits the attempt.
func (s *Service) Answer(ctx context.Context, req Request) Result {
	entry := store.AuditEntry{At: s.now(), Surface: req.Surface, Device: req.Device, OptionIndex: req.OptionIndex}
	res := s.answer(ctx, req, &entry)
	entry.Outcome, entry.Gate, entry.Detail, entry.OptionLabel = res.Outcome, res.Gate, res.Detail, res.Option
	if err := s.Store.AddAudit(context.WithoutCancel(ctx), entry); err != nil {
		s.Log.Error("cannot audit an answer", "err", err)
	}
	s.Log.Info("answer", "surface", req.Surface, "pane", entry.Host+"/"+entry.Pane, "option", req.OptionIndex,
		"outcome", res.Outcome, "gate", res.Gate)
	return res
}

func refuse(gate, format string, args ...any) Result {
	return Result{Outcome: Refused, Gate: gate, Detail: fmt.Sprintf(format, args...)}
}

func (s *Service) answer(ctx context.Context, req Request, entry *store.AuditEntry) Result {
	if s.ActionsOff && req.Surface != SurfaceCard {
		return refuse(GateActionsOff, "answers from notifications are turned off (--reply-actions=off): answer in the app")
	}
	n, err := s.Store.ConsumeNonce(ctx, req.Nonce, s.now())
	switch {
	case errors.Is(err, store.ErrNonceUsed):
		return refuse(GateNonceUsed, "this answer was already used")
	case errors.Is(err, store.ErrNonceUnknown):
		return refuse(GateNonce, "this question is no longer open (answered, expired, or never asked)")
	case err != nil:
		return Result{Outcome: "error", Detail: err.Error()}
	}
	ref := agent.PaneRef{Host: n.Host, Pane: n.Pane}
	entry.Host, entry.Pane = n.Host, n.Pane
	if !slices.Contains(n.Options, req.OptionIndex) {
		return refuse(GateOption, "option %d was not offered with this question", req.OptionIndex)
	}
	// Every attempt moves the generation before taking the pane's lock;
	// under the lock, an attempt that typed after this nonce was minted
	// (any surface) refuses it: of two answers racing for one prompt,
	// exactly one types.
	g, err := s.Store.BumpGeneration(ctx, ref.Host, ref.Pane)
	if err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	unlock, err := s.lock(ctx, ref)
	if err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	defer unlock()
	if _, typed, err := s.Store.Generation(ctx, ref.Host, ref.Pane); err != nil || typed > n.Generation {
		return refuse(GateGeneration, "someone else typed into this pane since the question was sent")
	}
	term, err := s.terminal(ref.Host)
	if err != nil {
		return refuse(GatePane, "cannot reach the pane: %v", err)
	}
	p, err := term.Describe(ctx, ref.Pane)
	if err != nil || p.Dead {
		return refuse(GatePane, "the pane is gone")
	}
	if IsShell(p.Command) {
		return refuse(GateAgentExited, "the agent has exited: %s runs in the pane now", p.Command)
	}
	if p.PID != n.Incarnation {
		return refuse(GateIncarnation, "another program now runs in the pane")
	}
	reading, err := s.read(ctx, term, p)
	if err != nil {
		return refuse(GatePane, "cannot read the pane: %v", err)
	}
	if reading.Status != agent.StatusBlocked || agent.Fingerprint(ref, p.PID, reading.Question, reading.Headline) != n.Fingerprint {
		return refuse(GatePrompt, "the question on screen is no longer the one this answer was for")
	}
	if req.OptionIndex >= len(reading.Question.Options) {
		return refuse(GatePrompt, "option %d is not on screen", req.OptionIndex)
	}
	if err := s.Store.MarkTyped(ctx, ref.Host, ref.Pane, g); err != nil {
		return Result{Outcome: "error", Detail: err.Error()}
	}
	r := s.typeAnswer(ctx, term, p, ref, n.Fingerprint, reading, req.OptionIndex)
	r.Option = reading.Question.Options[req.OptionIndex]
	return r
}
