package detect

// copilot is GitHub Copilot CLI's table (fixtures copilot-*.txt).
//
// Its screen: messages start with "●", tool calls with "✓"/"✗" and their
// command ("$ npm test"); the composer is a ">" row between two rules
// (">  Enter @ to mention files or / for commands" when empty), a
// directory/model row above it, "Ctrl+c Exit · …  Remaining requests:
// 92.4%" under it; while it works a "∙ Working (Esc to cancel)" row sits
// above. A permission request asks "Do you want to run this command?"
// ("… to use this tool?", "… to allow this access?" for a URL) over the
// command, then a "❯" numbered menu: "Yes", "Yes, and approve `npm` for
// the rest of the running session" (or "don't ask again for `touch` in
// this directory"), "No, and tell Copilot what to do differently (Esc)";
// older releases boxed it and closed it with "Confirm with number keys
// or ↑↓ keys and Enter, Cancel with Esc".
//
// Sources: GitHub's Copilot CLI documentation (the three approval
// choices), issues on github/copilot-cli quoting the prompts, and public
// detector tests transcribing its screens (the run-command and
// URL-access dialogs, "Working (Esc to cancel)").
var copilot = &rules{
	name: "copilot",
	titleClues: []clue{
		{re: re(`(?i)\bcopilot\b`), weight: 10},
	},
	screenClues: []clue{
		{sub: "tell Copilot", weight: 4},
		{sub: "Enter @ to mention files", weight: 4},
		{sub: "Remaining requests", weight: 3},
		{sub: "Copilot is attempting to", weight: 3},
		{sub: "Confirm with number keys", weight: 3},
	},
	composer:   re(`^\s*[>❯](?:\s|$)`),
	statusScan: 3,
	working:    res(`(?i)\(esc to cancel\b`),
	footers:    res(`(?i)^\s*confirm with number keys\b`),
	prompt: res(
		`^\s*(?:● )?(Do you want to .+\?)$`,
		`^\s*(?:● )?(Allow Copilot to .+\?)$`,
	),
}
