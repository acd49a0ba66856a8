package detect

// gemini is Gemini CLI's table (fixtures gemini-*.txt).
//
// Its screen: answers start with "✦", tool calls are boxes; the composer
// is a box holding "> Type your message or @path/to/file", the loading
// row above it reads "⠏ <phrase> (esc to cancel, 12s)", a footer row
// under it names the directory, sandbox and model. A confirmation is a
// box: "?  <Tool> <args>", the command or diff, the question ("Allow
// execution of: 'npm'?", "Apply this change?", "Do you want to
// proceed?", "Allow execution of MCP tool … from server …?", "Ready to
// start implementation?" for the plan-mode gate) and a "●" cursor menu;
// under the box a braille spinner row "Waiting for user confirmation...",
// which is a footer, not work. With its dynamic window title (on by
// default) the title reads "◇  Ready (dir)", "✦  Working… (dir)" or
// "✋  Action Required (dir)".
//
// Sources: google-gemini/gemini-cli, packages/cli/src/ui (the tool
// confirmation message, the loading indicator, the window title), and the
// plan-mode gate's wording quoted in public detector tests.
var gemini = &rules{
	name: "gemini",
	titleClues: []clue{
		{re: re(`(?i)\bgemini\b`), weight: 10},
		{re: re(`^[◇✦⏲✋]\s+(?:Ready|Working|Action Required)\b`), weight: 4},
	},
	screenClues: []clue{
		{sub: "Waiting for user confirmation", weight: 4},
		{sub: "Type your message or @path", weight: 4},
		{sub: "No, suggest changes (esc)", weight: 3},
		{sub: "(esc to cancel, ", weight: 3},
		{sub: "gemini-", re: re(`gemini-\d`), weight: 2},
		{sub: "no sandbox", weight: 1},
	},
	titleWorking: re(`^[✦⏲]\s`),
	titleBlocked: re(`^✋\s|Action Required`),
	composer:     re(`^ ?>(?: |$)`),
	working:      res(`\(esc to cancel`),
	statusScan:   2,
	waiting:      res(`Waiting for user confirmation`),
	footers:      res(`Waiting for user confirmation`),
	headline:     res(`^ ?\?\s+(.+)$`),
}
