package detect

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
)

// The shapes of a question's choices. Each parser reads the rows ending
// at bottom (the lowest row that is not a trailer), fills q and the row
// where the shape starts, and reports whether the shape is there.

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

// isHollow reports whether c marks a choice that is not selected: an
// empty radio button or box (Amp's "○ Deny with feedback").
func isHollow(c rune) bool {
	return strings.ContainsRune("○◯◌☐□◇◦", c)
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

// numberedMenu parses a numbered cursor menu whose last row (an option
// or a row of its description) is bottom. It walks up to option 1:
// numbers must fall by one, rows between options must be indented past
// the option's number (descriptions), at most one blank row in a row, no
// separator. Exactly one row carries a cursor, or none when the agent
// draws cursorless menus and their footer follows (footer).
func (r *rules) numberedMenu(s *screen, bottom int, footer bool, q *agent.Question, top *int) bool {
	var rows []option // bottom-up
	blanks, cont, contMin, start := 0, 0, 0, 0
	for i := bottom; i >= 0 && bottom-i < menuSpan; i-- {
		l := s.lines[i]
		if l.blank {
			if blanks++; blanks > 1 {
				return false
			}
			continue
		}
		blanks = 0
		if l.rule {
			return false
		}
		o, isOpt := parseOption(l)
		if !isOpt {
			if cont == 0 || l.indent < contMin {
				contMin = l.indent
			}
			if cont++; cont > maxCont {
				return false
			}
			continue
		}
		if len(rows) > 0 && o.num != rows[len(rows)-1].num-1 {
			return false
		}
		if cont > 0 && contMin <= o.col {
			return false
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
		return false
	}
	slices.Reverse(rows)
	cursors, selected := 0, 0
	labels := make([]string, len(rows))
	for i, o := range rows {
		if o.cursor {
			cursors++
			selected = i
		}
		labels[i] = s.wrappedLabel(o)
	}
	if cursors != 1 && !(cursors == 0 && footer) {
		return false
	}
	q.Options, q.Selected, q.AnswerStyle, *top = r.renderable(labels), selected, agent.AnswerMenu, start
	return true
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

// plainRow is one row of an unnumbered menu: marker glyphs, a label.
type plainRow struct {
	marks    string // the glyphs before the label, spaces dropped
	selected bool   // a mark is a cursor, not a hollow marker
	labelCol int
	label    string
}

// parsePlainRow parses "→ Run (once) (y)", "Skip (esc or n)", "▸●
// Approve [Alt+1]", "○ Deny with feedback": up to three marker glyphs,
// then a label starting with a letter.
func parsePlainRow(l line) (plainRow, bool) {
	var p plainRow
	t := l.body()
	col := l.indent
	var marks strings.Builder
	for k := 0; k < 3; k++ {
		c, n := utf8.DecodeRuneInString(t)
		if !isCursor(c) && !isHollow(c) {
			break
		}
		marks.WriteRune(c)
		p.selected = p.selected || !isHollow(c)
		t = t[n:]
		sp := len(t) - len(strings.TrimLeft(t, " "))
		t = t[sp:]
		col += 1 + sp
	}
	c, _ := utf8.DecodeRuneInString(t)
	if !unicode.IsLetter(c) {
		return p, false
	}
	p.marks, p.labelCol, p.label = marks.String(), col, strings.TrimSpace(t)
	return p, true
}

// unnumberedMenu parses a menu without numbers ending at bottom: rows in
// a row, one label column, exactly one of them selected by a cursor
// glyph and the others marked alike (by nothing, or by one hollow
// glyph). The caller requires a prompt above it.
func (r *rules) unnumberedMenu(s *screen, bottom int, q *agent.Question, top *int) bool {
	var rows []plainRow // bottom-up
	start := bottom
	for i := bottom; i >= 0 && bottom-i < menuSpan; i-- {
		l := s.lines[i]
		if l.blank || l.rule {
			break
		}
		p, ok := parsePlainRow(l)
		if !ok || len(rows) > 0 && p.labelCol != rows[0].labelCol {
			break
		}
		rows = append(rows, p)
		start = i
	}
	if len(rows) < 2 {
		return false
	}
	slices.Reverse(rows)
	selected, n, unmarked := 0, 0, ""
	labels := make([]string, len(rows))
	for i, p := range rows {
		labels[i] = p.label
		if p.selected {
			selected = i
			n++
			continue
		}
		if unmarked == "" {
			unmarked = p.marks
		}
		if p.marks != unmarked {
			return false
		}
	}
	if n != 1 {
		return false
	}
	q.Options, q.Selected, q.AnswerStyle, *top = r.renderable(labels), selected, agent.AnswerMenu, start
	return true
}

// keyQuestion parses a menu of rows answered by a key, ending at bottom
// ("[a] Trust this workspace" / "[q] Quit"): a letter question.
func (r *rules) keyQuestion(s *screen, bottom int, q *agent.Question, top *int) bool {
	var labels []string // bottom-up
	start := bottom
	for i := bottom; i >= 0 && bottom-i < menuSpan; i-- {
		m := r.keyMenu.FindStringSubmatch(s.lines[i].body())
		if m == nil || len(m) < 3 {
			break
		}
		labels = append(labels, m[2])
		start = i
	}
	if len(labels) < 2 {
		return false
	}
	slices.Reverse(labels)
	q.Options, q.Selected, q.AnswerStyle, *top = r.renderable(labels), 0, agent.AnswerLetter, start
	return true
}

// letterChoiceRe matches one choice of a letter prompt: "(Y)es", "(S)kip
// all", "(D)on't ask again".
var letterChoiceRe = re(`^\(([A-Za-z])\)(.*)$`)

// letterQuestion parses a one-row letter prompt ending at bottom
// (Aider's "Add file to the chat? (Y)es/(N)o/(A)ll [Yes]:"), joining rows
// the terminal hard-wrapped it onto. The options are the choices' words;
// Selected is the default's, which Enter picks.
func (r *rules) letterQuestion(s *screen, bottom int) (*agent.Question, int, bool) {
	if r.letterPrompt == nil {
		return nil, 0, false
	}
	text := strings.TrimSpace(s.lines[bottom].text)
	for top := bottom; ; top-- {
		if m := r.letterPrompt.FindStringSubmatch(text); len(m) >= 3 {
			q := &agent.Question{Prompt: strings.TrimSpace(m[1]), AnswerStyle: agent.AnswerLetter}
			for c := range strings.SplitSeq(m[2], "/") {
				cm := letterChoiceRe.FindStringSubmatch(strings.TrimSpace(c))
				if cm == nil {
					return nil, 0, false
				}
				label := strings.TrimSpace(cm[1] + cm[2])
				if len(m) > 3 && strings.EqualFold(label, strings.TrimSpace(m[3])) {
					q.Selected = len(q.Options)
				}
				q.Options = append(q.Options, label)
			}
			return q, top, len(q.Options) >= 2
		}
		// A hard wrap leaves the row above filled to the edge (less a
		// space the capture trimmed).
		if top == 0 || bottom-top+1 >= maxWrap {
			return nil, 0, false
		}
		prev := s.lines[top-1]
		switch {
		case prev.blank || prev.rule || prev.width < prev.avail-1:
			return nil, 0, false
		case prev.width == prev.avail-1:
			text = prev.text + " " + text
		default:
			text = prev.text + text
		}
	}
}

// tabRow parses a row of two or more choices, for an agent that draws
// them: bracketed, "[ Allow once ]  [ Allow always ]  [ Reject ]", or
// unbracketed, "Allow once   Allow always   Reject" with key hints after
// the choices ("ctrl+f fullscreen  ⇆ select  enter confirm"), which the
// caller accepts only under the agent's prompt row. Which one is
// selected is drawn in colour only, lost in a plain capture, so the
// reading says 0: the first choice, where such a dialog opens.
func (r *rules) tabRow(l line) (labels []string, bracketed, ok bool) {
	if !r.tabs {
		return nil, false, false
	}
	t := l.body()
	if strings.HasPrefix(t, "[") {
		for t != "" {
			if t[0] != '[' {
				return nil, false, false
			}
			end := strings.IndexByte(t, ']')
			if end < 0 || strings.IndexByte(t[1:end], '[') >= 0 {
				return nil, false, false
			}
			labels = append(labels, strings.TrimSpace(t[1:end]))
			t = strings.TrimLeft(t[end+1:], " ")
		}
		return labels, true, len(labels) >= 2
	}
	for seg := range strings.SplitSeq(t, "   ") {
		seg = strings.TrimSpace(seg)
		if seg == "" {
			continue
		}
		if isHintSegment(seg) {
			break // key hints close the row
		}
		c, _ := utf8.DecodeRuneInString(seg)
		if !unicode.IsUpper(c) || len(strings.Fields(seg)) > 5 {
			return nil, false, false
		}
		labels = append(labels, seg)
	}
	return labels, false, len(labels) >= 2
}

// isHintSegment reports whether seg is a key and what it does: "enter
// confirm", "⇆ select", "ctrl+f fullscreen", "esc reject", "↑↓ select".
func isHintSegment(seg string) bool {
	key, rest, ok := strings.Cut(seg, " ")
	if !ok || rest == "" {
		return false
	}
	if isKey(key) {
		return true
	}
	for _, c := range key {
		if !strings.ContainsRune("⇆↑↓←→⇅", c) {
			return false
		}
	}
	return true
}

// renderable cleans labels and drops pseudo-options and labels left
// empty. A label is cut at a gap of three spaces or more (what follows is
// a description column, as in Codex's "Yes, implement this plan
// Switch to Default and start coding."), then key hints are stripped.
func (r *rules) renderable(labels []string) []string {
	out := make([]string, 0, len(labels))
	for _, l := range labels {
		if i := strings.Index(l, "   "); i > 0 {
			l = l[:i]
		}
		l = stripHints(l)
		if l == "" || matchAny(r.pseudo, l) {
			continue
		}
		out = append(out, l)
	}
	return out
}

// stripHints removes trailing key hints: "No (esc)" → "No", "Yes,
// proceed (y)" → "Yes, proceed", "… session (shift+tab)" → "… session",
// "Skip (esc or n)" → "Skip", "… (Esc to stop)" → "…", "Approve
// [Alt+1]" → "Approve". Other parentheses ("(Recommended)", "Run
// (once)") are part of the label.
func stripHints(label string) string {
	for {
		t := strings.TrimRight(label, " ")
		var open int
		switch {
		case strings.HasSuffix(t, ")"):
			open = strings.LastIndexByte(t, '(')
		case strings.HasSuffix(t, "]"):
			open = strings.LastIndexByte(t, '[')
		default:
			return t
		}
		if open < 0 || !isKeyHint(t[open+1:len(t)-1]) {
			return t
		}
		label = t[:open]
	}
}

// isKeyHint reports whether k names keys: one key ("y", "esc",
// "shift+tab", "Alt+1"), keys joined by " or " ("esc or n"), either
// followed by what they do ("Esc to stop").
func isKeyHint(k string) bool {
	k = strings.ToLower(strings.TrimSpace(k))
	if head, _, ok := strings.Cut(k, " to "); ok {
		k = head
	}
	for part := range strings.SplitSeq(k, " or ") {
		if !isKey(strings.TrimSpace(part)) {
			return false
		}
	}
	return true
}

// isKey reports whether k (any case) names one key: a letter or digit,
// a named key, or a modifier chord.
func isKey(k string) bool {
	k = strings.ToLower(k)
	switch k {
	case "esc", "escape", "enter", "return", "tab", "space", "backspace", "del", "delete":
		return true
	}
	if c, n := utf8.DecodeRuneInString(k); n > 0 && n == len(k) {
		return unicode.IsLetter(c) || unicode.IsDigit(c)
	}
	mod, key, ok := strings.Cut(k, "+")
	if !ok || key == "" || strings.ContainsAny(key, " ()[]") {
		return false
	}
	switch mod {
	case "shift", "ctrl", "control", "alt", "cmd", "meta", "opt", "option", "super":
		return true
	}
	return false
}
