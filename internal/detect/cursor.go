package detect

// cursor is Cursor's agent CLI's table (cursor-agent, also installed as
// "agent"; fixtures cursor-*.txt).
//
// Its screen: the composer is a box holding "→ Add a follow-up" ("→
// Plan, search, build anything" before the first turn), the model and
// "/ commands · @ files · ! shell" under it; while it works a hexagon
// spinner row ("⬢ Grepping..") sits above the box and "ctrl+c to stop"
// beside the composer. An approval replaces the composer: the command
// ("$ npm test in ."), the question ("Run this command?", "Write to this
// file?", "Run this MCP tool?" …), a reason row ("Shell allowlist is
// empty", "Not in allowlist: …"), then an unnumbered menu with a "→"
// cursor whose rows end in key hints: "Run (once) (y)", "Run Everything
// (shift+tab)", "Skip (esc or n)". The first-run trust dialog is
// answered by a key: "[a] Trust this workspace" / "[q] Quit".
//
// Sources: a verbatim tmux capture of cursor-agent's shell approval and
// its trust modal in a public test suite (omnigent's cursor-native
// permission mirror); the question wordings from a public reading of the
// Cursor CLI 2026.09 bundle; "ctrl+c to stop" and the hexagon spinner
// from herdr's detector.
var cursor = &rules{
	name: "cursor",
	titleClues: []clue{
		{re: re(`(?i)\bcursor[- ]agent\b|^Cursor\b`), weight: 10},
	},
	screenClues: []clue{
		{sub: "Add a follow-up", weight: 4},
		{sub: "Plan, search, build anything", weight: 4},
		{sub: "/ commands · @ files · ! shell", weight: 4},
		{sub: "Skip (esc or n)", weight: 4},
		{sub: "ctrl+c to stop", weight: 3},
		{sub: "Workspace Trust Required", weight: 3},
		{sub: "Run Everything", weight: 2},
		{sub: "⬢ ", weight: 1},
		{sub: "⬡ ", weight: 1},
	},
	composer:       re(`^\s*→(?:\s|$)`),
	composerStatus: true,
	statusScan:     2,
	working:        res(`\bctrl\+c to stop\b`, `^\s*[⬡⬢]\s+\p{Lu}\p{L}*ing\b`),
	prompt: res(
		`^\s*(Run this (?:command|MCP tool)(?: outside the sandbox)?\?)$`,
		`^\s*((?:Write to|Delete|Read) this file\?)$`,
		`^\s*(Proceed with this edit\?)$`,
		`^\s*(Allow this web (?:search|fetch)\?)$`,
	),
	headline:  res(`^\s*\$\s+(.+?)(?:\s+in\s+\S+)?$`),
	plainMenu: true,
	keyMenu:   re(`^\[(\w)\]\s+(\S.*)$`),
}
