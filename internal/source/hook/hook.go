// Package hook turns agent CLI hook payloads into attn events and carries
// them from `attn hook …` to the daemon.
//
// Agent CLIs (Claude Code, Codex, Gemini CLI, OpenCode) run a command at
// moments that matter to attn: a permission dialog opened, a turn ended.
// That command is `attn hook <agent>`: it reads the payload the agent
// hands it (JSON on stdin; Codex's notify program gets it as the last
// argument), works out which tmux pane the agent runs in from the
// environment it inherited, and calls Parse. The resulting Event goes to
// the daemon with Send over a unix socket that the daemon serves with
// Listen and Serve.
//
// Hooks are hints, the pane's screen is the truth (DESIGN.md, "The flow"):
// an Event says what the agent claims, and the tracker decides what it
// means for the pane. Parse therefore never guesses a status: an event it
// does not know is KindIgnored with a Reason, not an error. Errors are for
// payloads that are not what any agent sends (not JSON, wrong shapes), and
// they say what was wrong and what attn expected.
//
// PlanInstall and Install.Apply write the entries that make an agent run
// `attn hook <agent>` into its own settings file (`attn hook install`),
// keeping every other setting and a backup.
//
// The payload shapes are those of ../shared/fixtures/hooks and
// ../shared/PROTOCOLS.md ("Agent CLIs").
package hook

import (
	"time"
)

// Kind is what a hook event means for attn.
type Kind string

// The event kinds.
const (
	// KindBlocked: the agent waits on the person now (a permission dialog,
	// a question). The tracker starts the settle clock at once once the
	// screen agrees.
	KindBlocked Kind = "blocked"
	// KindFinished: the agent's main turn ended and nothing of its own is
	// still running.
	KindFinished Kind = "finished"
	// KindReminder: the agent says it has waited for input for a while
	// (Claude Code's idle_prompt). A reminder only: never proof that the
	// agent is blocked, and never read as blocked while the screen shows
	// work.
	KindReminder Kind = "reminder"
	// KindIgnored: the event carries no attention signal (an unknown or
	// uninteresting event, a sub-agent's stop, a turn paused on background
	// work). Reason says why; the daemon may log it.
	KindIgnored Kind = "ignored"
)

// Valid reports whether k is one of the four kinds.
func (k Kind) Valid() bool {
	switch k {
	case KindBlocked, KindFinished, KindReminder, KindIgnored:
		return true
	}
	return false
}

// The agent names Parse accepts, as `attn hook <agent>` takes them.
const (
	AgentClaude   = "claude"   // Claude Code
	AgentCodex    = "codex"    // OpenAI Codex CLI
	AgentGemini   = "gemini"   // Gemini CLI
	AgentOpenCode = "opencode" // OpenCode (through attn's plugin)
)

// Agents lists the agent names Parse accepts, in the order help texts name
// them.
var Agents = []string{AgentClaude, AgentCodex, AgentGemini, AgentOpenCode}

// KnownAgent reports whether name is one of Agents.
func KnownAgent(name string) bool {
	for _, a := range Agents {
		if a == name {
			return true
		}
	}
	return false
}

// Limits.
const (
	// MaxPayload is the largest hook payload Parse accepts, in bytes
	// (1 MiB). Real payloads are a few KiB; a Claude Code PermissionRequest
	// for a Write of a large file carries the file's content in tool_input
	// and stays far below this.
	MaxPayload = 1 << 20
	// MaxDetail is the longest Event.Detail, in characters (runes),
	// including the "…" that marks a cut.
	MaxDetail = 200
)

// Event is one hook call, as attn reads it. Its JSON form (snake_case
// keys, "at" in RFC 3339) is what travels over the hook socket.
type Event struct {
	// Agent is the agent CLI that called the hook: "claude", "codex",
	// "gemini" or "opencode" (one of Agents).
	Agent string `json:"agent"`
	// Kind is what the event means (see the Kind constants).
	Kind Kind `json:"kind"`
	// Reason names the event that caused Kind, e.g. "PermissionRequest",
	// "Notification/permission_prompt", "agent-turn-complete", or for
	// KindIgnored why it was ignored, e.g. "sub-agent stop: never a
	// finished turn".
	Reason string `json:"reason"`
	// Pane is the tmux pane id from $TMUX_PANE, e.g. "%12"; "" outside
	// tmux or when the variable does not look like a pane id.
	Pane string `json:"pane,omitempty"`
	// TmuxSocket is the tmux server's socket path, the first
	// comma-separated field of $TMUX (e.g. "/tmp/tmux-1000/default"); ""
	// outside tmux.
	TmuxSocket string `json:"tmux_socket,omitempty"`
	// HerdrPane is the herdr pane id from $HERDR_PANE_ID, e.g. "w1:p1"; ""
	// outside herdr.
	HerdrPane string `json:"herdr_pane,omitempty"`
	// SessionID is the agent's own session (Codex: thread) id, as the
	// payload names it; "" when it names none.
	SessionID string `json:"session_id,omitempty"`
	// Cwd is the agent's working directory, as the payload names it.
	Cwd string `json:"cwd,omitempty"`
	// Tool is the tool the agent asks permission for when blocked, e.g.
	// "Bash", "run_shell_command", "bash"; "" when unknown.
	Tool string `json:"tool,omitempty"`
	// Detail is one line for a person: the command or file a blocked
	// agent asks about, the notification's message, or the last message of
	// a finished turn. Whitespace runs are folded to one space; at most
	// MaxDetail characters, cut with "…".
	Detail string `json:"detail,omitempty"`
	// At is when the hook ran (Parse's now), not when the agent wrote the
	// payload.
	At time.Time `json:"at"`
}
