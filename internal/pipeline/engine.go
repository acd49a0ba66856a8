package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/settings"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/tracker"
)

// Router hands a notification that passed the pipeline to the devices
// (implemented by *route.Router). With wait it returns after every channel
// answered; without, it queues and returns at once.
type Router interface {
	Route(ctx context.Context, n notification.Notification, wait bool) deliver.Report
}

// DecisionLog records decisions (implemented by *store.Store).
type DecisionLog interface {
	AddDecision(ctx context.Context, d store.Decision) error
}

// Config is what an Engine needs.
type Config struct {
	Settings *settings.Resolver
	Mutes    *Mutes
	Router   Router
	Log      DecisionLog
	Logger   *slog.Logger
	// LogContent keeps notification text in the decision log.
	LogContent bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Replies mints the nonces that answer buttons carry, and forgets them
	// when a wait clears; nil sends no buttons.
	Replies Replies
	// ReplyActions puts answer buttons on blocked notifications
	// (--reply-actions; off sends none anywhere).
	ReplyActions bool
	// Clearer takes back what channels showed for a wait once it clears;
	// nil clears nothing.
	Clearer Clearer
}

// Clearer clears or edits, on the channels that can, the messages shown
// for a fingerprint whose wait cleared — ntfy sequence clear, Telegram
// edit, FCM dismiss, Pushover receipt cancel (implemented by
// *channel.Dispatcher). It must not block: the watcher calls it.
type Clearer interface {
	Clear(ctx context.Context, fingerprint string)
}

// Replies mints and forgets answer nonces (implemented by *reply.Service).
type Replies interface {
	Mint(ctx context.Context, ref agent.PaneRef, incarnation, fingerprint string, options []int) (string, error)
	Forget(ctx context.Context, fingerprint string)
}

// MaxActions is how many answer buttons a notification carries: Chrome
// shows at most two (PROTOCOLS.md, "Browsers").
const MaxActions = 2

// Engine runs the stages. Handle and Tick are called by the watcher;
// Asked, Test and Error may be called from any goroutine.
type Engine struct {
	cfg Config

	mu        sync.Mutex // guards the stage state below
	blocked   []Stage
	finished  []Stage
	escalated []Stage
	ceiling   *ceiling
	buzz      *buzz
	coalesce  *coalescer
	escalate  map[string]escalation // by fingerprint
	errors    map[string]time.Time  // error key → last sent
}

type escalation struct {
	due time.Time
	c   Candidate
}

// ErrorInterval is the least time between two error notifications with
// the same key.
const ErrorInterval = time.Hour

// New returns an Engine.
func New(cfg Config) *Engine {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	e := &Engine{cfg: cfg, ceiling: newCeiling(), buzz: newBuzz(),
		coalesce: &coalescer{window: CoalesceWindow},
		escalate: map[string]escalation{}, errors: map[string]time.Time{}}
	mute := muteStage{mutes: cfg.Mutes}
	e.blocked = []Stage{mute, e.ceiling, e.buzz}
	e.finished = []Stage{mute}
	e.escalated = []Stage{mute, e.ceiling}
	return e
}

// Settle returns the settle time for a pane (for the tracker).
func (e *Engine) Settle(o tracker.Observation) time.Duration {
	return e.cfg.Settings.For(o.Dir).Settle
}

