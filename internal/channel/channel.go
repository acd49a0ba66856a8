// Package channel is attn's contract for notification channels beyond Web
// Push — ntfy, Telegram, Pushover, Gotify, FCM, webhook, desktop — and the
// machinery every one of them shares (issue 7):
//
//   - Channel, the one interface: a channel declares its Capabilities and
//     sends a Message, answering with a Result the router logs (delivered,
//     failed with detail, gone, retry after a delay) and a message
//     reference to clear or edit it later.
//   - Adapt turns a notification.Notification into what a channel can
//     carry: text cut to its limits, buttons dropped where it has none,
//     priority by kind, a click link to the pane's card.
//   - Dispatcher delivers to the configured channels off the watcher's
//     path: one bounded queue and worker per channel (a slow or failing
//     channel never delays another), a timeout per attempt, at most 3
//     attempts with backoff honoring Retry-After, nothing sent after its
//     TTL, each outcome recorded on the channel and in the decision log,
//     and a channel failing for long reported once an hour.
//   - HTTP helpers that read and close every answer, never put a secret in
//     an error, and strip control characters from header values.
//
// The packages under it implement one channel each; channeltest holds
// fakes of their services that follow each published API, error shapes
// included.
package channel

import (
	"context"
	"errors"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/notification"
)

// Channel is one way to reach a person. Implementations are safe for
// concurrent use.
type Channel interface {
	// Kind names the channel type: "ntfy", "telegram", "pushover",
	// "gotify", "fcm", "webhook" or "desktop".
	Kind() string
	// Capabilities says what the channel can carry; Adapt shapes every
	// Message to it.
	Capabilities() Capabilities
	// Send makes one attempt to deliver m within ctx's deadline. It never
	// retries itself: it says whether a retry may help (StatusRetry, with
	// RetryAfter when the service said how long to wait). Details never
	// contain a secret.
	Send(ctx context.Context, m Message) Result
}

// Clearer is implemented by channels that can take back or edit a shown
// message when its wait clears (ntfy sequence clear, Telegram edit, FCM
// dismiss, Pushover receipt cancel). ref is the Result.Ref Send returned.
type Clearer interface {
	Clear(ctx context.Context, ref string) Result
}

// Runner is implemented by two-way channels that listen for replies
// (Telegram's getUpdates long poll). Run serves until ctx ends.
type Runner interface {
	Run(ctx context.Context) error
}

// Answerer takes an answer given from a notification: the nonce it
// carried and the option chosen (its index in the question's options),
// from surface ("telegram", "ntfy", …). It returns what happened in plain
// words ("applied", "refused: the question changed") or an error when it
// could not be judged at all. The reply service implements it.
type Answerer interface {
	Answer(ctx context.Context, nonce string, optionIndex int, surface string) (outcome string, err error)
}

// ErrAnswersOff is the outcome shown when no Answerer is wired.
var ErrAnswersOff = errors.New("answers are not enabled")

// Answer calls a (which may be nil: answers are then refused with
// ErrAnswersOff's words).
func Answer(ctx context.Context, a Answerer, nonce string, optionIndex int, surface string) (string, error) {
	if a == nil {
		return "", ErrAnswersOff
	}
	return a.Answer(ctx, nonce, optionIndex, surface)
}

// Unit is how a channel measures its text limits.
type Unit int

// Text length units.
const (
	Bytes Unit = iota // UTF-8 bytes (ntfy)
	Runes             // Unicode code points (Pushover, FCM)
	UTF16             // UTF-16 code units (Telegram)
)

