package watch

import (
	"testing"

	"github.com/attn-dev/attn/internal/source/tmux"
)

func TestName(t *testing.T) {
	cases := []struct {
		p    tmux.Pane
		want string
	}{
		{tmux.Pane{Title: "✳ Claude Code", WindowName: "api", Command: "claude"}, "api"},
		{tmux.Pane{Title: "⠂ Fixing the store tests", WindowName: "api", Command: "node"}, "Fixing the store tests"},
		{tmux.Pane{Title: "box", WindowName: "web", Command: "bash"}, "web"},
		{tmux.Pane{Title: "box.corp.example.org", WindowName: "web", Command: "bash"}, "web"},
		{tmux.Pane{Title: "my agent", WindowName: "claude", Command: "claude"}, "my agent"},
		{tmux.Pane{Title: "✳ Claude Code", WindowName: "claude", Command: "claude", Session: "work"}, "work:claude"},
		{tmux.Pane{ID: "%7", Title: "", Command: "bash"}, "%7"},
		{tmux.Pane{Title: "\u00a0✳\u00a0docs", WindowName: "x"}, "docs"},
	}
	for _, tc := range cases {
		if got := Name(tc.p, "box"); got != tc.want {
			t.Errorf("Name(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
