package detect

// claude is Claude Code's table (fixtures claude-*.txt).
//
// Its screen: messages start with a bullet (⏺, ● on some platforms),
// tool calls read "⏺ Bash(cmd)" with results under "⎿"; while working a
// status row ("✻ Deliberating… (1m 12s · ↓ 3.4k tokens · esc to
// interrupt)") sits above the composer, a "❯" row between two rules.
// Questions replace the composer with a dialog under a rule (boxed in
// older releases) ending in a footer of key hints. The title starts with
// a braille spinner (U+2800–U+28FF) while working and "✳" at rest.
//
// Sources: the shared fixtures (../shared/fixtures/screens), captured
// from Claude Code 2.x, and the permission dialog wordings as public
// detectors' captured Claude Code panes show them.
var claude = &rules{
	name: "claude",
	titleClues: []clue{
		{sub: "Claude Code", weight: 10},
		{re: re(`^[\x{2800}-\x{28FF}✳]\s`), weight: 4},
	},
	screenClues: []clue{
		{sub: "⎿", weight: 3},           // tool-result elbow
		{sub: "tell Claude", weight: 4}, // "No, and tell Claude what to do differently"
		{sub: "Claude Code", weight: 2},
		{sub: "⏺", weight: 2}, // message bullet
		{sub: "? for shortcuts", weight: 1},
		{sub: "accept edits on", weight: 2},
		{sub: "Tab to amend", weight: 2},    // permission dialog footer
		{sub: "Chat about this", weight: 2}, // AskUserQuestion pseudo-option
	},
	titleWorking: re(`^[\x{2800}-\x{28FF}]`),
	composer:     re(`^ ?[❯›>!](?: |$)`), // "!" in bash mode
	working: res(
		`esc to interrupt`,
		// A spinner row: one glyph, one capitalised word with an ellipsis,
		// optionally a parenthesis ("✻ Deliberating… (…)"). "✻ Worked for
		// 3m 4s", the row left when the turn ends, has none.
		`^[^\w\s]\s*\p{Lu}[\p{L}'’-]*(?:…|\.\.\.)(?:\s+\(.*\))?$`,
		// A token counter in a parenthesis ("(2m 3s · ↑ 44.7k tokens)").
		`^[^\w\s].*\(.*\d(?:[.,]\d+)?k?\s+tokens\b.*\)$`,
	),
	// Free-text rows of AskUserQuestion: never an answer to offer.
	pseudo: res(`(?i)^type something\.?$`, `(?i)^chat about this\.?$`, `(?i)^other\.?$`),
	// The tool call the dialog is about: "⏺ Bash(touch x)", "⏺ Update(f.ts)",
	// above the dialog, before any other message bullet.
	headline:     res(`^[^\w\s]\s*([A-Z][\w-]*\(.*)$`),
	headlineStop: re(`^[^\w\s]\s`),
}
