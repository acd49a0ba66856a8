package detect

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
)

// Limits that keep the engine linear in the bottom of the screen, not in
// its scrollback.
const (
	menuSpan     = 60 // rows a menu may span, continuation rows included
	maxCont      = 6  // continuation rows under one option
	promptSpan   = 12 // rows above the options searched for a generic prompt row
	headlineSpan = 40 // rows above the question searched for a headline or an agent's prompt row
	composerSpan = 30 // bottom rows searched for the composer
	statusSpan   = 20 // rows above the composer searched for the status row
	maxWrap      = 6  // soft-wrapped rows joined into one prompt
)

// keyHintRe matches a generic footer row made of key hints: "Enter to
// select · ↑/↓ to navigate · Esc to cancel", "Press enter to confirm or
// esc to cancel", "shift+tab to approve with this feedback".
var keyHintRe = re(`(?i)^(?:press\s+)?(?:enter|return|esc|escape|tab|space|(?:shift|ctrl|alt|cmd|meta|option)\+\S+|[↑↓←→]+(?:/[↑↓←→]+)?)\s+to\s+\S`)

// trailer reports whether l may follow a live question: a blank row, a
// separator, a key-hint footer, or one of the agent's footers.
func (r *rules) trailer(l line) bool {
	return l.blank || l.rule || keyHintRe.MatchString(l.body()) || matchAny(r.footers, l.text) ||
		r.cursorless != nil && r.cursorless.MatchString(l.text)
}

// question finds the live question: a letter prompt, a menu, a key menu
// or a tab row in the bottom block, followed by nothing but trailer
// rows. It returns the question and its headline.
func (r *rules) question(s *screen) (*agent.Question, string, bool) {
	bottom := len(s.lines) - 1
	footer := false // the cursorless-menu footer follows
	for bottom >= 0 && r.trailer(s.lines[bottom]) {
		footer = footer || r.cursorless != nil && r.cursorless.MatchString(s.lines[bottom].text)
		bottom--
	}
	if bottom < 0 {
		return nil, "", false
	}
	q := &agent.Question{}
	top := bottom
	var p prompt
	if lq, start, ok := r.letterQuestion(s, bottom); ok {
		q, top = lq, start
	} else {
		plain := false // a shape weak enough to need a prompt above it
		switch {
		case r.numberedMenu(s, bottom, footer, q, &top):
		case r.plainMenu && r.unnumberedMenu(s, bottom, q, &top):
			plain = true
		case r.keyMenu != nil && r.keyQuestion(s, bottom, q, &top):
		default:
			labels, bracketed, ok := r.tabRow(s.lines[bottom])
			if !ok {
				return nil, "", false
			}
			q.Options, q.AnswerStyle = r.renderable(labels), agent.AnswerTabs
			plain = !bracketed
		}
		p = r.findPrompt(s, top)
		if plain && !p.byPattern && !(q.AnswerStyle != agent.AnswerTabs && p.question) {
			return nil, "", false // an unnumbered list or a row of words, with nothing asking
		}
		q.Prompt = p.text
	}
	if len(q.Options) == 0 {
		return nil, "", false
	}
	headline := r.findHeadline(s, top)
	switch {
	case headline != "":
	case q.Prompt != "":
		headline = q.Prompt
	default:
		headline = strings.Join(q.Options, " / ")
	}
	return q, clip(headline), true
}

// defaultHeadline describes a wait about which the screen says nothing
// more.
const defaultHeadline = "waiting for an answer"

// maxHeadline is the longest headline, in runes: a one-line summary.
const maxHeadline = 120

