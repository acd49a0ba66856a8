package notification

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/attn-dev/attn/internal/agent"
)

func decoded(t *testing.T, b []byte) payload {
	t.Helper()
	var p payload
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("payload is not JSON: %v", err)
	}
	return p
}

func TestPayloadWhole(t *testing.T) {
	n := Notification{Kind: KindBlocked, Title: "api", Body: "Do you want to proceed?\nclaude on box",
		Tag: "block:box/%1", Renotify: true, Host: "box", Pane: "%1", Agent: "claude",
		Question: &agent.Question{Prompt: "Do you want to proceed?", Options: []string{"Yes", "No"}},
		Created:  time.UnixMilli(1_764_493_200_000)}
	b, err := n.Payload(3993)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"title":"api","body":"Do you want to proceed?\nclaude on box","kind":"blocked","tag":"block:box/%1","url":"/panes/box/%251","host":"box","pane":"%1","agent":"claude","renotify":true,"question":{"prompt":"Do you want to proceed?","options":["Yes","No"],"answer_style":"","selected":0},"ts":1764493200000}`
	if string(b) != want {
		t.Fatalf("payload\n got %s\nwant %s", b, want)
	}
}

func TestPayloadCutsToFitExactly(t *testing.T) {
	for _, body := range []string{
		strings.Repeat("a", 10000),
		strings.Repeat("line\n", 3000),   // escapes cost 2 bytes
		strings.Repeat("é漢\u0001", 2000), // multi-byte and \u0001 (6 bytes escaped)
		strings.Repeat("<&>", 3000),      // HTML escapes cost 6 bytes
	} {
		n := Notification{Kind: KindAsked, Title: "t", Body: body,
			Question: &agent.Question{Prompt: "p", Options: []string{strings.Repeat("o", 5000)}}}
		for _, limit := range []int{512, 1000, 3993} {
			b, err := n.Payload(limit)
			if err != nil {
				t.Fatal(err)
			}
			p := decoded(t, b)
			if len(b) > limit || len(b) < limit-6 {
				t.Errorf("limit %d: payload is %d bytes: want the most that fits", limit, len(b))
			}
			if !strings.HasSuffix(p.Body, CutMarker) || !utf8.ValidString(p.Body) || p.Question != nil {
				t.Errorf("limit %d: body %q… question %v", limit, p.Body[:20], p.Question)
			}
			if !strings.HasPrefix(body, strings.TrimSuffix(p.Body, CutMarker)) {
				t.Errorf("limit %d: body is not a prefix of the original", limit)
			}
		}
	}
}

func TestPayloadDropsOptionsFirst(t *testing.T) {
	n := Notification{Kind: KindBlocked, Title: "t", Body: "short",
		Question: &agent.Question{Prompt: "p", Options: []string{strings.Repeat("o", 4000)}}}
	p := decoded(t, must(n.Payload(3993)))
	if p.Body != "short" || p.Question == nil || p.Question.Prompt != "p" || len(p.Question.Options) != 0 {
		t.Fatalf("payload = %+v", p)
	}
}

func TestPayloadCutsTitleLast(t *testing.T) {
	n := Notification{Kind: KindAsked, Title: strings.Repeat("T", 2000), Body: strings.Repeat("b", 2000)}
	p := decoded(t, must(n.Payload(1000)))
	if p.Body != "" || !strings.HasSuffix(p.Title, CutMarker) {
		t.Fatalf("title %d bytes, body %q", len(p.Title), p.Body)
	}
}

func TestPayloadLimitTooSmall(t *testing.T) {
	if _, err := (&Notification{}).Payload(100); err == nil {
		t.Fatal("want an error for a 100-byte limit")
	}
}

func TestTopic(t *testing.T) {
	a := (&Notification{Tag: "block:box/%1"}).Topic()
	b := (&Notification{Tag: "block:box/%2"}).Topic()
	if len(a) != 32 || a == b || strings.ContainsAny(a, "+/=") {
		t.Fatalf("topics %q %q", a, b)
	}
	if (&Notification{}).Topic() != "" {
		t.Fatal("untagged notification has a topic")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
