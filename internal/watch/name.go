package watch

import (
	"strings"
	"unicode"

	"github.com/attn-dev/attn/internal/source/tmux"
)

// defaultTitles are titles agent CLIs set for themselves: they name the
// program, not the agent, so the window name is the better name.
var defaultTitles = map[string]bool{
	"claude code": true, "claude": true, "codex": true, "gemini": true, "opencode": true,
	"action required": true,
}

// Name is an agent's display name (DESIGN.md: the pane title or window
// name). The title's leading status glyphs (spinners, ✳) are dropped; a
// title that is empty, the host name (tmux's default), or the CLI's own
// default gives way to the window name, unless that is only the running
// command's name; the pane id is the last resort.
func Name(p tmux.Pane, host string) string {
	title := strings.TrimLeftFunc(p.Title, func(r rune) bool {
		return unicode.IsSpace(r) || r == '\u00a0' || (r >= 0x2800 && r <= 0x28ff) ||
			strings.ContainsRune("✳✶✻✽✢·*●○◐◑◒◓⏺", r)
	})
	title = strings.TrimSpace(title)
	if title != "" && !strings.EqualFold(title, host) && !strings.EqualFold(title, p.Command) &&
		!defaultTitles[strings.ToLower(title)] && !looksLikeHostname(title) {
		return title
	}
	if w := strings.TrimSpace(p.WindowName); w != "" && !strings.EqualFold(w, p.Command) {
		return w
	}
	if p.Session != "" && p.WindowName != "" {
		return p.Session + ":" + p.WindowName
	}
	return p.ID
}

// looksLikeHostname reports tmux's default pane title: the short host name,
// which has no spaces; a real name may also lack spaces, so only dotted
// names (FQDNs) are treated as host names here.
func looksLikeHostname(s string) bool {
	return !strings.ContainsAny(s, " \t") && strings.Count(s, ".") >= 2
}
