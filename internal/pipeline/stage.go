// Package pipeline decides which transitions become notifications: a chain
// of small stages, each with one job and one reason code for what it drops
// (the shape of Alertmanager's notify pipeline). Blocked waits pass the
// mute, the runaway ceiling and the buzz interval; finished turns pass the
// mute and are coalesced; explicit notifications bypass every stage;
// attn's own errors go out at most once an hour each; a wait unanswered
// for long is escalated once. Every drop is a row in the decision log.
package pipeline

import (
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/settings"
)

// Candidate is a notification on its way through the stages.
type Candidate struct {
	N        notification.Notification
	Ref      agent.PaneRef
	Settings settings.Settings
	At       time.Time
}

// Drop says why a stage stopped a candidate.
type Drop struct {
	Stage  string
	Reason string // a stable code, e.g. "ceiling"
	Detail string // plain words for the log
	Age    time.Duration
}

// Stage is one decision. Apply returns nil to pass c on (it may change c,
// e.g. make it silent), or why c is dropped. A stage that passes c counts
// it as sent: stages that keep history come last in a chain.
type Stage interface {
	Name() string
	Apply(c *Candidate) *Drop
}

// Reason codes, stable for the decision log and `attn why`.
const (
	ReasonAnsweredAtTerminal = "answered-at-terminal"
	ReasonMuted              = "muted"
	ReasonProjectMuted       = "project-muted"
	ReasonProjectKinds       = "project-kinds"
	ReasonCeiling            = "ceiling"
	ReasonCoalesced          = "coalesced"
	ReasonErrorRate          = "error-rate"
	ReasonQueueFull          = "queue-full"
	ReasonHookContradicted   = "hook-contradicted"
)