// Handle acts on the tracker's transitions. It returns the fingerprints of
// settled waits that could not be handed on (the delivery queue was full):
// the caller retracts them so they are announced again while current.
func (e *Engine) Handle(ctx context.Context, now time.Time, ts []tracker.Transition) (retract []string) {
	for _, t := range ts {
		switch t.Kind {
		case tracker.Settled:
			c := e.candidate(t.Observation, now, blockedNotification(t, now))
			e.mu.Lock()
			drop := run(e.blocked, &c)
			e.mu.Unlock()
			if drop == nil {
				e.addActions(ctx, t, &c.N)
			}
			if drop == nil && c.Settings.EscalateAfter > 0 {
				e.mu.Lock()
				e.escalate[t.Fingerprint] = escalation{due: t.Since.Add(c.Settings.EscalateAfter), c: c}
				e.mu.Unlock()
			}
			if !e.pass(ctx, c, drop) {
				retract = append(retract, t.Fingerprint)
			}
		case tracker.ClearedEarly:
			e.forget(ctx, t.Fingerprint)
			c := e.candidate(t.Observation, now, blockedNotification(t, now))
			e.decide(ctx, c, &Drop{Stage: "settle", Reason: ReasonAnsweredAtTerminal, Age: t.Held,
				Detail: fmt.Sprintf("answered at the terminal %s after it appeared", round(t.Held))})
		case tracker.HookContradicted:
			c := e.candidate(t.Observation, now, notification.Notification{Kind: notification.KindBlocked, Name: t.Name})
			e.decide(ctx, c, &Drop{Stage: "hook", Reason: ReasonHookContradicted, Age: t.Held,
				Detail: fmt.Sprintf("the agent's hook said it was blocked, but the screen shows it %s", t.Reading.Status)})
		case tracker.Cleared:
			e.forget(ctx, t.Fingerprint)
			if e.cfg.Clearer != nil {
				e.cfg.Clearer.Clear(ctx, t.Fingerprint)
			}
			e.mu.Lock()
			delete(e.escalate, t.Fingerprint)
			e.mu.Unlock()
		case tracker.Finished:
			e.cfg.Mutes.Finished(ctx, t.Ref)
			c := e.candidate(t.Observation, now, notification.Notification{Name: t.Name})
			c.N = finishedNotification(c, t.Reading.Agent)
			e.mu.Lock()
			drop := run(e.finished, &c)
			var flushAt time.Time
			if drop == nil {
				flushAt = e.coalesce.add(c)
			}
			e.mu.Unlock()
			if drop == nil {
				drop = &Drop{Stage: "coalesce", Reason: ReasonCoalesced,
					Detail: "held to coalesce with other finished turns until " + flushAt.Local().Format("15:04:05")}
			}
			e.decide(ctx, c, drop)
		}
	}
	return retract
}

// addActions puts the first MaxActions options on n as answer buttons with
// a nonce minted for them. The detector has already dropped pseudo-options
// ("Type something.", "Chat about this"); a free-text wait gets none.
func (e *Engine) addActions(ctx context.Context, t tracker.Transition, n *notification.Notification) {
	q := t.Reading.Question
	if !e.cfg.ReplyActions || e.cfg.Replies == nil || q == nil || len(q.Options) == 0 || q.AnswerStyle == agent.AnswerText {
		return
	}
	k := min(len(q.Options), MaxActions)
	idx := make([]int, k)
	for i := range k {
		idx[i] = i
		n.Actions = append(n.Actions, notification.Action{Label: q.Options[i], OptionIndex: i})
	}
	nonce, err := e.cfg.Replies.Mint(ctx, t.Ref, t.Incarnation, t.Fingerprint, idx)
	if err != nil {
		e.cfg.Logger.Error("cannot mint an answer nonce; sending without buttons", "pane", t.Ref.String(), "err", err)
		n.Actions = nil
		return
	}
	n.Nonce = nonce
}

func (e *Engine) forget(ctx context.Context, fingerprint string) {
	if e.cfg.Replies != nil {
		e.cfg.Replies.Forget(ctx, fingerprint)
	}
}

// Tick runs what is due at now: the coalesced finished push and
// escalations. The watcher calls it every poll.
func (e *Engine) Tick(ctx context.Context, now time.Time) {
	e.mu.Lock()
	var out []Candidate
	var drops []*Drop
	if c, _, ok := e.coalesce.flush(now); ok {
		out, drops = append(out, c), append(drops, nil)
	}
	for fp, esc := range e.escalate {
		if now.Before(esc.due) {
			continue
		}
		delete(e.escalate, fp)
		c := esc.c
		c.At = now
		c.N.Created = now
		c.N.Title = "Still waiting: " + c.N.Name
		c.N.Renotify, c.N.Replaces, c.N.Escalation = true, 0, true
		drop := run(e.escalated, &c)
		out, drops = append(out, c), append(drops, drop)
	}
	e.ceiling.forget(now)
	e.buzz.forget(now, 24*time.Hour)
	for ref, t := range e.errors {
		if now.Sub(t) >= ErrorInterval {
			delete(e.errors, ref)
		}
	}
	e.mu.Unlock()
	for i, c := range out {
		e.pass(ctx, c, drops[i])
	}
}

