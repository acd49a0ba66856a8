// Package explain turns decision-log rows into plain words: the answer to
// "why did / didn't I get a notification?" that `attn why` prints.
package explain

import (
	"fmt"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/store"
)

// kindPlural names a kind of notification in a sentence.
var kindPlural = map[string]string{
	"blocked":  "blocked agents",
	"asked":    "explicit notifications",
	"finished": "finished turns",
	"error":    "attn's error notices",
	"test":     "test notifications",
}

// Sentence explains one decision, e.g. "not sent: answered at the terminal
// 2.1s after it appeared", "sent silently to 'phone': replaced the
// question shown 40s earlier", "not sent to 'phone': finished turns are
// off for this device".
func Sentence(d store.Decision) string {
	to := ""
	if d.Device != "" {
		to = fmt.Sprintf(" to '%s'", d.Device)
	} else if d.DeviceID != 0 {
		to = fmt.Sprintf(" to device %d", d.DeviceID)
	}
	switch d.Outcome {
	case store.DecisionSent:
		switch {
		case d.Channel == "inapp":
			return "shown in the open window on" + strings.TrimPrefix(to, " to") + " instead of a push"
		case d.Silent && d.Age > 0:
			return fmt.Sprintf("sent silently%s: replaced the question shown %s earlier", to, Duration(d.Age))
		case d.Silent:
			return "sent silently" + to
		}
		return "sent" + to
	case store.DecisionFailed:
		if d.Reason == "gone" {
			return fmt.Sprintf("not delivered%s: %s", to, d.Detail)
		}
		return fmt.Sprintf("failed%s (%s): %s", to, d.Reason, d.Detail)
	}
	switch d.Reason {
	case "answered-at-terminal":
		return fmt.Sprintf("not sent: answered at the terminal %s after it appeared", Duration(d.Age))
	case "kind-off":
		k := kindPlural[d.Kind]
		if k == "" {
			k = d.Kind
		}
		return fmt.Sprintf("not sent%s: %s are off for this device", to, k)
	case "focused":
		return fmt.Sprintf("not sent%s: its window is showing this pane", to)
	case "ceiling":
		return "not sent: runaway ceiling, " + d.Detail
	case "muted":
		return "not sent: the pane is muted " + d.Detail
	case "project-muted", "project-kinds", "hook-contradicted":
		return "not sent: " + d.Detail
	case "coalesced":
		return "held: " + d.Detail
	case "error-rate":
		return "not sent: " + d.Detail
	case "expired-at-restart":
		return fmt.Sprintf("not sent%s: %s", to, d.Detail)
	case "no-device":
		return "not sent: no device is registered"
	}
	if d.Detail != "" {
		return fmt.Sprintf("not sent%s (%s): %s", to, d.Reason, d.Detail)
	}
	return fmt.Sprintf("not sent%s (%s)", to, d.Reason)
}

// Duration formats a duration for people: "2.1s", "40s", "5m0s".
func Duration(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Lines renders rows (newest first, as the store returns them) oldest
// first, one per line: "15:04:05  blocked   api  sent to 'phone'". loc is
// the time zone to show.
func Lines(rows []store.Decision, loc *time.Location) []string {
	out := make([]string, 0, len(rows))
	for i := len(rows) - 1; i >= 0; i-- {
		d := rows[i]
		who := d.Name
		if who == "" && d.Pane != "" {
			who = d.Host + "/" + d.Pane
		}
		if who != "" {
			who += "  "
		}
		out = append(out, fmt.Sprintf("%s  %-8s  %s%s", d.At.In(loc).Format("15:04:05"), d.Kind, who, Sentence(d)))
	}
	return out
}
