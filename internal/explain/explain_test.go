package explain

import (
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/store"
)

func TestSentences(t *testing.T) {
	cases := []struct {
		d    store.Decision
		want string
	}{
		{store.Decision{Kind: "blocked", Outcome: "suppressed", Reason: "answered-at-terminal", Age: 2100 * time.Millisecond},
			"not sent: answered at the terminal 2.1s after it appeared"},
		{store.Decision{Kind: "blocked", Outcome: "sent", Device: "phone", Channel: "webpush", Silent: true, Age: 40 * time.Second},
			"sent silently to 'phone': replaced the question shown 40s earlier"},
		{store.Decision{Kind: "finished", Outcome: "suppressed", Reason: "kind-off", Device: "phone"},
			"not sent to 'phone': finished turns are off for this device"},
		{store.Decision{Kind: "blocked", Outcome: "sent", Device: "phone", Channel: "webpush"}, "sent to 'phone'"},
		{store.Decision{Kind: "blocked", Outcome: "sent", Device: "laptop", Channel: "inapp"},
			"shown in the open window on 'laptop' instead of a push"},
		{store.Decision{Kind: "blocked", Outcome: "suppressed", Reason: "focused", Device: "laptop"},
			"not sent to 'laptop': its window is showing this pane"},
		{store.Decision{Kind: "blocked", Outcome: "suppressed", Reason: "ceiling", Detail: "3 pushes for this pane in the last 15m0s"},
			"not sent: runaway ceiling, 3 pushes for this pane in the last 15m0s"},
		{store.Decision{Kind: "blocked", Outcome: "suppressed", Reason: "muted", Detail: "until it next finishes"},
			"not sent: the pane is muted until it next finishes"},
		{store.Decision{Kind: "blocked", Outcome: "failed", Reason: "rejected", Device: "phone", Detail: "400 Bad Request"},
			"failed to 'phone' (rejected): 400 Bad Request"},
		{store.Decision{Kind: "blocked", Outcome: "suppressed", Reason: "no-device"}, "not sent: no device is registered"},
		{store.Decision{Kind: "blocked", Outcome: "suppressed", Reason: "something-new", DeviceID: 4}, "not sent to device 4 (something-new)"},
	}
	for _, tc := range cases {
		if got := Sentence(tc.d); got != tc.want {
			t.Errorf("Sentence(%+v)\n got %q\nwant %q", tc.d, got, tc.want)
		}
	}
}

func TestLinesOldestFirst(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 41, 2, 0, time.UTC)
	rows := []store.Decision{ // newest first, as stored
		{At: at.Add(68 * time.Second), Kind: "blocked", Name: "api", Outcome: "sent", Device: "phone", Channel: "webpush"},
		{At: at, Kind: "blocked", Host: "box", Pane: "%3", Outcome: "suppressed", Reason: "answered-at-terminal", Age: 2100 * time.Millisecond},
	}
	got := strings.Join(Lines(rows, time.UTC), "\n")
	want := "10:41:02  blocked   box/%3  not sent: answered at the terminal 2.1s after it appeared\n" +
		"10:42:10  blocked   api  sent to 'phone'"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
