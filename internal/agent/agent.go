// Package agent holds attn's core vocabulary: hosts, panes, agent status,
// the question a blocked agent asks, and the fingerprint that names one
// blocking occurrence (DESIGN.md, "Words").
package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// Status is what an agent in a pane is doing, as the tracker sees it.
type Status string

// The agent statuses (DESIGN.md, "Words").
const (
	StatusWorking Status = "working" // busy; needs nobody
	StatusBlocked Status = "blocked" // waits on the person
	StatusIdle    Status = "idle"    // at rest, composer empty
	StatusDone    Status = "done"    // idle and not yet seen
	StatusUnknown Status = "unknown" // no agent recognised in the pane
)

// AnswerStyle says how a question is answered at the terminal.
type AnswerStyle string

// The answer styles a classifier can report.
const (
	AnswerMenu   AnswerStyle = "menu"   // a cursor list: move to a row, press Enter
	AnswerTabs   AnswerStyle = "tabs"   // a tab row: left/right, then Enter
	AnswerLetter AnswerStyle = "letter" // a typed letter, e.g. y/n
	AnswerText   AnswerStyle = "text"   // free text typed into a composer
)

// Question is what a blocked agent asks. Options are the renderable
// choices in screen order, without their numbers, hints such as "(esc)",
// or pseudo-options such as "Type something."; Selected is the index of
// the row the cursor is on (0 when there is no cursor).
type Question struct {
	Prompt      string      `json:"prompt"`
	Options     []string    `json:"options"`
	AnswerStyle AnswerStyle `json:"answer_style"`
	Selected    int         `json:"selected"`
}

// Reading is what a classifier makes of one pane's screen and title:
// which agent CLI runs there ("" for none), its status, and for a
// blocked agent the question (nil when the wait has no structured
// question, in which case Headline describes it).
type Reading struct {
	Agent    string    `json:"agent"`
	Status   Status    `json:"status"`
	Question *Question `json:"question,omitempty"`
	// Headline is a one-line summary of the wait, used when Question is
	// nil or has no prompt. Not part of the fixtures' shape.
	Headline string `json:"headline,omitempty"`
}

// PaneRef names one pane on one host, e.g. {Host: "local", Pane: "%12"}.
type PaneRef struct {
	Host string `json:"host"`
	Pane string `json:"pane"`
}

// String returns "host/pane".
func (r PaneRef) String() string { return r.Host + "/" + r.Pane }

// Fingerprint is the hex SHA-256 of (host, pane, incarnation, answer
// contract) — or of the headline for a question-less wait. It names one
// blocking occurrence: the same question in the same process is the same
// fingerprint however often it is redrawn, and a changed option list,
// answer style or process is a new one (seed 001, "Once per question").
func Fingerprint(ref PaneRef, incarnation string, q *Question, headline string) string {
	h := sha256.New()
	field := func(s string) {
		// Length-prefixed fields: no two tuples hash alike by concatenation.
		var n [8]byte
		l := uint64(len(s))
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write([]byte(s))
	}
	field(ref.Host)
	field(ref.Pane)
	field(incarnation)
	if q != nil && q.Prompt != "" {
		field("q")
		field(q.Prompt)
		field(string(q.AnswerStyle))
		field(strconv.Itoa(len(q.Options)))
		for _, o := range q.Options {
			field(o)
		}
	} else {
		field("h")
		field(headline)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