// Asked delivers an explicit notification: no dedup, no caps, no
// coalescing (DESIGN.md, "Asked"). It waits for every channel's answer.
func (e *Engine) Asked(ctx context.Context, n notification.Notification) deliver.Report {
	return e.cfg.Router.Route(ctx, n, true)
}

// Error sends attn's own failure that needs the person, at most once per
// ErrorInterval for each key (e.g. "device-failing:3", "store").
func (e *Engine) Error(ctx context.Context, key, title, body string) {
	now := e.cfg.Now()
	n := notification.Notification{Kind: notification.KindError, Title: title, Body: body,
		Tag: "error:" + key, Renotify: true, Urgency: "normal", TTL: time.Hour, Created: now}
	c := Candidate{N: n, At: now}
	e.mu.Lock()
	last, ok := e.errors[key]
	var drop *Drop
	if ok && now.Sub(last) < ErrorInterval {
		drop = &Drop{Stage: "errors", Reason: ReasonErrorRate, Age: now.Sub(last),
			Detail: "the same error was sent " + round(now.Sub(last)) + " ago"}
	} else {
		e.errors[key] = now
	}
	e.mu.Unlock()
	e.pass(ctx, c, drop)
}

func (e *Engine) candidate(o tracker.Observation, now time.Time, n notification.Notification) Candidate {
	return Candidate{N: n, Ref: o.Ref, Settings: e.cfg.Settings.For(o.Dir), At: now}
}

// pass routes c, or records why it was dropped. It reports false when c
// could not be handed on.
func (e *Engine) pass(ctx context.Context, c Candidate, drop *Drop) bool {
	if drop != nil {
		e.decide(ctx, c, drop)
		return true
	}
	return !e.cfg.Router.Route(ctx, c.N, false).QueueFull
}

// decide writes a pipeline drop to the decision log.
func (e *Engine) decide(ctx context.Context, c Candidate, d *Drop) {
	row := store.Decision{At: c.At, Kind: string(c.N.Kind), Host: c.Ref.Host, Pane: c.Ref.Pane, Name: c.N.Name,
		Fingerprint: c.N.Fingerprint, Stage: d.Stage, Outcome: store.DecisionSuppressed, Reason: d.Reason,
		Age: d.Age, Detail: d.Detail}
	if e.cfg.LogContent {
		row.Content = c.N.Title + "\n" + c.N.Body
	}
	if err := e.cfg.Log.AddDecision(ctx, row); err != nil {
		e.cfg.Logger.Error("cannot log decision", "err", err)
	}
	e.cfg.Logger.Info("not sent", "kind", c.N.Kind, "pane", c.Ref.String(), "stage", d.Stage, "reason", d.Reason, "detail", d.Detail)
}

// run passes c through stages, stopping at the first drop.
func run(stages []Stage, c *Candidate) *Drop {
	for _, s := range stages {
		if d := s.Apply(c); d != nil {
			return d
		}
	}
	return nil
}

// BlockedTTL is how long a push service may hold a blocked notification:
// a stale question has probably been answered elsewhere (DESIGN.md).
const BlockedTTL = 10 * time.Minute

// blockedNotification builds the notification for a blocked wait: titled
// with the agent's name; the body is what is asked, which CLI, on which
// host.
func blockedNotification(t tracker.Transition, now time.Time) notification.Notification {
	what := t.Reading.Headline
	if q := t.Reading.Question; q != nil && q.Prompt != "" {
		what = q.Prompt
	}
	if what == "" {
		what = "waiting for you"
	}
	cli := t.Reading.Agent
	if cli == "" {
		cli = "agent"
	}
	return notification.Notification{
		Kind:        notification.KindBlocked,
		Title:       t.Name,
		Name:        t.Name,
		Body:        fmt.Sprintf("%s\n%s on %s", what, cli, t.Ref.Host),
		Tag:         "block:" + t.Ref.String(),
		Renotify:    true,
		Host:        t.Ref.Host,
		Pane:        t.Ref.Pane,
		Agent:       t.Reading.Agent,
		Question:    t.Reading.Question,
		Fingerprint: t.Fingerprint,
		Urgency:     "high",
		TTL:         BlockedTTL,
		Created:     now,
	}
}

// round formats a duration for people: "2.1s", "40s", "5m0s".
func round(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d < time.Minute:
		return d.Round(time.Second).String()
	default:
		return d.Round(time.Second).String()
	}
}
