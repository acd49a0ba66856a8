package detect

// opencode is OpenCode's table: a first cut from one fixture
// (opencode-permission.txt).
//
// A permission request: "△ Permission required", the kind of action, the
// command ("$ git push …"), then a tab row "[ Allow once ]  [ Allow
// always ]  [ Reject ]" and a footer of key hints. The prompt is the
// heading and the command: "Permission required: git push …".
var opencode = &rules{
	name: "opencode",
	titleClues: []clue{
		{re: re(`(?i)\bopen ?code\b`), weight: 10},
	},
	screenClues: []clue{
		{sub: "Permission required", weight: 1},
	},
	working:      res(`(?i)\besc (?:to )?interrupt\b`),
	footers:      res(`\benter confirm\b`),
	prompt:       res(`^\s*(?:[^\w\s]\s+)?(Permission required)$`),
	promptDetail: re(`^\s*\$\s+(.+)$`),
	tabs:         true,
}
