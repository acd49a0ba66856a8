// Package detect reads a tmux pane's screen and title and tells which
// agent CLI runs there and what it is doing: working, idle, blocked on
// the person (and then what it asks), or no agent at all.
//
// The screen is the truth (DESIGN.md, "The flow"), read as a person
// would: by structure, not by byte sequences, because the glyphs drift
// between releases (❯ › ● →, a no-break space after a cursor, "44.7k
// tokens"). A small generic engine does the reading:
//
//   - normalise every row: odd spaces made plain, box side borders
//     removed (legacy dialogs drawn in │ … │), rules and borders marked
//     as separators;
//   - name the agent from clues in the title and on the screen, each
//     weighted; a shell prompt on the bottom row means no agent;
//   - find the live bottom block: from the bottom row up, skip blank
//     rows, rules, borders and footers ("Esc to cancel · …"); what is
//     left must be the question, so a menu higher up in the scrollback,
//     or a prompt quoted in prose above the composer, is history;
//   - parse a numbered cursor menu there (exactly one row carries a
//     cursor glyph, numbers run 1..n, indented description rows under an
//     option are not options), or a tab row "[ A ]  [ B ]"; strip key
//     hints such as "(esc)", "(y)", "(shift+tab)"; drop pseudo-options
//     such as "Type something." or "Chat about this";
//   - take the prompt from the rows above the options (the nearest one
//     ending in "?", its soft-wrapped start joined back), and a headline
//     from the tool call the question is about, else the prompt;
//   - without a question, a wait the agent announces otherwise (Codex's
//     "Action Required" title) is blocked with a headline only;
//   - otherwise a status row with a spinner, "esc to interrupt" or a
//     token counter, or a working title (Claude Code's braille spinner),
//     means working, and the agent's composer means idle. A live
//     question wins over any working sign.
//
// What differs between agent CLIs lives in one table per agent (rules;
// claude.go, codex.go, gemini.go, opencode.go): clues, the composer,
// status rows, footers, pseudo-options, prompt and headline patterns.
// A new shape should be a fixture and a table line, not new code.
//
// Decisions the fixtures do not settle:
//   - A question needs at least two options. A prompt drawn without its
//     options yet (a half-drawn frame) is not blocked; with the composer
//     gone it reads working (not at rest, nothing asked yet), and the
//     next capture shows the whole question.
//   - Selected is the cursor's row among the menu rows on screen,
//     counting pseudo-options; it equals the index in Options whenever
//     pseudo-options come last, as they do in every known shape.
//   - An agent CLI on screen with neither a question, a working sign nor
//     its composer reads working; one whose table knows no composer
//     reads idle.
//   - Classify never returns agent.StatusDone: "idle and not yet seen"
//     is the tracker's knowledge, not the screen's.
package detect

import (
	"github.com/attn-dev/attn/internal/agent"
)

// Classify reads one pane: its screen as `tmux capture-pane -p` prints
// it and its title (#{pane_title}). It returns the agent CLI found ("" and
// agent.StatusUnknown when none), its status (working, blocked, idle or
// unknown), and for a blocked agent the question when one can be parsed,
// with a one-line Headline of at most 120 runes. It is pure, safe for concurrent use, and
// never panics, whatever the input.
func Classify(screen, title string) agent.Reading {
	s := parseScreen(screen)
	if s.shellPrompt() {
		return agent.Reading{Status: agent.StatusUnknown}
	}
	title = normalize(title)
	r := identify(s, title)
	if r == nil {
		return agent.Reading{Status: agent.StatusUnknown}
	}
	return r.read(s, title)
}

// identify returns the table of the agent whose clues weigh most in the
// title and on the screen, or nil when none reaches minScore.
func identify(s *screen, title string) *rules {
	var best *rules
	bestScore := minScore - 1
	for _, r := range tables {
		if n := r.score(title, s.raw); n > bestScore {
			best, bestScore = r, n
		}
	}
	return best
}

// shellPromptRe matches a bare shell prompt ("dev@box:~/app$",
// "[dev@box app]$"). On the bottom row it means the shell, not an agent,
// has the pane: the agent exited, even if its transcript and title
// remain. (A later source tells this from the foreground process.)
var shellPromptRe = re(`^(?:[\w.+-]+@[\w.-]+[:\s]\S*|\[[\w.+-]+@[\w.-]+[^\]]*\])\s?[$#%]$`)

// shellPrompt reports whether the bottom row is a bare shell prompt.
func (s *screen) shellPrompt() bool {
	i := s.lastContent()
	return i >= 0 && shellPromptRe.MatchString(s.lines[i].text)
}

// read classifies a screen already known to belong to r's agent.
func (r *rules) read(s *screen, title string) agent.Reading {
	out := agent.Reading{Agent: r.name}
	if q, headline, ok := r.question(s); ok {
		out.Status = agent.StatusBlocked
		out.Question = q
		out.Headline = headline
		return out
	}
	if headline, ok := r.wait(s, title); ok {
		out.Status = agent.StatusBlocked
		out.Headline = headline
		return out
	}
	comp := r.findComposer(s)
	switch {
	case r.isWorking(s, title, comp):
		out.Status = agent.StatusWorking
	case r.composer != nil && comp < 0:
		out.Status = agent.StatusWorking // transitional: see the package doc
	default:
		out.Status = agent.StatusIdle
	}
	return out
}
