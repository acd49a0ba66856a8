package detect

// opencode is OpenCode's table (fixtures opencode-*.txt).
//
// Its screen (the opentui TUI): panels hang from a "┃" down their left
// side. The composer panel holds the input ("Ask anything…") and an
// agent/model row; under it a status row: "■■⬝⬝ esc interrupt" while it
// works, "tab agents  ctrl+p commands" (or the context use) at rest; the
// session footer (directory, "△ 1 Permission", "• 2 LSP", "/status")
// below. A permission request replaces the composer: "△ Permission
// required", the action ("# <description>", "→ Edit <file>", "←
// Access external directory <dir>"), its body ("$ <command>", a diff,
// patterns), then the choices "Allow once   Allow always   Reject" as a
// row of words (the selection is colour only) beside the key hints
// "ctrl+f fullscreen  ⇆ select  enter confirm". Older builds drew the
// choices bracketed ("[ Allow once ]"). The prompt is the heading and the
// action: "Permission required: git push …". A question (its question
// tool) is a numbered list without a cursor glyph, each option's
// description under it, "Type your own answer" last, over "↑↓ select
// enter submit  esc dismiss". The title is "OpenCode", or "OC | <session
// title>".
//
// Sources: sst/opencode (now anomalyco/opencode), packages/opencode/src/
// cli/cmd/tui: routes/session/permission.tsx, question.tsx, footer.tsx,
// component/prompt/index.tsx, app.tsx (the terminal title).
var opencode = &rules{
	name: "opencode",
	titleClues: []clue{
		{re: re(`(?i)\bopen ?code\b`), weight: 10},
		{re: re(`^OC \| `), weight: 10},
	},
	screenClues: []clue{
		{sub: "Permission required", weight: 1},
		{sub: "△ Permission required", weight: 2},
		{sub: "ctrl+p commands", weight: 3},
		{sub: "esc dismiss", weight: 2},
		{sub: "Type your own answer", weight: 2},
		{sub: "Ask anything...", weight: 3},
		{sub: "esc interrupt", weight: 2},
	},
	composer:       re(`(?:^|\s)(?:tab agents\s+)?ctrl\+p commands$|^\s*Ask anything\.\.\.`),
	composerStatus: true,
	statusScan:     2,
	working:        res(`(?i)\besc (?:again )?(?:to )?interrupt\b`),
	waiting:        res(`△ \d+ Permissions?\b`),
	footers: res(
		// Hint rows only: the choices row carries the same hints after
		// its choices when the pane is wide.
		`^\s*(?:ctrl\+f\s+\w+\s+)?⇆\s+select\b`,
		`(?:^|\s)/status$`,
		`△ \d+ Permissions?\b`,
	),
	cursorless: re(`\besc dismiss$`),
	pseudo:     res(`(?i)^type your own answer$`),
	prompt: res(
		`^\s*(?:△\s+)?(Permission required)$`,
		`^\s*(?:△\s+)?(Always allow)$`,
	),
	promptDetail: re(`^\s*(?:\$|[#→←✱%◈◇⟳⚙])\s+(.+)$`),
	tabs:         true,
}
