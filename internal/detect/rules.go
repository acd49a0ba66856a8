package detect

import (
	"regexp"
	"strings"
)

// rules is one agent CLI's table: everything the generic engine needs to
// know about that CLI's screens, as data. A new shape should need a
// fixture and a line here, not new engine code.
//
// Every pattern is matched against a normalised row (see line): odd
// spaces made plain, box borders removed, trailing blanks trimmed,
// leading indent kept. A pattern with a capture group yields group 1,
// otherwise the whole match; either is trimmed.
type rules struct {
	// name is the agent as reported in agent.Reading.Agent.
	name string

	// titleClues and screenClues name the agent when the pane's
	// foreground process does not (see commands): the table with the
	// highest total weight at or above minScore wins; ties go to the
	// table listed first in tables.
	titleClues  []clue
	screenClues []clue

	// titleWorking and titleBlocked read state from the pane title, e.g.
	// Claude Code's braille spinner, Codex's "Action Required".
	titleWorking *regexp.Regexp
	titleBlocked *regexp.Regexp

	// composer matches the agent's input line (any row near the bottom,
	// separators included: Amp's input box is known by its top border).
	// When it is set and the composer is on screen without a question or
	// work under way, the agent is idle; when it is set but the composer
	// is nowhere to be seen (a dialog still being drawn, an overlay we do
	// not know, Aider streaming an answer) the reading is working: not at
	// rest, not yet a question. When it is nil the engine cannot tell and
	// reads idle.
	composer *regexp.Regexp

	// composerLast says the composer counts only on the last row with
	// content: a line REPL (Aider) leaves every earlier input line in its
	// transcript.
	composerLast bool

	// working matches the status row that says the agent is busy; see
	// statusScan for which rows are looked at.
	working []*regexp.Regexp

	// statusScan is how many rows above the composer may hold the status
	// row (blank rows and separators not counted). 0 means Claude Code's
	// rule: only the first unindented row above the composer, since rows
	// under its spinner (a to-do list) are indented. Rows below the
	// composer always count; composerStatus adds the composer row itself
	// (Cursor and OpenCode print "ctrl+c to stop", "esc interrupt" beside
	// it).
	statusScan     int
	composerStatus bool

	// waiting matches a bottom row that says the agent waits on the
	// person even when no question can be parsed (read blocked, with a
	// headline and no question).
	waiting []*regexp.Regexp

	// footers match rows that may follow a live question besides blank
	// rows, separators and generic key hints ("Esc to cancel · …").
	footers []*regexp.Regexp

	// pseudo matches option labels that are not answers: free-text rows
	// such as "Type something." or "Chat about this".
	pseudo []*regexp.Regexp

	// prompt matches the prompt row (checked before the generic rule: the
	// nearest row above the options that ends with "?", else the nearest
	// row); promptDetail, when set, matches a row whose text is appended
	// to the prompt after ": " (OpenCode's "$ command").
	prompt       []*regexp.Regexp
	promptDetail *regexp.Regexp

	// headline matches a row above a question that says what it is about
	// (a tool call such as "Bash(touch x)"); the search goes up from the
	// question and stops at a row matching headlineStop. Without a match
	// the headline is the prompt.
	headline     []*regexp.Regexp
	headlineStop *regexp.Regexp

	// The shapes a question may take besides a numbered menu with one
	// cursor row, which every agent may draw:

	// cursorless, when set, admits a numbered menu without a cursor glyph
	// (OpenCode marks the selected row by colour only, lost in a plain
	// capture), but only when a row matching it follows the menu (its
	// key-hint footer), so a numbered list in prose is never one.
	// Selected is then 0, where such a menu opens.
	cursorless *regexp.Regexp

	// plainMenu admits a menu without numbers: rows at one label column,
	// exactly one marked by a cursor glyph (Cursor's "→ Run (once)",
	// Amp's "▸● Approve"), the others by nothing or a hollow marker
	// ("○"). It needs a prompt above it: a row ending in "?" or one
	// matching prompt.
	plainMenu bool

	// keyMenu matches one row of a menu answered by a key: group 1 the
	// key, group 2 the label (Cursor's "[a] Trust this workspace"). Two
	// or more such rows in a row are a letter question.
	keyMenu *regexp.Regexp

	// letterPrompt matches a one-row question answered by a typed letter
	// (Aider's "Run shell command? (Y)es/(N)o [Yes]:"), possibly
	// hard-wrapped over rows: group 1 the prompt, group 2 the choices,
	// each "(L)abel" and separated by "/", group 3 the default, if any.
	letterPrompt *regexp.Regexp

	// tabs says the agent may draw its choices as a tab row:
	// "[ Allow once ]  [ Allow always ]  [ Reject ]", or, unbracketed
	// and then only under a prompt row matching prompt, "Allow once
	// Allow always   Reject" with key hints after them.
	tabs bool
}

