package detect

// codex is OpenAI Codex CLI's table (fixtures codex-*.txt).
//
// Its screen: messages start with "•", the composer is a "›" row
// ("›  Ask Codex to do anything"), the status row "• Working (18s • esc
// to interrupt)" sits above it. An approval replaces the composer with a
// prompt, the command ("$ …") or the proposed edits, and a "›" cursor
// menu whose rows end in key hints ("(y)", "(a)", "(esc)"), over "Press
// enter to confirm or esc to cancel". The plan-mode gate ("Implement
// this plan?") is a selection list whose rows carry a description column.
// The title reads "Action Required" while it waits.
//
// Sources: the approval and plan-implementation prompts as openai/codex's
// TUI spells them (codex-rs/tui approval overlay and plan implementation
// popup), quoted in public detectors and their tests.
var codex = &rules{
	name: "codex",
	titleClues: []clue{
		{re: re(`(?i)\bcodex\b`), weight: 10},
		// The whole title, as Codex sets it; other CLIs may say "Action
		// Required" inside a longer title.
		{re: re(`^Action Required$`), weight: 4},
	},
	screenClues: []clue{
		{sub: "Ask Codex", weight: 4},
		{sub: "tell Codex", weight: 4},
		{sub: "context left", weight: 2},
		{sub: "? for shortcuts", weight: 1},
		{sub: "Would you like to run the following command?", weight: 2},
		{sub: "Would you like to make the following edits?", weight: 2},
	},
	titleBlocked: re(`Action Required`),
	composer:     re(`^[›❯>](?: |$)`),
	working:      res(`esc to interrupt`),
	prompt: res(
		`^\s*(Would you like to .+\?)$`,
		`^\s*(Do you want to approve .+\?)$`,
		`^\s*(Implement this plan\?)$`,
	),
	headline:     res(`^\s*(\$ .+)$`),
	headlineStop: re(`^[^\w\s]\s`),
}
