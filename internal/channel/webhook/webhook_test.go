package webhook

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/notification"
)

const secret = "0123456789abcdef-secret"

var now = time.Unix(1_800_000_000, 0)

func setup(t *testing.T, query string) (*channeltest.Webhook, *Channel) {
	f := channeltest.NewWebhook(t, secret)
	f.Now = func() time.Time { return now }
	u, _ := url.Parse(f.URL + "/hook" + query)
	cfg, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return f, New(cfg, Options{Now: func() time.Time { return now }})
}

func blocked() notification.Notification {
	return notification.Notification{Kind: notification.KindBlocked, Title: "api", Body: "Allow?", Tag: "block:box/%3",
		Renotify: true, Host: "box", Pane: "%3", Name: "api", Agent: "claude", Fingerprint: "fp",
		Question: &agent.Question{Prompt: "Allow?", Options: []string{"Yes", "No"}}, Nonce: "N0nce",
		Actions: []notification.Action{{Label: "Yes", OptionIndex: 0}}, TTL: 10 * time.Minute, Created: now}
}

func TestSignedPostVerifiedByReceiver(t *testing.T) {
	f, c := setup(t, "?team=ops&attn_secret="+secret)
	res := c.Send(context.Background(), channel.Adapt(blocked(), c.Capabilities(), "https://attn.example.org"))
	if res.Status != channel.StatusDelivered {
		t.Fatalf("result %+v, refused %v", res, f.Refused())
	}
	got := f.Verified()
	if len(got) != 1 {
		t.Fatalf("verified %d", len(got))
	}
	r := got[0]
	if r.Query != "team=ops" || strings.Contains(r.Query, secret) {
		t.Fatalf("query sent %q", r.Query)
	}
	if r.Header.Get(HeaderEvent) != "blocked" || r.Header.Get("Content-Type") != "application/json" || r.Header.Get(HeaderTimestamp) != "1800000000" {
		t.Fatalf("headers %v", r.Header)
	}
	want := `{"kind":"blocked","title":"api","body":"Allow?","tag":"block:box/%3","host":"box","pane":"%3","name":"api","agent":"claude",` +
		`"fingerprint":"fp","question":{"prompt":"Allow?","options":["Yes","No"],"answer_style":"","selected":0},` +
		`"url":"https://attn.example.org/panes/box/%253","priority":4,"nonce":"N0nce",` +
		`"actions":[{"label":"Yes","option_index":0,"answer_url":"https://attn.example.org/api/push/answer"}],` +
		`"created":"2027-01-15T08:00:00Z","expires":"2027-01-15T08:10:00Z"}`
	if string(r.Body) != want {
		t.Fatalf("body\n got %s\nwant %s", r.Body, want)
	}
	if err := Verify(secret, r.Header, r.Body, now.Add(time.Minute), 5*time.Minute); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if err := Verify(secret, r.Header, append(r.Body, ' '), now, 5*time.Minute); err == nil {
		t.Fatal("a changed body verified")
	}
	if err := Verify(secret, r.Header, r.Body, now.Add(time.Hour), 5*time.Minute); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("a stale timestamp verified: %v", err)
	}
	// The receiver refuses the same request again: a replay.
	req, _ := http.NewRequest("POST", f.URL+"/hook", bytes.NewReader(r.Body))
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || f.Refused()[0] != "replayed" {
		t.Fatalf("replay answered %d, refused %v", resp.StatusCode, f.Refused())
	}
}

func TestWrongSecretRefused(t *testing.T) {
	f, c := setup(t, "?attn_secret=another-secret-of-16")
	res := c.Send(context.Background(), channel.Adapt(blocked(), c.Capabilities(), ""))
	if res.Status != channel.StatusFailed || f.Refused()[0] != "bad signature" {
		t.Fatalf("result %+v refused %v", res, f.Refused())
	}
	if strings.Contains(res.Detail, "another-secret") {
		t.Fatal("secret in detail")
	}
}

func TestOutcomes(t *testing.T) {
	f, c := setup(t, "")
	f.Secret = ""
	f.Script(channeltest.Reply{Status: 410}, channeltest.Reply{Status: 503, Header: map[string]string{"Retry-After": "9"}},
		channeltest.Reply{Status: 400, Body: "bad payload"})
	m := channel.Adapt(blocked(), c.Capabilities(), "")
	if r := c.Send(context.Background(), m); r.Status != channel.StatusGone {
		t.Fatalf("410: %+v", r)
	}
	if r := c.Send(context.Background(), m); r.Status != channel.StatusRetry || r.RetryAfter != 9*time.Second {
		t.Fatalf("503: %+v", r)
	}
	if r := c.Send(context.Background(), m); r.Status != channel.StatusFailed || !strings.Contains(r.Detail, "bad payload") {
		t.Fatalf("400: %+v", r)
	}
	if r := c.Send(context.Background(), m); r.Status != channel.StatusDelivered {
		t.Fatalf("204: %+v", r)
	}
}

func TestParse(t *testing.T) {
	for raw, want := range map[string]string{
		"http://hooks.example.org/x":                "over https://",
		"ftp://hooks.example.org/x":                 "want https://",
		"https://u:p@hooks.example.org/x":           "no user:password",
		"https://hooks.example.org/x?attn_secret=s": "too short",
	} {
		u, _ := url.Parse(raw)
		if _, err := Parse(u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", raw, err, want)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:9/x", "http://localhost/x", "http://[::1]/x", "https://hooks.example.org"} {
		u, _ := url.Parse(ok)
		if _, err := Parse(u); err != nil {
			t.Errorf("Parse(%s) = %v", ok, err)
		}
	}
	u, _ := url.Parse("https://hooks.slack.com/services/T000/B000/XXXX?attn_secret=" + secret + "&a=1")
	if got := Redact(u); got != "https://hooks.slack.com/…?a=***&attn_secret=***" {
		t.Fatalf("redacted %s", got)
	}
}