// clip shortens s to maxHeadline runes, marking the cut with "…".
func clip(s string) string {
	if utf8.RuneCountInString(s) <= maxHeadline {
		return s
	}
	n := 0
	for i := range s {
		if n == maxHeadline-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// prompt is the prompt of a question as findPrompt found it.
type prompt struct {
	text      string
	byPattern bool // one of the agent's prompt patterns matched
	question  bool // the prompt row ends with "?"
}

// findPrompt returns the prompt of a question whose first option row is
// top, searched in the rows above it up to a separator: the agent's
// prompt patterns first (up to headlineSpan rows, past any body such as
// a diff), then the nearest row ending in "?" (up to promptSpan rows),
// then the nearest row. Soft-wrapped rows are joined back; a prompt
// ending in ":" ("Allow editing file:") takes its subject from the row
// under it; the agent's promptDetail row is appended after ": ".
func (r *rules) findPrompt(s *screen, top int) prompt {
	limit := func(span int) int { // exclusive lower bound of a search, moving up
		end := top - 1
		for end >= 0 && top-end <= span && !s.lines[end].rule {
			end--
		}
		return end
	}
	var p prompt
	at := -1
	for i, end := top-1, limit(headlineSpan); i > end && at < 0 && len(r.prompt) > 0; i-- {
		if t, ok := findAny(r.prompt, s.lines[i].text); ok {
			p.text, p.byPattern, at = t, true, i
		}
	}
	end := limit(promptSpan)
	for i := top - 1; i > end && at < 0; i-- {
		if strings.HasSuffix(s.lines[i].text, "?") {
			at = i
		}
	}
	for i := top - 1; i > end && at < 0; i-- {
		if !s.lines[i].blank {
			at = i
		}
	}
	if at < 0 {
		return p
	}
	if p.text == "" {
		p.text = s.joinWrapped(at)
	}
	p.question = strings.HasSuffix(p.text, "?")
	if strings.HasSuffix(p.text, ":") {
		for i := at + 1; i < top; i++ {
			if !s.lines[i].blank {
				p.text += " " + strings.TrimSpace(s.lines[i].text)
				break
			}
		}
	}
	if r.promptDetail != nil {
		for i := top - 1; i > end; i-- {
			if d, ok := find(r.promptDetail, s.lines[i].text); ok && i != at {
				p.text += ": " + d
				break
			}
		}
	}
	return p
}

// joinWrapped returns row at joined with the rows above it that the
// agent soft-wrapped into it: same indent, and the row above is so full
// that the next word could not have fit on it.
func (s *screen) joinWrapped(at int) string {
	parts := []string{strings.TrimSpace(s.lines[at].text)}
	for i := at; i > 0 && len(parts) < maxWrap; i-- {
		prev, cur := s.lines[i-1], s.lines[i]
		if prev.blank || prev.rule || prev.indent != cur.indent || strings.ContainsAny(prev.text[len(prev.text)-1:], ".!?:") {
			break // a sentence ended there
		}
		if prev.width+1+firstWordWidth(cur.text) <= prev.avail-4 {
			break // the word would have fit: a line of its own, not a wrap
		}
		parts = append(parts, strings.TrimSpace(prev.text))
	}
	slices.Reverse(parts)
	return strings.Join(parts, " ")
}

// findHeadline searches up from row top for a row naming what the
// question is about (the agent's headline patterns), stopping after a
// row matching headlineStop.
func (r *rules) findHeadline(s *screen, top int) string {
	if len(r.headline) == 0 {
		return ""
	}
	for i := top - 1; i >= 0 && top-i <= headlineSpan; i-- {
		l := s.lines[i]
		if l.blank || l.rule {
			continue
		}
		if h, ok := findAny(r.headline, l.text); ok {
			return h
		}
		if r.headlineStop != nil && r.headlineStop.MatchString(l.text) {
			break
		}
	}
	return ""
}

// wait reports a wait without a parsable question: the title says so
// (Codex's "Action Required") or a bottom row does. The headline is the
// agent's headline row, else the nearest row ending in "?", else the
// waiting row, else the title.
func (r *rules) wait(s *screen, title string) (string, bool) {
	blocked := r.titleBlocked != nil && r.titleBlocked.MatchString(title)
	hint := ""
	for i, n := len(s.lines)-1, 0; !blocked && i >= 0 && n < 3 && len(r.waiting) > 0; i-- {
		l := s.lines[i]
		if l.blank || l.rule {
			continue
		}
		n++
		if matchAny(r.waiting, l.text) {
			blocked, hint = true, strings.TrimSpace(l.text)
		}
	}
	if !blocked {
		return "", false
	}
	if h := r.findHeadline(s, len(s.lines)); h != "" {
		return clip(h), true
	}
	for i := len(s.lines) - 1; i >= 0 && len(s.lines)-i <= promptSpan; i-- {
		if strings.HasSuffix(s.lines[i].text, "?") {
			return clip(s.joinWrapped(i)), true
		}
	}
	if hint != "" {
		return clip(hint), true
	}
	if t := strings.TrimSpace(title); t != "" {
		return clip(t), true
	}
	return defaultHeadline, true
}

// findComposer returns the row of the agent's input line, searched up
// from the bottom, or -1.
func (r *rules) findComposer(s *screen) int {
	if r.composer == nil {
		return -1
	}
	if r.composerLast {
		if i := s.lastContent(); i >= 0 && r.composer.MatchString(s.lines[i].text) {
			return i
		}
		return -1
	}
	for i := len(s.lines) - 1; i >= 0 && len(s.lines)-i <= composerSpan; i-- {
		l := s.lines[i]
		if l.blank || !r.composer.MatchString(l.text) {
			continue
		}
		if _, isOpt := parseOption(l); !isOpt || !s.optionAt(i-1) && !s.optionAt(i+1) {
			return i // typed text may look like "❯ 1. fix it"; a menu row has siblings
		}
	}
	return -1
}

// optionAt reports whether row i exists and is a menu option.
func (s *screen) optionAt(i int) bool {
	if i < 0 || i >= len(s.lines) {
		return false
	}
	_, ok := parseOption(s.lines[i])
	return ok
}

// isWorking reports whether the title or a status row says the agent is
// busy. Status rows are the rows below the composer (and the composer
// row itself with composerStatus) and the rows above it that statusScan
// names; without a composer, one of the bottom rows.
func (r *rules) isWorking(s *screen, title string, comp int) bool {
	if r.titleWorking != nil && r.titleWorking.MatchString(title) {
		return true
	}
	if len(r.working) == 0 {
		return false
	}
	if comp < 0 {
		for i, n := len(s.lines)-1, 0; i >= 0 && n < 3; i-- {
			l := s.lines[i]
			if l.blank || l.rule {
				continue
			}
			n++
			if matchAny(r.working, l.text) {
				return true
			}
		}
		return false
	}
	from := comp + 1
	if r.composerStatus {
		from = comp
	}
	for i := from; i < len(s.lines); i++ {
		if l := s.lines[i]; !l.blank && matchAny(r.working, l.text) {
			return true
		}
	}
	for i, n := comp-1, 0; i >= 0 && comp-i <= statusSpan; i-- {
		l := s.lines[i]
		if l.blank || l.rule {
			continue
		}
		if r.statusScan == 0 {
			if l.indent > 0 {
				continue
			}
			return matchAny(r.working, l.text)
		}
		if matchAny(r.working, l.text) {
			return true
		}
		if n++; n >= r.statusScan {
			break
		}
	}
	return false
}
