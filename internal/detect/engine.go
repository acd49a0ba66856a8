package detect

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
)

// Limits that keep the engine linear in the bottom of the screen, not in
// its scrollback.
const (
	menuSpan     = 60 // rows a menu may span, continuation rows included
	maxCont      = 6  // continuation rows under one option
	promptSpan   = 12 // rows above the options searched for the prompt
	headlineSpan = 40 // rows above the question searched for a headline
	composerSpan = 30 // bottom rows searched for the composer
	statusSpan   = 20 // rows above the composer searched for the status row
	maxWrap      = 6  // soft-wrapped rows joined into one prompt
)

// keyHintRe matches a generic footer row made of key hints: "Enter to
// select · ↑/↓ to navigate · Esc to cancel", "Press enter to confirm or
// esc to cancel", "shift+tab to approve with this feedback".
var keyHintRe = re(`(?i)^(?:press\s+)?(?:enter|return|esc|escape|tab|space|(?:shift|ctrl|alt|cmd|meta|option)\+\S+|[↑↓←→]+(?:/[↑↓←→]+)?)\s+to\s+\S`)

// trailer reports whether l may follow a live question: a blank row, a
// rule or border, a key-hint footer, or one of the agent's footers.
func (r *rules) trailer(l line) bool {
	return l.blank || l.rule || keyHintRe.MatchString(l.body()) || matchAny(r.footers, l.text)
}

