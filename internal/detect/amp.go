package detect

// amp is Sourcegraph Amp's CLI table (fixtures amp-*.txt).
//
// Its screen: the thread, then the input box, whose top border carries
// the context use and cost ("╭─100% of 272k · $1.20───╮") and whose
// bottom border the directory; while it works a "≈ Running tools...
// Esc to cancel" row sits above the box. An approval in the thread asks
// "Invoke tool <name>?", "Run this command?" or "Allow editing file:" /
// "Allow creating file:" over its subject, then an unnumbered radio
// menu, the selected row marked "▸●" and the others "○", each with its
// key ("[Alt+1]"): "Approve", "Allow All for This Session", "Allow All
// for Every Session" (or "Allow File for Every Session"), "Deny with
// feedback"; "Waiting for approval..." under it.
//
// Sources: Amp's owner's manual (the permission rules that ask) and the
// approval screens transcribed in herdr's detector tests (src/detect.rs).
var amp = &rules{
	name: "amp",
	titleClues: []clue{
		{re: re(`(?i)^amp\b`), weight: 10},
	},
	screenClues: []clue{
		{sub: "Allow All for This Session", weight: 4},
		{sub: "≈ Running tools", weight: 4},
		{sub: "Deny with feedback", weight: 3},
		{sub: "% of ", re: re(`% of \d+k\b`), weight: 3},
		{sub: "Waiting for approval", weight: 2},
		{sub: "Allow All for Every Session", weight: 2},
	},
	composer:   re(`^╭─.*╮$`),
	statusScan: 2,
	working:    res(`(?i)\besc to cancel\b`),
	waiting:    res(`^\s*Waiting for approval`),
	footers:    res(`^\s*Waiting for approval`),
	prompt: res(
		`^\s*(Invoke tool .+\?)$`,
		`^\s*(Run this command\?)$`,
		`^\s*(Allow (?:editing|creating) file:)$`,
	),
	plainMenu: true,
}