// clue is one hint that a screen or title belongs to an agent: sub, a
// plain substring (cheap on a whole screen), and re, a pattern; at least
// one is set. When both are, re is only tried where sub is found, so a
// screen clue costs a substring search unless the screen is likely the
// agent's.
type clue struct {
	sub    string
	re     *regexp.Regexp
	weight int
}

// minScore is the identification weight an agent needs: one strong clue
// (its name in the title) or a few weak ones.
const minScore = 3

// tables lists every agent CLI the classifier knows, in tie-break order.
var tables = []*rules{claude, codex, gemini, opencode, cursor, copilot, amp, aider}

// nameWeight is the weight of a clue that names the agent outright (its
// name in the title): enough to decide alone.
const nameWeight = 10

// titleScore is the weight of r's title clues found in title.
func (r *rules) titleScore(title string) int {
	n := 0
	for _, c := range r.titleClues {
		if c.found(title) {
			n += c.weight
		}
	}
	return n
}

// screenScore is the weight of r's screen clues found in raw, whose
// byte pairs are in pairs.
func (r *rules) screenScore(raw string, pairs *pairSet) int {
	n := 0
	for _, c := range r.screenClues {
		if pairs.mayContain(c.sub) && c.found(raw) {
			n += c.weight
		}
	}
	return n
}

// pairSet records which pairs of adjacent bytes occur in a text: a
// substring with a pair the text lacks cannot occur in it. It spares a
// scan of the whole screen for most clues of the agents not there.
type pairSet [1 << 16 / 64]uint64

// add records the byte pairs of s.
func (p *pairSet) add(s string) {
	for i := 0; i+1 < len(s); i++ {
		k := uint16(s[i])<<8 | uint16(s[i+1])
		p[k>>6] |= 1 << (k & 63)
	}
}

// mayContain reports whether every byte pair of sub was recorded.
func (p *pairSet) mayContain(sub string) bool {
	for i := 0; i+1 < len(sub); i++ {
		k := uint16(sub[i])<<8 | uint16(sub[i+1])
		if p[k>>6]&(1<<(k&63)) == 0 {
			return false
		}
	}
	return true
}

func (c clue) found(s string) bool {
	if c.sub != "" && !strings.Contains(s, c.sub) {
		return false
	}
	if c.re != nil {
		return c.re.MatchString(s)
	}
	return c.sub != ""
}

// find returns the text a pattern yields on t: group 1 if the pattern
// has one, else the whole match, trimmed.
func find(re *regexp.Regexp, t string) (string, bool) {
	if re == nil {
		return "", false
	}
	m := re.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	s := m[0]
	if len(m) > 1 {
		s = m[1]
	}
	return strings.TrimSpace(s), true
}

// findAny is find over several patterns; the first that matches wins.
func findAny(res []*regexp.Regexp, t string) (string, bool) {
	for _, re := range res {
		if s, ok := find(re, t); ok {
			return s, true
		}
	}
	return "", false
}

// matchAny reports whether any pattern matches t.
func matchAny(res []*regexp.Regexp, t string) bool {
	for _, re := range res {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

// res compiles patterns; for tables.
func res(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}

// re compiles one pattern; for tables.
func re(pattern string) *regexp.Regexp { return regexp.MustCompile(pattern) }
