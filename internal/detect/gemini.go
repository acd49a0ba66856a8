package detect

// gemini is Gemini CLI's table: a first cut from one fixture
// (gemini-shell-confirm.txt).
//
// A confirmation is a box: "?  Shell cmd (description)", the command,
// the prompt and a "●" cursor menu; under the box a braille spinner row
// "Waiting for user confirmation...", which is a footer, not work.
var gemini = &rules{
	name: "gemini",
	titleClues: []clue{
		{re: re(`(?i)\bgemini\b`), weight: 10},
	},
	screenClues: []clue{
		{sub: "Waiting for user confirmation", weight: 4},
		{sub: "Type your message or @path", weight: 4},
	},
	composer: re(`^ ?>(?: |$)`),
	working:  res(`\(esc to cancel`),
	waiting:  res(`Waiting for user confirmation`),
	footers:  res(`Waiting for user confirmation`),
	headline: res(`^ ?\?\s+(.+)$`),
}
