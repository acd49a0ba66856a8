package channel

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/notification"
)

// AnswerPath is attn's answer endpoint, relative to its public URL: a POST
// of {"nonce","option_index"} (DESIGN.md, "Replies").
const AnswerPath = "/api/push/answer"

// DefaultTTL is the lifetime of a notification that names none.
const DefaultTTL = time.Hour

// Adapt turns n into what a channel with capabilities c can carry.
// publicURL is attn's public base URL (--public-url, no trailing slash);
// without it there is no click link and no button that calls attn from
// the device. Text is cut to the channel's limits with
// notification.CutMarker, never refused for length.
func Adapt(n notification.Notification, c Capabilities, publicURL string) Message {
	publicURL = strings.TrimRight(publicURL, "/")
	ttl := n.TTL
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	title := CleanLine(n.Title)
	if title == "" {
		title = "attn"
	}
	m := Message{
		Kind: n.Kind, Title: Clip(title, c.MaxTitle, c.Unit), Body: Clip(CleanText(n.Body), c.MaxBody, c.Unit),
		Priority: PriorityFor(n), Tag: n.Tag, Silent: n.Kind == notification.KindBlocked && !n.Renotify,
		Escalation: n.Escalation, Created: n.Created, Expires: n.Created.Add(ttl),
		Fingerprint: n.Fingerprint, Host: n.Host, Pane: n.Pane, Name: n.Name, Agent: n.Agent,
		Question: n.Question, CardPath: n.URL(),
	}
	if c.Click && publicURL != "" {
		m.Click = publicURL + n.URL()
	}
	if n.Nonce == "" || len(n.Actions) == 0 {
		return m
	}
	switch {
	case c.Actions == 0:
		m.Dropped = append(m.Dropped, "answer buttons: this channel has none")
	case c.ActionsNeedPublicURL && publicURL == "":
		m.Dropped = append(m.Dropped, "answer buttons: set --public-url so the device can reach attn")
	default:
		acts := n.Actions
		if len(acts) > c.Actions {
			m.Dropped = append(m.Dropped, fmt.Sprintf("answer buttons: %d of %d (the channel shows at most %d)", len(acts)-c.Actions, len(acts), c.Actions))
			acts = acts[:c.Actions]
		}
		for _, a := range acts {
			act := Action{Label: Clip(CleanLine(a.Label), c.MaxLabel, c.Unit), OptionIndex: a.OptionIndex}
			if publicURL != "" {
				act.AnswerURL = publicURL + AnswerPath
			}
			m.Actions = append(m.Actions, act)
		}
		m.Nonce = n.Nonce
	}
	return m
}

// PriorityFor is a notification's priority on ntfy's 1–5 scale, which
// each channel maps to its own: an escalation 5; blocked and asked 4 (a
// person is needed: heads-up with sound); error and test 3; finished 2
// (no sound).
func PriorityFor(n notification.Notification) int {
	switch {
	case n.Escalation:
		return 5
	case n.Kind == notification.KindBlocked || n.Kind == notification.KindAsked:
		return 4
	case n.Kind == notification.KindFinished:
		return 2
	default:
		return 3
	}
}

// Length measures s in unit.
func Length(s string, unit Unit) int {
	switch unit {
	case Runes:
		return utf8.RuneCountInString(s)
	case UTF16:
		n := 0
		for _, r := range s {
			n += utf16.RuneLen(r)
		}
		return n
	default:
		return len(s)
	}
}

// Clip cuts s to at most limit in unit, ending in notification.CutMarker
// when cut, never inside a rune; limit 0 means no limit.
func Clip(s string, limit int, unit Unit) string {
	if limit <= 0 || Length(s, unit) <= limit {
		return s
	}
	budget := limit - Length(notification.CutMarker, unit)
	if budget <= 0 {
		return ""
	}
	used, end := 0, 0
	for i, r := range s {
		var w int
		switch unit {
		case Runes:
			w = 1
		case UTF16:
			w = utf16.RuneLen(r)
		default:
			w = utf8.RuneLen(r)
		}
		if used+w > budget {
			break
		}
		used += w
		end = i + utf8.RuneLen(r)
	}
	return s[:end] + notification.CutMarker
}

// CleanLine returns s on one line: control characters (newlines, tabs,
// escapes from a terminal screen) become spaces, runs of space collapse,
// and the ends are trimmed.
func CleanLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// CleanText drops control characters from s except newlines and tabs, and
// trims it.
func CleanText(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s))
}

// HeaderValue makes s safe as an HTTP header value: control characters
// (CR and LF above all: no header injection from screen text) become
// spaces.
func HeaderValue(s string) string { return CleanLine(s) }