// Capabilities says what a channel can carry.
type Capabilities struct {
	Title    bool // shows a title apart from the body
	Body     bool
	Click    bool // opens a link when the notification is tapped
	Actions  int  // how many answer buttons it shows (0: none)
	Replace  bool // a newer message with the same tag replaces the shown one
	Clear    bool // a shown message can be cleared or edited (implements Clearer)
	Priority bool // carries a priority or urgency
	E2E      bool // end-to-end encrypted between attn and the device
	// ActionsNeedPublicURL: its buttons call attn's answer endpoint from
	// the device itself (ntfy http actions), so they need --public-url.
	ActionsNeedPublicURL bool
	// MaxTitle and MaxBody bound the text in Unit; 0 means no limit.
	MaxTitle, MaxBody int
	// MaxLabel bounds a button label in Unit; 0 means no limit.
	MaxLabel int
	Unit     Unit
}

// Message is a notification adapted to one channel's capabilities.
type Message struct {
	Kind  notification.Kind
	Title string // never empty: "attn" when the notification had none
	Body  string
	// Click is the absolute URL of the pane's card in attn's web app, ""
	// when the channel has no click link or attn has no public URL.
	Click string
	// Actions are the answer buttons this channel shows (none when it
	// cannot, or the notification offers none).
	Actions []Action
	// Nonce is the one-shot token every answer from this message carries
	// ("" without actions).
	Nonce string
	// Priority is 1 (min) to 5 (max), ntfy's scale: see PriorityFor.
	Priority int
	// Tag names what this message replaces ("block:<host>/<pane>"); ""
	// when it replaces nothing.
	Tag string
	// Silent asks for no sound: a silent replacement of a shown question.
	Silent bool
	// Escalation marks a re-buzz of a wait still unanswered.
	Escalation bool
	// Created is when attn decided to send it; Expires is Created + TTL:
	// nothing is sent after it.
	Created, Expires time.Time
	// Fingerprint, Host, Pane, Name, Agent and Question are the
	// notification's, for channels that carry structured data.
	Fingerprint, Host, Pane, Name, Agent string
	Question                             *agent.Question
	// CardPath is the web app path of the pane's card ("/panes/h/%3").
	CardPath string
	// Dropped says what adaptation removed, for the decision log
	// ("answer buttons: no --public-url").
	Dropped []string
}

// Action is one answer button.
type Action struct {
	Label       string
	OptionIndex int
	// AnswerURL is attn's answer endpoint (<public-url>/api/push/answer),
	// "" without a public URL.
	AnswerURL string
}

// Status is what became of one attempt.
type Status string

// Statuses, in the words the decision log and `attn channel list` show.
const (
	StatusDelivered Status = "delivered" // the service took it (for ntfy: accepted by the server, not seen)
	StatusFailed    Status = "failed"    // refused for good: recorded, not retried
	StatusRetry     Status = "retry"     // may work later: network, timeout, 429, 5xx
	StatusGone      Status = "gone"      // the destination no longer exists (FCM UNREGISTERED, webhook 410)
	StatusSkipped   Status = "skipped"   // the channel cannot act here (no notify-send on this machine)
	StatusExpired   Status = "expired"   // older than its TTL: not sent
)

// Result is a channel's answer to one attempt.
type Result struct {
	Status Status
	// Detail says why, in words a person can act on; never a secret.
	Detail string
	// RetryAfter is how long the service asked to wait (429 Retry-After,
	// Telegram's parameters.retry_after); 0 when it did not say.
	RetryAfter time.Duration
	// Ref identifies the shown message for Clearer.Clear ("" when there is
	// nothing to clear).
	Ref string
}

// Delivered returns a delivered Result with ref.
func Delivered(ref string) Result { return Result{Status: StatusDelivered, Ref: ref} }

// Failed returns a failed Result.
func Failed(detail string) Result { return Result{Status: StatusFailed, Detail: detail} }

// Retry returns a retryable Result, waiting after when it is not 0.
func Retry(detail string, after time.Duration) Result {
	return Result{Status: StatusRetry, Detail: detail, RetryAfter: after}
}

// State is one channel's persisted key/value state: the Telegram update
// offset, whether an ntfy server takes sequence ids. Implementations are
// safe for concurrent use.
type State interface {
	// Get returns the value for key, "" when unset.
	Get(ctx context.Context, key string) (string, error)
	Set(ctx context.Context, key, value string) error
}
