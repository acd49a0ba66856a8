package detect

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// line is one row of a captured screen after normalisation: odd spaces
// (no-break, thin, ideographic …) made plain, control and zero-width
// runes dropped, a box's side borders removed, trailing blanks trimmed.
type line struct {
	text   string // the normalised row
	indent int    // leading spaces
	width  int    // runes in text
	avail  int    // columns the row was drawn in: the screen's width, or its box's inner width
	blank  bool   // nothing but spaces
	rule   bool   // a horizontal rule or a box's top or bottom border: a separator
}

// screen is a parsed capture: its rows, trailing blank rows dropped.
type screen struct {
	raw   string
	lines []line
}

// parseScreen splits a `tmux capture-pane -p` capture into normalised rows.
func parseScreen(raw string) *screen {
	n := strings.Count(raw, "\n") + 1
	lines := make([]line, 0, n)
	width := 0
	for rest := raw; ; {
		row, tail, more := strings.Cut(rest, "\n")
		t, tw := normalizeCount(strings.TrimRight(row, " ")) // padding first: most of a wide capture
		l := line{text: t, width: tw}
		if tw > width {
			width = tw
		}
		for depth := 0; depth < maxBoxDepth; depth++ {
			inner, boxed := unbox(l.text)
			if !boxed {
				break
			}
			l.text = strings.TrimRight(inner, " ")
			l.avail = utf8.RuneCountInString(inner)
			l.width = -1
		}
		if inner, ok := leftBorder(l.text); ok {
			if l.avail == 0 {
				l.avail = -utf8.RuneCountInString(l.text[:len(l.text)-len(inner)])
			}
			l.text = inner
			l.width = -1
		}
		if l.width < 0 {
			l.width = utf8.RuneCountInString(l.text)
		}
		l.indent = len(l.text) - len(strings.TrimLeft(l.text, " "))
		l.blank = l.indent == len(l.text)
		l.rule = !l.blank && isRule(l.text)
		lines = append(lines, l)
		if !more {
			break
		}
		rest = tail
	}
	for i := range lines {
		if lines[i].avail <= 0 {
			lines[i].avail += width // a negative avail is the left border's offset
		}
	}
	for len(lines) > 0 && lines[len(lines)-1].blank {
		lines = lines[:len(lines)-1]
	}
	return &screen{raw: raw, lines: lines}
}

// normalizeCount is normalize, also returning the result's width in
// runes: one pass over a clean row.
func normalizeCount(s string) (string, int) {
	n := 0
	for i := 0; i < len(s); n++ {
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f {
				t := normalize(s)
				return t, utf8.RuneCountInString(t)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || zeroWidth(r) || unicode.IsSpace(r) || unicode.IsControl(r) {
			t := normalize(s)
			return t, utf8.RuneCountInString(t)
		}
		i += size
	}
	// Clean, and trailing spaces are already gone.
	return s, n
}

// normalize makes every Unicode space a plain space, drops control and
// zero-width runes, and trims trailing spaces: glyph drift such as a
// no-break space after a cursor must not change a reading.
func normalize(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; {
		if c := s[i]; c < utf8.RuneSelf {
			clean = c >= ' ' && c != 0x7f
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		clean = !(r == utf8.RuneError && n == 1) && !zeroWidth(r) && !unicode.IsSpace(r) && !unicode.IsControl(r)
		i += n
	}
	if clean {
		return strings.TrimRight(s, " ")
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case zeroWidth(r):
			// drop
		case unicode.IsSpace(r):
			b.WriteByte(' ')
		case unicode.IsControl(r):
			// escape remnants, bells: drop
		default:
			b.WriteRune(r) // an invalid byte becomes U+FFFD
		}
	}
	return strings.TrimRight(b.String(), " ")
}

// zeroWidth reports whether r is a zero-width space, joiner or BOM.
func zeroWidth(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return false
}

// isVBar reports whether r is a vertical box border.
func isVBar(r rune) bool {
	switch r {
	case '│', '┃', '║', '┆', '┇', '┊', '┋':
		return true
	}
	return false
}

// maxBoxDepth is how many nested boxes are opened around one row (a
// command box inside a dialog box, as Gemini CLI and Copilot CLI draw).
const maxBoxDepth = 2

// leftBorder returns the row right of a left-only border, if t is such
// a row: OpenCode draws its prompt and dialogs with a "┃" down their left
// side only, Cursor's trust dialog with a "│". The bar must stand alone
// (followed by a space or nothing), so "│x" is text.
func leftBorder(t string) (string, bool) {
	trimmed := strings.TrimLeft(t, " ")
	first, n := utf8.DecodeRuneInString(trimmed)
	if !isVBar(first) {
		return "", false
	}
	rest := trimmed[n:]
	if rest != "" && rest[0] != ' ' {
		return "", false
	}
	return rest, true
}

// unbox returns the row between a box's side borders, untrimmed, if t
// is such a row (legacy Claude Code dialogs, Gemini CLI's dialogs).
func unbox(t string) (string, bool) {
	trimmed := strings.TrimLeft(t, " ")
	first, n := utf8.DecodeRuneInString(trimmed)
	if !isVBar(first) {
		return "", false
	}
	rest := trimmed[n:]
	last, m := utf8.DecodeLastRuneInString(rest)
	if m == 0 || !isVBar(last) {
		return "", false
	}
	return rest[:len(rest)-m], true
}

// isRule reports whether t is a separator: made only of box-drawing and
// block runes (at least three), as a horizontal rule, a dashed rule or a
// box's top or bottom is; or a labelled border, which starts and ends
// with such a rune and carries text between runs of them ("──── main
// ────", Amp's "╭─100% of 272k · $1.20───╮").
func isRule(t string) bool {
	t = strings.TrimSpace(t)
	if first, _ := utf8.DecodeRuneInString(t); !isBoxRune(first) {
		return false // most rows: text
	}
	n, other := 0, false
	for _, r := range t {
		switch {
		case r == ' ':
		case isBoxRune(r):
			n++
		default:
			other = true
		}
	}
	if !other {
		return n >= 3
	}
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	return n >= 4 && isBoxRune(first) && !isVBar(first) && isBoxRune(last) && !isVBar(last)
}

// isBoxRune reports whether r is a box-drawing or block-element rune.
func isBoxRune(r rune) bool { return r >= 0x2500 && r <= 0x259f }

// body is the row without its indent.
func (l line) body() string { return l.text[l.indent:] }

// firstWordWidth is the width of t's first word, in runes.
func firstWordWidth(t string) int {
	t = strings.TrimLeft(t, " ")
	if i := strings.IndexByte(t, ' '); i >= 0 {
		t = t[:i]
	}
	return utf8.RuneCountInString(t)
}

// lastContent returns the index of the bottom row that is neither blank
// nor a rule, or -1.
func (s *screen) lastContent() int {
	for i := len(s.lines) - 1; i >= 0; i-- {
		if !s.lines[i].blank && !s.lines[i].rule {
			return i
		}
	}
	return -1
}
