// Package detect reads a tmux pane (its screen, its title and its
// foreground command) and tells which agent CLI runs there and what it
// is doing: working, idle, blocked on the person (and then what it
// asks), or no agent at all. It reads Claude Code, Codex, Gemini CLI,
// OpenCode, Cursor's agent CLI, GitHub Copilot CLI, Amp and Aider.
//
// The screen is the truth (DESIGN.md, "The flow"), read as a person
// would: by structure, not by byte sequences, because the glyphs drift
// between releases (❯ › ● →, a no-break space after a cursor, "44.7k
// tokens"). A small generic engine does the reading:
//
//   - name the agent: the foreground command first (an agent's binary
//     names it, a shell or an editor rules every agent out; see
//     commands), else a title naming one agent, else clues in the title
//     and on the screen, each weighted; then a shell prompt on the
//     bottom row means no agent;
//   - normalise every row: odd spaces made plain, box side borders
//     removed (dialogs drawn in │ … │, nested up to two deep; panels
//     hung from a left "┃"), rules and borders (a labelled one too,
//     "╭─38% of 272k───╮") marked as separators;
//   - find the live bottom block: from the bottom row up, skip blank
//     rows, separators and footers ("Esc to cancel · …"); what is left
//     must be the question, so a menu higher up in the scrollback, or a
//     prompt quoted in prose above the composer, is history;
//   - parse the choices there: a numbered menu with one cursor row
//     (numbers run 1..n, indented description rows under an option are
//     not options), and, for the agents whose table admits them, a
//     numbered menu without a cursor over its own footer (OpenCode), an
//     unnumbered menu with one cursor row under a question (Cursor, Amp),
//     rows answered by a key ("[a] Trust this workspace"), a one-row
//     letter prompt ("Run shell command? (Y)es/(N)o [Yes]:", Aider), or
//     a tab row, bracketed ("[ A ]  [ B ]") or not (under the agent's
//     prompt row); cut a description column off a label, strip key hints
//     ("(esc)", "(y)", "(esc or n)", "(Esc to stop)", "[Alt+1]"), drop
//     pseudo-options ("Type something.", "Type your own answer");
//   - take the prompt from the rows above the choices (the agent's prompt
//     pattern, else the nearest row ending in "?", soft-wrapped rows
//     joined back; a prompt ending in ":" takes its subject from the row
//     under it), and a headline from what the question is about (a tool
//     call, a command, a file), else the prompt;
//   - without a question, a wait the agent announces otherwise (Codex's
//     "Action Required" title, Gemini's "Waiting for user
//     confirmation") is blocked with a headline only;
//   - otherwise a status row ("esc to interrupt", "(esc to cancel, 12s)",
//     "ctrl+c to stop", a spinner, a token counter) or a working title
//     means working, and the agent's composer means idle. A live question
//     wins over any working sign.
//
// What differs between agent CLIs lives in one table per agent (rules;
// claude.go, codex.go, gemini.go, opencode.go, cursor.go, copilot.go,
// amp.go, aider.go), each naming where its shapes come from: clues, the
// composer, status rows, footers, pseudo-options, prompt and headline
// patterns, and which question shapes the agent draws. A new shape
// should be a fixture and a table line, not new code.
//
// Decisions the fixtures do not settle:
//   - A question needs at least two choices on screen. A prompt drawn
//     without its options yet (a half-drawn frame) is not blocked; with
//     the composer gone it reads working (not at rest, nothing asked
//     yet), and the next capture shows the whole question.
//   - Selected is the cursor's row among the menu rows on screen,
//     counting pseudo-options; it equals the index in Options whenever
//     pseudo-options come last, as they do in every known shape. Where
//     the selection is drawn in colour only (tab rows, OpenCode's
//     question list) it is 0, where such dialogs open; for a letter
//     prompt it is the bracketed default, which Enter picks.
//   - An agent CLI on screen with neither a question, a working sign nor
//     its composer reads working; one whose table knows no composer
//     reads idle. An agent's own command with an empty screen is that
//     agent, working: it is there, but not at rest.
//   - A foreground command that names no agent and is no shell (node,
//     python3, ssh, a wrapper) leaves the naming to the clues; so does
//     Classify, which has no command.
//   - ClassifyPane never returns agent.StatusDone: "idle and not yet
//     seen" is the tracker's knowledge, not the screen's.
package detect

import (
	"github.com/attn-dev/attn/internal/agent"
)

// Pane is what the classifier reads of one tmux pane.
type Pane struct {
	// Screen is the pane as `tmux capture-pane -p` prints it.
	Screen string
	// Title is #{pane_title}, which agents set with OSC 2.
	Title string
	// Command is #{pane_current_command}, the pane's foreground program
	// ("claude", "codex", "node", "python3", "bash"…); "" when unknown.
	// It names the agent before any clue does; see commands.
	Command string
}

// ClassifyPane reads one pane. It returns the agent CLI found ("" and
// agent.StatusUnknown when none), its status (working, blocked, idle or
// unknown), and for a blocked agent the question when one can be parsed,
// with a one-line Headline of at most 120 runes. The agent is named by
// the foreground command when it is an agent CLI's, ruled out when it is
// a plain shell, and otherwise found from clues in the title and on the
// screen (see commands). It is pure, safe for concurrent use, and never
// panics, whatever the input.
func ClassifyPane(p Pane) agent.Reading {
	cmd := lookupCommand(p.Command)
	if cmd.kind == cmdShell {
		return agent.Reading{Status: agent.StatusUnknown}
	}
	s := parseScreen(p.Screen)
	title := normalize(p.Title)
	r := cmd.table
	if cmd.kind != cmdAgent {
		if s.shellPrompt() {
			return agent.Reading{Status: agent.StatusUnknown}
		}
		r = identify(s, title, cmd.table)
	}
	if r == nil {
		return agent.Reading{Status: agent.StatusUnknown}
	}
	return r.read(s, title)
}

// Classify reads one pane from its screen and title alone: ClassifyPane
// with no foreground command, so the agent is named from clues.
func Classify(screen, title string) agent.Reading {
	return ClassifyPane(Pane{Screen: screen, Title: title})
}

// identify returns the table of the agent whose clues weigh most in the
// title and on the screen, or nil when none reaches minScore. hint, when
// not nil, is the agent the foreground command's name suggests: its
// clues weigh minScore more.
func identify(s *screen, title string, hint *rules) *rules {
	// A title naming exactly one agent decides (the screen clues of
	// another could not outweigh it), and spares scanning the screen.
	var named *rules
	for _, r := range tables {
		if r.titleScore(title) >= nameWeight {
			if named != nil {
				named = nil
				break
			}
			named = r
		}
	}
	if named != nil {
		return named
	}
	var pairs pairSet
	pairs.add(s.raw)
	var best *rules
	bestScore := minScore - 1
	for _, r := range tables {
		n := r.titleScore(title) + r.screenScore(s.raw, &pairs)
		if r == hint {
			n += minScore
		}
		if n > bestScore {
			best, bestScore = r, n
		}
	}
	return best
}

// shellPromptRe matches a bare shell prompt ("dev@box:~/app$",
// "[dev@box app]$"). On the bottom row it means the shell, not an agent,
// has the pane: the agent exited, even if its transcript and title
// remain. It is the fallback for a pane whose foreground command is not
// known; a known shell command says so first.
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
