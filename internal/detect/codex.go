package detect

// codex is OpenAI Codex CLI's table (fixtures codex-*.txt).
//
// Its screen: messages start with "•", the composer is a "›" row
// ("›  Ask Codex to do anything"), the status row "• Working (18s • esc
// to interrupt)" sits above it. An approval replaces the composer with a
// prompt, the command ("$ …") and a "›" cursor menu whose rows end in key
// hints ("(y)", "(esc)"). The title reads "Action Required" while it
// waits.
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
	},
	titleBlocked: re(`Action Required`),
	composer:     re(`^[›❯>](?: |$)`),
	working:      res(`esc to interrupt`),
	headline:     res(`^\s*(\$ .+)$`),
	headlineStop: re(`^[^\w\s]\s`),
}
