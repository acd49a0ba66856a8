package mcp

import (
	"regexp"
	"strconv"
	"strings"
)

// composerGlyphs start an agent CLI's input row: Claude Code "❯" (older
// ">"), Codex "›", Cursor "→", Copilot ">", bash mode "!".
var composerRow = regexp.MustCompile(`^\s*[│┃]?\s*[❯›>→!](?:\s|$)`)

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)
var otherEscape = regexp.MustCompile(`\x1b(?:\[[0-9;?]*[A-Za-z]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[()][A-Za-z0-9])`)

// ComposerText finds the agent's input row in a screen captured with its
// styles (`tmux capture-pane -p -e`), searching the bottom 30 rows, and
// returns the text typed there: what follows the prompt glyph, without
// placeholder hints, which agents draw faint or grey ("Ask Codex to do
// anything", `Try "…"`) and which are not input. ok is false when no
// input row is on screen.
func ComposerText(styled string) (text string, ok bool) {
	rows := strings.Split(strings.TrimRight(styled, "\n"), "\n")
	for i := len(rows) - 1; i >= 0 && len(rows)-i <= 30; i-- {
		plain := stripEscapes(rows[i])
		if !composerRow.MatchString(plain) {
			continue
		}
		typed := strings.TrimSpace(visibleText(rows[i]))
		typed = strings.TrimLeft(typed, "│┃ ")
		for _, g := range []string{"❯", "›", ">", "→", "!"} {
			if rest, cut := strings.CutPrefix(typed, g); cut {
				typed = rest
				break
			}
		}
		typed = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(typed), "│┃"))
		return typed, true
	}
	return "", false
}

// stripEscapes removes every escape sequence.
func stripEscapes(s string) string {
	return otherEscape.ReplaceAllString(sgr.ReplaceAllString(s, ""), "")
}

// visibleText returns a styled row's text without the runs drawn faint
// (SGR 2) or in grey (bright black 90, 256-colour 8 or 236–250, or an RGB
// grey from 64 to 200), which agents use for placeholder hints.
func visibleText(row string) string {
	var b strings.Builder
	faint := false
	last := 0
	for _, m := range sgr.FindAllStringSubmatchIndex(row, -1) {
		if !faint {
			b.WriteString(row[last:m[0]])
		}
		faint = applySGR(faint, row[m[2]:m[3]])
		last = m[1]
	}
	if !faint {
		b.WriteString(row[last:])
	}
	return otherEscape.ReplaceAllString(b.String(), "")
}

// applySGR returns whether text is faint after the SGR parameters ps.
func applySGR(faint bool, ps string) bool {
	if ps == "" {
		return false
	}
	p := strings.FieldsFunc(ps, func(r rune) bool { return r == ';' || r == ':' })
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case "0":
			faint = false
		case "2", "90":
			faint = true
		case "22", "39":
			faint = false
		case "30", "31", "32", "33", "34", "35", "36", "37", "91", "92", "93", "94", "95", "96", "97":
			faint = false
		case "38":
			if i+2 < len(p) && p[i+1] == "5" {
				n := p[i+2]
				faint = n == "8" || (len(n) == 3 && n >= "236" && n <= "250")
				i += 2
			} else if i+4 < len(p) && p[i+1] == "2" {
				r, g, bl := p[i+2], p[i+3], p[i+4]
				v, err := strconv.Atoi(r)
				faint = err == nil && r == g && g == bl && v >= 64 && v <= 200
				i += 4
			}
		case "48":
			if i+1 < len(p) && p[i+1] == "5" {
				i += 2
			} else if i+1 < len(p) && p[i+1] == "2" {
				i += 4
			}
		}
	}
	return faint
}
