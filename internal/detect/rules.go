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

	// titleClues and screenClues name the agent: the table with the
	// highest total weight at or above minScore wins; ties go to the
	// table listed first in tables.
	titleClues  []clue
	screenClues []clue

	// titleWorking and titleBlocked read state from the pane title, e.g.
	// Claude Code's braille spinner, Codex's "Action Required".
	titleWorking *regexp.Regexp
	titleBlocked *regexp.Regexp

	// composer matches the agent's input line. When it is set and the
	// composer is on screen without a question or work under way, the
	// agent is idle; when it is set but the composer is nowhere to be
	// seen (a dialog still being drawn, an overlay we do not know) the
	// reading is working: not at rest, not yet a question. When it is nil
	// the engine cannot tell and reads idle.
	composer *regexp.Regexp

	// working matches the status row that says the agent is busy: the
	// first unindented row above the composer, or any row below it (or,
	// without a composer, one of the bottom rows).
	working []*regexp.Regexp

	// waiting matches a bottom row that says the agent waits on the
	// person even when no question can be parsed (read blocked, with a
	// headline and no question).
	waiting []*regexp.Regexp

	// footers match rows that may follow a live question besides blank
	// rows, rules, box borders and generic key hints ("Esc to cancel").
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

	// tabs says the agent may draw its choices as a tab row:
	// "[ Allow once ]  [ Allow always ]  [ Reject ]".
	tabs bool
}

// clue is one hint that a screen or title belongs to an agent. Exactly
// one of sub (a plain substring, cheap on a whole screen) and re is set.
type clue struct {
	sub    string
	re     *regexp.Regexp
	weight int
}

// minScore is the identification weight an agent needs: one strong clue
// (its name in the title) or a few weak ones.
const minScore = 3

// tables lists every agent CLI the classifier knows, in tie-break order.
var tables = []*rules{claude, codex, gemini, opencode}

// score is the weight of the clues of r found in title and raw.
func (r *rules) score(title, raw string) int {
	n := 0
	for _, c := range r.titleClues {
		if c.found(title) {
			n += c.weight
		}
	}
	for _, c := range r.screenClues {
		if c.found(raw) {
			n += c.weight
		}
	}
	return n
}

func (c clue) found(s string) bool {
	if c.re != nil {
		return c.re.MatchString(s)
	}
	return c.sub != "" && strings.Contains(s, c.sub)
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
