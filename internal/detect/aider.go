package detect

// aider is Aider's table (fixtures aider-*.txt).
//
// Aider is a line REPL, not a full-screen program: its transcript
// scrolls and the live row is always the last one. At rest that row is
// its input prompt ("> ", or "architect> ", "ask> ", "multi> " in other
// modes), under a rule; while it waits for the model a spinner row
// "<frame> Waiting for <model>" is last, and while it streams an answer
// the answer is, so a last row that is neither a question nor the prompt
// reads working. Its questions are letter prompts on the last row, the
// subject (a file, a command) on the row above: "Add file to the chat?
// (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]:", "Run shell
// command? (Y)es/(N)o/(S)kip all/(D)on't ask again [Yes]:", "Allow edits
// to file that has not been added to the chat? (Y)es/(N)o [Yes]:". They
// are answered by the letter; the options are the words, and Selected
// is the bracketed default, which Enter picks. A prompt already answered
// ("… [Yes]: y") is history. Aider sets no title, and its foreground
// process is usually its Python interpreter ("python3").
//
// Sources: Aider-AI/aider, aider/io.py (confirm_ask) and its callers'
// wordings, as captured from live panes in public test suites; the
// spinner from aider/waiting.py.
var aider = &rules{
	name: "aider",
	titleClues: []clue{
		{re: re(`(?i)\baider\b`), weight: 10},
	},
	screenClues: []clue{
		{sub: "(Y)es/(N)o", weight: 4},
		{sub: "Aider v", weight: 4},
		{sub: "Tokens: ", re: re(`Tokens: [\d.]+k? sent, [\d.]+k? received`), weight: 3},
		{sub: "Main model:", weight: 2},
		{sub: "Repo-map:", weight: 2},
	},
	composer:     re(`^(?:[a-z]+)?>(?: |$)`),
	composerLast: true,
	working:      res(`^\S?\s*Waiting for [\w./:@-]+$`),
	letterPrompt: re(`^(.*?\?)\s+(\([A-Za-z]\)[^\[\]]*?)\s*(?:\[([^\]]*)\])?:$`),
	// The subject row right above the question, when it is a file path.
	headline:     res(`^\s*([\w.@~+-]*[/.][\w.@~/+-]*)$`),
	headlineStop: re(`\S`),
}
