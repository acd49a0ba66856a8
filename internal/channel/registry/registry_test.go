package registry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

const tgToken = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ012345"

func TestParseKindsAndRedaction(t *testing.T) {
	cases := map[string]struct{ kind, redacted, secret string }{
		"ntfy://tk_supersecret@ntfy.sh/mytopic":                                              {"ntfy", "ntfy://***@ntfy.sh/my***", "tk_supersecret"},
		"telegram://" + tgToken + "@telegram?chats=42":                                       {"telegram", "telegram://***@telegram?chats=42", tgToken},
		"pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/": {"pushover", "pushover://shoutrrr:***@***/", "azGDORePK8gMaC0QOYAMyEEuzJnyUi"},
		"gotify://push.example.org/AbCdEf12345678":                                           {"gotify", "gotify://push.example.org/***", "AbCdEf12345678"},
		"fcm://proj?credentials=/etc/attn/sa.json&token=devtok1":                             {"fcm", "fcm://proj?credentials=%2Fetc%2Fattn%2Fsa.json&token=***", "devtok1"},
		"https://hooks.example.org/T0/B0/XyZ?attn_secret=0123456789abcdefgh":                 {"webhook", "https://hooks.example.org/…?attn_secret=***", "0123456789abcdefgh"},
		"desktop://": {"desktop", "desktop://", ""},
	}
	for raw, want := range cases {
		kind, red, err := Parse(raw)
		if err != nil || kind != want.kind || red != want.redacted {
			t.Errorf("Parse(%s) = %s %s %v", raw, kind, red, err)
		}
		if want.secret != "" && strings.Contains(red, want.secret) {
			t.Errorf("secret in %s", red)
		}
	}
}

func TestParseErrorsNeverEchoTheURL(t *testing.T) {
	for raw, want := range map[string]string{
		"slack://xoxb-secret-token@chan":                 "unknown scheme \"slack\"",
		"tk_secret_token":                                "no scheme",
		"ntfy://tk_secret_token@ntfy.sh:port/x":          "not a URL",
		"telegram://123:shortsecret@telegram?chats=1":    "not a bot token",
		"http://hooks.example.org/secret-path-xyz-12345": "https://",
	} {
		_, _, err := Parse(raw)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", raw, err, want)
			continue
		}
		for _, secret := range []string{"xoxb-secret", "tk_secret_token", "shortsecret", "secret-path"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("Parse(%s) error repeats a secret: %v", raw, err)
			}
		}
	}
}

// TestStalledServiceDoesNotDelayAnother runs two real channels through
// the dispatcher: an ntfy server that never answers and a Gotify server
// that does; Gotify's message lands in well under a second.
func TestStalledServiceDoesNotDelayAnother(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	slow := channeltest.NewNtfy(t)
	release := make(chan struct{})
	defer close(release)
	slow.Script(channeltest.Reply{Stall: release, Status: 200, Body: "{}"})
	fast := channeltest.NewGotify(t, "AppToken12345")
	deps := Deps{Store: st}
	d := channel.NewDispatcher(st, channel.Options{Parse: Parse, Open: deps.Open, Decisions: st, AttemptTimeout: 60 * time.Second})
	for name, raw := range map[string]string{
		"slow": "ntfy://" + strings.TrimPrefix(slow.URL, "http://") + "/topic?scheme=http",
		"fast": "gotify://" + strings.TrimPrefix(fast.URL, "http://") + "/AppToken12345?disabletls=yes",
	} {
		if _, err := d.Add(ctx, name, raw, nil); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { d.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	ts, _ := d.Targets(ctx)
	start := time.Now()
	d.Enqueue(ctx, notification.Notification{Kind: notification.KindAsked, Title: "hi", Body: "there", TTL: time.Hour, Created: start}, ts)
	for len(fast.Messages()) == 0 {
		if time.Since(start) > time.Second {
			t.Fatal("the fast channel waited on the stalled one")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(slow.Messages()) != 0 {
		t.Fatal("the stalled server answered")
	}
}

func TestOpenEveryKindWithTheStore(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	f := channeltest.NewFCM(t, "proj")
	sa := filepath.Join(t.TempDir(), "sa.json")
	os.WriteFile(sa, f.ServiceAccountJSON(), 0o600)
	deps := Deps{Store: st, ServerID: "s", ServerName: "box"}
	for _, raw := range []string{"ntfy://ntfy.sh/t", "telegram://" + tgToken + "@telegram?chats=42",
		"pushover://shoutrrr:azGDORePK8gMaC0QOYAMyEEuzJnyUi@uQiRzpo4DXghDmr9QzzfQu27cmVRsG/",
		"gotify://g.example/AbCdEf12345678", "fcm://?credentials=" + sa, "https://h.example/x", "desktop://"} {
		kind, _, err := Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		id, err := st.AddChannel(ctx, kind, kind, raw)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := deps.Open(store.Channel{ID: id, Name: kind, Kind: kind, URL: raw})
		if err != nil || ch.Kind() != kind {
			t.Errorf("Open(%s) = %v, %v", raw, ch, err)
		}
	}
	if _, err := deps.Open(store.Channel{Kind: "fcm", URL: "fcm://?credentials=/nonexistent/sa.json"}); err == nil ||
		!strings.Contains(err.Error(), "must be able to read it") {
		t.Errorf("missing key file: %v", err)
	}
}
