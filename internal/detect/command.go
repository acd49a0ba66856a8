package detect

import (
	"strings"
)

// commandKind says what a pane's foreground process tells about the
// agent running there.
type commandKind int

const (
	// cmdOther: the process names no agent (a runtime such as node or
	// python that agent CLIs run on, an unknown program, or nothing at
	// all): the agent is named from clues in the title and on the screen.
	cmdOther commandKind = iota
	// cmdAgent: the process is an agent CLI; its table reads the screen.
	cmdAgent
	// cmdShell: a plain shell holds the pane, or another program that is
	// surely no agent (an editor, a pager): the agent exited, was
	// suspended or never ran, whatever text it left behind.
	cmdShell
)

// command is what one value of #{pane_current_command} means.
type command struct {
	kind  commandKind
	table *rules // cmdAgent: the agent's table; cmdOther: the agent the name hints at, or nil
}

// commands maps #{pane_current_command} (the basename of the foreground
// process's argv[0], compared in lower case) to what it says. The table:
//
//	command                              reading
//	claude, claude-code                  claude's table
//	codex                                codex's table
//	gemini                               gemini's table
//	opencode                             opencode's table
//	cursor-agent, cursor                 cursor's table ("cursor agent" runs the CLI too)
//	copilot                              copilot's table
//	amp, amp-local                       amp's table
//	aider                                aider's table
//	bash, zsh, fish, sh, dash, ksh,      no agent: agent "", status unknown, whatever
//	  mksh, tcsh, csh, nu, elvish          text the agent left on screen
//	vi, vim, nvim, nano, emacs, less,    no agent either: a program that is none holds
//	  more, man, top, htop, btop, watch,   the terminal (an editor showing a fixture
//	  tail                                 file is not a blocked agent)
//	agent                                clues, cursor's weighted up by minScore (Cursor's
//	                                       CLI is installed as "agent" too, a name too
//	                                       common to trust alone)
//	node, nodejs, bun, deno, npx,        clues in the title and on the screen
//	  python, python3, python3.N, uv,      (agent CLIs written in JavaScript or Python
//	  "" and any other program (ssh,       show their runtime here, e.g. Gemini CLI is
//	  docker, a wrapper script…)           "node" and Aider "python3"; over ssh the
//	                                       agent runs on another machine)
//
// A login shell's leading "-" ("-bash") and a directory ("/usr/bin/zsh")
// are dropped before the lookup.
var commands = map[string]command{
	"claude":       {cmdAgent, claude},
	"claude-code":  {cmdAgent, claude},
	"codex":        {cmdAgent, codex},
	"gemini":       {cmdAgent, gemini},
	"opencode":     {cmdAgent, opencode},
	"cursor-agent": {cmdAgent, cursor},
	"cursor":       {cmdAgent, cursor},
	"copilot":      {cmdAgent, copilot},
	"amp":          {cmdAgent, amp},
	"amp-local":    {cmdAgent, amp},
	"aider":        {cmdAgent, aider},

	"bash":   {cmdShell, nil},
	"zsh":    {cmdShell, nil},
	"fish":   {cmdShell, nil},
	"sh":     {cmdShell, nil},
	"dash":   {cmdShell, nil},
	"ksh":    {cmdShell, nil},
	"mksh":   {cmdShell, nil},
	"tcsh":   {cmdShell, nil},
	"csh":    {cmdShell, nil},
	"nu":     {cmdShell, nil},
	"elvish": {cmdShell, nil},

	"vi":    {cmdShell, nil},
	"vim":   {cmdShell, nil},
	"nvim":  {cmdShell, nil},
	"nano":  {cmdShell, nil},
	"emacs": {cmdShell, nil},
	"less":  {cmdShell, nil},
	"more":  {cmdShell, nil},
	"man":   {cmdShell, nil},
	"top":   {cmdShell, nil},
	"htop":  {cmdShell, nil},
	"btop":  {cmdShell, nil},
	"watch": {cmdShell, nil},
	"tail":  {cmdShell, nil},

	"agent": {cmdOther, cursor},
}

// lookupCommand returns what #{pane_current_command} c says.
func lookupCommand(c string) command {
	c = strings.TrimSpace(c)
	if i := strings.LastIndexByte(c, '/'); i >= 0 {
		c = c[i+1:]
	}
	c = strings.ToLower(strings.TrimLeft(c, "-"))
	if cmd, ok := commands[c]; ok {
		return cmd
	}
	return command{kind: cmdOther}
}
