// Package notification defines what attn sends — one Notification, whatever
// the channel — and its Web Push payload, cut to fit one aes128gcm record.
package notification

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
)

// Kind says what a notification is about (DESIGN.md, "Words").
type Kind string

// The notification kinds.
const (
	KindBlocked  Kind = "blocked"  // an agent waits on the person
	KindAsked    Kind = "asked"    // someone called notify on purpose
	KindFinished Kind = "finished" // a turn ended
	KindError    Kind = "error"    // attn's own failure that needs the person
	KindTest     Kind = "test"     // a test notification
)

// Notification is one message to the person, before any channel adapts it.
type Notification struct {
	Kind  Kind
	Title string
	Body  string
	// Tag groups notifications on a device: a new one with the same tag
	// replaces the one shown ("block:<host>/<pane>" for blocked). Empty for
	// notifications that never collapse.
	Tag string
	// Renotify asks the device to alert again when replacing a tagged one.
	Renotify bool
	Host     string
	Pane     string
	Agent    string // which CLI, e.g. "claude"; "" when none
	Question *agent.Question
	// Fingerprint names the blocking occurrence (blocked only).
	Fingerprint string
	// Urgency is the RFC 8030 §5.3 urgency: "high" for blocked.
	Urgency string
	// TTL is how long a push service may hold it for an offline device.
	TTL time.Duration
	// Created is when attn decided to send it.
	Created time.Time
	// Name is the agent's display name ("" when it names no agent).
	Name string
	// Replaces is how long ago the notification this one silently replaces
	// was shown; 0 when it replaces none. For the decision log only.
	Replaces time.Duration
	// Escalation marks a re-buzz of a wait still unanswered.
	Escalation bool
	// Nonce is the one-shot token an answer from this notification must
	// carry (blocked with renderable options only; "" otherwise). Channels
	// that carry buttons put it in each action.
	Nonce string
	// Actions are the answer buttons, at most two, in screen order: each
	// names the option it answers by its index in Question.Options.
	Actions []Action
}

// Action is one answer button on a notification.
type Action struct {
	Label       string `json:"label"`
	OptionIndex int    `json:"option_index"`
}

// Topic returns an RFC 8030 §5.4 Topic for the tag: 32 base64url
// characters (a hash of the tag), so an undelivered older message with the
// same tag is replaced at the push service. "" when there is no tag.
func (n *Notification) Topic() string {
	if n.Tag == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(n.Tag))
	return base64.RawURLEncoding.EncodeToString(sum[:24]) // 24 bytes → 32 chars
}

// URL is the web app path that shows this notification's pane, or "/"
// when it names no pane. A free-text wait opens the card with its composer
// focused (?compose=1).
func (n *Notification) URL() string {
	if n.Pane == "" {
		return "/"
	}
	u := "/panes/" + url.PathEscape(n.Host) + "/" + url.PathEscape(n.Pane)
	if n.Kind == KindBlocked && n.Question != nil && n.Question.AnswerStyle == agent.AnswerText {
		u += "?compose=1"
	}
	return u
}

// payload is the JSON a service worker receives.
type payload struct {
	Title       string          `json:"title"`
	Body        string          `json:"body"`
	Kind        Kind            `json:"kind"`
	Tag         string          `json:"tag,omitempty"`
	URL         string          `json:"url"`
	Host        string          `json:"host,omitempty"`
	Pane        string          `json:"pane,omitempty"`
	Agent       string          `json:"agent,omitempty"`
	Renotify    bool            `json:"renotify"`
	Fingerprint string          `json:"fingerprint,omitempty"`
	Question    *agent.Question `json:"question,omitempty"`
	Nonce       string          `json:"nonce,omitempty"`
	Actions     []Action        `json:"actions,omitempty"`
	Silent      bool            `json:"silent,omitempty"` // a replacement: show without alerting
	Timestamp   int64           `json:"ts"`               // Unix milliseconds
}

// CutMarker ends text that was cut to fit.
const CutMarker = "…"

// Payload returns the JSON payload, at most limit bytes. When the whole
// notification is larger it drops the question's options, then the
// question, then cuts the body, then the title, each ending in CutMarker: text is cut, a send is
// never failed for length. limit below 512 is an error: no useful
// notification fits.
func (n *Notification) Payload(limit int) ([]byte, error) {
	if limit < 512 {
		return nil, fmt.Errorf("payload limit %d bytes is below the 512 a notification needs", limit)
	}
	p := payload{
		Title: n.Title, Body: n.Body, Kind: n.Kind, Tag: n.Tag, URL: n.URL(),
		Host: n.Host, Pane: n.Pane, Agent: n.Agent, Renotify: n.Renotify,
		Fingerprint: n.Fingerprint, Question: n.Question, Nonce: n.Nonce, Actions: n.Actions,
		Silent: n.Kind == KindBlocked && !n.Renotify, Timestamp: n.Created.UnixMilli(),
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("encode payload: %w", err)
	}
	if len(b) <= limit {
		return b, nil
	}
	if p.Question != nil {
		q := *p.Question
		q.Options = nil
		p.Question = &q
		if b, _ = json.Marshal(p); len(b) <= limit {
			return b, nil
		}
		p.Question = nil // the body says what is asked
		if b, _ = json.Marshal(p); len(b) <= limit {
			return b, nil
		}
	}
	// Cut the body, then the title: the longest prefix that fits, found by
	// binary search since JSON escaping makes a byte of text cost 1 to 6.
	for _, field := range []*string{&p.Body, &p.Title} {
		full := *field
		*field = ""
		if b, _ = json.Marshal(p); len(b) > limit {
			continue // even empty it does not fit: cut the next field too
		}
		lo, hi := 0, len(full) // invariant: a cut at lo fits
		for lo < hi {
			mid := (lo + hi + 1) / 2
			*field = cut(full, mid)
			if b, _ = json.Marshal(p); len(b) <= limit {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		*field = cut(full, lo)
		b, _ = json.Marshal(p)
		return b, nil
	}
	return nil, fmt.Errorf("payload is %d bytes with title and body empty, over the %d limit", len(b), limit)
}

// cut returns the first n bytes of s, backed off to a rune boundary, with
// CutMarker appended; "" when n is 0.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for n < len(s) && n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + CutMarker
}
