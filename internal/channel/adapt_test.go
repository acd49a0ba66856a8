package channel

import (
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/notification"
)

func TestClipUnits(t *testing.T) {
	cases := []struct {
		s     string
		limit int
		unit  Unit
		want  string
	}{
		{"héllo", 10, Bytes, "héllo"},
		{"héllo wörld", 8, Bytes, "héll…"}, // é is 2 bytes, … is 3
		{"😀😀😀😀", 5, UTF16, "😀😀…"},          // each emoji is 2 UTF-16 units, … is 1
		{"ßßßßß", 3, Runes, "ßß…"},
		{"abc", 0, Bytes, "abc"},
	}
	for _, c := range cases {
		got := Clip(c.s, c.limit, c.unit)
		if got != c.want || (c.limit > 0 && Length(got, c.unit) > c.limit) {
			t.Errorf("Clip(%q, %d, %d) = %q, want %q", c.s, c.limit, c.unit, got, c.want)
		}
	}
}

func TestCleanStripsControl(t *testing.T) {
	if got := HeaderValue("a\r\nX-Injected: 1\x1b[31m"); strings.ContainsAny(got, "\r\n\x1b") || got != "a X-Injected: 1 [31m" {
		t.Fatalf("HeaderValue = %q", got)
	}
	if got := CleanText("line1\r\nline2\x07\tend\x1b"); got != "line1\nline2\tend" {
		t.Fatalf("CleanText = %q", got)
	}
}

func TestAdapt(t *testing.T) {
	n := notification.Notification{Kind: notification.KindBlocked, Title: "", Body: strings.Repeat("x", 50), Host: "h", Pane: "%1",
		Nonce: "n", Actions: []notification.Action{{Label: "Yes", OptionIndex: 0}, {Label: "No", OptionIndex: 1}},
		TTL: time.Minute, Created: time.Unix(100, 0)}
	m := Adapt(n, Capabilities{Click: true, Actions: 1, MaxBody: 10}, "https://a.example/")
	if m.Title != "attn" || m.Body != "xxxxxxx…" || m.Click != "https://a.example/panes/h/%251" || len(m.Actions) != 1 ||
		m.Actions[0].AnswerURL != "https://a.example/api/push/answer" || m.Nonce != "n" || !m.Expires.Equal(time.Unix(160, 0)) ||
		m.Priority != 4 || !m.Silent {
		t.Fatalf("%+v", m)
	}
	m = Adapt(n, Capabilities{}, "https://a.example")
	if m.Nonce != "" || len(m.Actions) != 0 || m.Click != "" || !strings.Contains(m.Dropped[0], "has none") {
		t.Fatalf("%+v", m)
	}
	n.TTL = 0
	if m := Adapt(n, Capabilities{}, ""); m.Expires.Sub(m.Created) != DefaultTTL {
		t.Fatalf("default TTL %v", m.Expires.Sub(m.Created))
	}
}