// question finds the live question: a menu or tab row in the bottom
// block, followed by nothing but trailer rows. It returns the question
// and its headline.
func (r *rules) question(s *screen) (*agent.Question, string, bool) {
	bottom := len(s.lines) - 1
	for bottom >= 0 && r.trailer(s.lines[bottom]) {
		bottom--
	}
	if bottom < 0 {
		return nil, "", false
	}
	q := &agent.Question{}
	top := bottom
	if opts, sel, start, ok := r.menu(s, bottom); ok {
		q.Options, q.Selected, q.AnswerStyle, top = opts, sel, agent.AnswerMenu, start
	} else if labels, ok := r.tabRow(s.lines[bottom]); ok {
		q.Options, q.AnswerStyle = r.renderable(labels), agent.AnswerTabs
	} else {
		return nil, "", false
	}
	q.Prompt = r.findPrompt(s, top)
	headline := r.findHeadline(s, top)
	switch {
	case headline != "":
	case q.Prompt != "":
		headline = q.Prompt
	case len(q.Options) > 0:
		headline = strings.Join(q.Options, " / ")
	default:
		headline = defaultHeadline
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

// option is one numbered menu row.
type option struct {
	row      int // index in screen.lines
	num      int
	col      int // column of its number
	labelCol int // column where its label starts
	cursor   bool
	label    string
}

// isCursor reports whether c can be a menu cursor glyph: any single
// symbol (❯ › ● → ▶ > …), so a new glyph needs no new rule. Brackets,
// quotes and markdown bullets are text, not cursors.
func isCursor(c rune) bool {
	if c == utf8.RuneError || unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.IsSpace(c) || isVBar(c) {
		return false
	}
	return !strings.ContainsRune("([{<#|\"'`*-+_.,;:!?", c)
}

// parseOption parses "❯ 1. Yes" or "  2) No": an optional cursor glyph,
// a number, "." or ")", a space, a label.
func parseOption(l line) (option, bool) {
	t := l.body()
	col := l.indent
	var o option
	c, n := utf8.DecodeRuneInString(t)
	if c < '0' || c > '9' {
		if !isCursor(c) {
			return o, false
		}
		o.cursor = true
		t = t[n:]
		sp := len(t) - len(strings.TrimLeft(t, " "))
		t = t[sp:]
		col += 1 + sp
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		o.num = o.num*10 + int(t[i]-'0')
		i++
	}
	if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || t[i+1] != ' ' {
		return o, false
	}
	o.label = strings.TrimSpace(t[i+2:])
	o.col = col
	o.labelCol = l.width - utf8.RuneCountInString(o.label)
	return o, o.label != ""
}

// menu parses a numbered cursor menu whose last row (an option or a row
// of its description) is bottom. It walks up to option 1: numbers must
// fall by one, rows between options must be indented past the option's
// number (descriptions), at most one blank row in a row, no rule. It
// returns the renderable options, the cursor's row and the first
// option's row.
func (r *rules) menu(s *screen, bottom int) (opts []string, selected, start int, ok bool) {
	var rows []option // bottom-up
	blanks, cont, contMin := 0, 0, 0
	for i := bottom; i >= 0 && bottom-i < menuSpan; i-- {
		l := s.lines[i]
		if l.blank {
			if blanks++; blanks > 1 {
				return nil, 0, 0, false
			}
			continue
		}
		blanks = 0
		if l.rule {
			return nil, 0, 0, false
		}
		o, isOpt := parseOption(l)
		if !isOpt {
			if cont == 0 || l.indent < contMin {
				contMin = l.indent
			}
			if cont++; cont > maxCont {
				return nil, 0, 0, false
			}
			continue
		}
		if len(rows) > 0 && o.num != rows[len(rows)-1].num-1 {
			return nil, 0, 0, false
		}
		if cont > 0 && contMin <= o.col {
			return nil, 0, 0, false
		}
		cont = 0
		o.row = i
		rows = append(rows, o)
		if o.num == 1 {
			start = i
			break
		}
	}
	if len(rows) < 2 || rows[len(rows)-1].num != 1 {
		return nil, 0, 0, false
	}
	slices.Reverse(rows)
	cursors := 0
	labels := make([]string, len(rows))
	for i, o := range rows {
		if o.cursor {
			cursors++
			selected = i
		}
		labels[i] = s.wrappedLabel(o)
	}
	if cursors != 1 {
		return nil, 0, 0, false
	}
	return r.renderable(labels), selected, start, true
}

// wrappedLabel returns o's label with the rows the agent soft-wrapped it
// onto joined back: rows under it aligned with its label, each following
// a row so full that its first word could not have fit there. Other rows
// under an option (descriptions) are not part of it.
func (s *screen) wrappedLabel(o option) string {
	label := o.label
	prev := s.lines[o.row]
	for i := o.row + 1; i < len(s.lines) && i-o.row < maxWrap; i++ {
		l := s.lines[i]
		if l.blank || l.rule || l.indent != o.labelCol {
			break
		}
		if _, isOpt := parseOption(l); isOpt || prev.width+1+firstWordWidth(l.text) <= prev.avail-4 {
			break
		}
		label += " " + strings.TrimSpace(l.text)
		prev = l
	}
	return label
}

// renderable strips key hints from labels and drops pseudo-options and
// labels left empty.
func (r *rules) renderable(labels []string) []string {
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		l = stripHints(l)
		if l == "" || matchAny(r.pseudo, l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// stripHints removes trailing key hints: "No (esc)" → "No", "Yes,
// proceed (y)" → "Yes, proceed", "… session (shift+tab)" → "… session".
// Other parentheses ("(Recommended)") are part of the label.
func stripHints(label string) string {
	for {
		t := strings.TrimRight(label, " ")
		if !strings.HasSuffix(t, ")") {
			return t
		}
		open := strings.LastIndexByte(t, '(')
		if open < 0 || !isKeyHint(t[open+1:len(t)-1]) {
			return t
		}
		label = t[:open]
	}
}

// isKeyHint reports whether k names a key: one letter or digit, a named
// key, or a modifier chord.
func isKeyHint(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	switch k {
	case "esc", "escape", "enter", "return", "tab", "space", "backspace", "del", "delete":
		return true
	}
	if c, n := utf8.DecodeRuneInString(k); n > 0 && n == len(k) {
		return unicode.IsLetter(c) || unicode.IsDigit(c)
	}
	mod, key, ok := strings.Cut(k, "+")
	if !ok || key == "" || strings.ContainsAny(key, " ()") {
		return false
	}
	switch mod {
	case "shift", "ctrl", "control", "alt", "cmd", "meta", "opt", "option", "super":
		return true
	}
	return false
}

// tabRow parses a row made only of two or more bracketed choices, for
// an agent that draws them: "[ Allow once ]  [ Allow always ]  [ Reject ]".
// Which one is selected is drawn in colour only, lost in a plain capture,
// so the reading says 0: the first choice, where such a dialog opens.
func (r *rules) tabRow(l line) ([]string, bool) {
	if !r.tabs {
		return nil, false
	}
	var labels []string
	t := l.body()
	for t != "" {
		if t[0] != '[' {
			return nil, false
		}
		end := strings.IndexByte(t, ']')
		if end < 0 || strings.IndexByte(t[1:end], '[') >= 0 {
			return nil, false
		}
		labels = append(labels, strings.TrimSpace(t[1:end]))
		t = strings.TrimLeft(t[end+1:], " ")
	}
	return labels, len(labels) >= 2
}

// findPrompt returns the prompt of a question whose first option row is
// top: searched in the rows above it, up to a rule or promptSpan rows.
// The agent's prompt patterns come first, then the nearest row ending
// in "?", then the nearest row; soft-wrapped rows are joined back.
func (r *rules) findPrompt(s *screen, top int) string {
	end := top - 1 // exclusive lower bound of the search, moving up
	for end >= 0 && top-end <= promptSpan && !s.lines[end].rule {
		end--
	}
	prompt, at := "", -1
	for i := top - 1; i > end && at < 0 && len(r.prompt) > 0; i-- {
		if t, ok := findAny(r.prompt, s.lines[i].text); ok {
			prompt, at = t, i
		}
	}
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
		return ""
	}
	if prompt == "" {
		prompt = s.joinWrapped(at)
	}
	for i := top - 1; i > end && r.promptDetail != nil; i-- {
		if d, ok := find(r.promptDetail, s.lines[i].text); ok && i != at {
			prompt += ": " + d
			break
		}
	}
	return prompt
}

// joinWrapped returns row at joined with the rows above it that the
// agent soft-wrapped into it: same indent, and the row above is so full
// that the next word could not have fit on it.
func (s *screen) joinWrapped(at int) string {
	parts := []string{strings.TrimSpace(s.lines[at].text)}
	for i := at; i > 0 && len(parts) < maxWrap; i-- {
		prev, cur := s.lines[i-1], s.lines[i]
		if prev.blank || prev.rule || prev.indent != cur.indent {
			break
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
// question is about (the agent's headline patterns), stopping at a row
// matching headlineStop.
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
	for i := len(s.lines) - 1; i >= 0 && len(s.lines)-i <= composerSpan; i-- {
		l := s.lines[i]
		if l.blank || l.rule || !r.composer.MatchString(l.text) {
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

// isWorking reports whether the title or the status row says the agent
// is busy. The status row is the first unindented row above the
// composer (rows under a spinner, such as a to-do list, are indented),
// or any row below it; without a composer, one of the bottom rows.
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
	for i := comp + 1; i < len(s.lines); i++ {
		if l := s.lines[i]; !l.blank && !l.rule && matchAny(r.working, l.text) {
			return true
		}
	}
	for i := comp - 1; i >= 0 && comp-i <= statusSpan; i-- {
		l := s.lines[i]
		if l.blank || l.rule || l.indent > 0 {
			continue
		}
		return matchAny(r.working, l.text)
	}
	return false
}
