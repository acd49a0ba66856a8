package pushover

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/notification"
)

const (
	appToken = "azGDORePK8gMaC0QOYAMyEEuzJnyUi"
	userKey  = "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"
)

var created = time.Unix(1_800_000_000, 0)

func setup(t *testing.T, query string) (*channeltest.Pushover, *Channel) {
	t.Helper()
	f := channeltest.NewPushover(t, appToken, userKey)
	u, err := url.Parse("pushover://shoutrrr:" + appToken + "@" + userKey + "/" + query)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return f, New(cfg, Options{APIBase: f.URL})
}

func blocked() notification.Notification {
	return notification.Notification{Kind: notification.KindBlocked, Title: "api", Body: "Allow edit?\nclaude on box",
		Tag: "block:box/%3", Renotify: true, Host: "box", Pane: "%3", Fingerprint: "fp", TTL: 10 * time.Minute, Created: created}
}

func send(c *Channel, n notification.Notification) channel.Result {
	return c.Send(context.Background(), channel.Adapt(n, c.Capabilities(), "https://attn.example.org"))
}

func TestFormExactly(t *testing.T) {
	f, c := setup(t, "?devices=phone")
	if res := send(c, blocked()); res.Status != channel.StatusDelivered || res.Ref != "" {
		t.Fatalf("result %+v", res)
	}
	req := f.Requests()[0]
	if req.Path != "/1/messages.json" || req.Header.Get("Content-Type") != "application/x-www-form-urlencoded" {
		t.Fatalf("request %s %v", req.Path, req.Header)
	}
	want := "device=phone&message=Allow+edit%3F%0Aclaude+on+box&priority=1&timestamp=1800000000&title=api&token=" + appToken +
		"&ttl=600&url=https%3A%2F%2Fattn.example.org%2Fpanes%2Fbox%2F%25253&url_title=Open+in+attn&user=" + userKey
	if string(req.Body) != want {
		t.Fatalf("body\n got %s\nwant %s", req.Body, want)
	}
}

func TestFieldLimits(t *testing.T) {
	f, c := setup(t, "")
	n := blocked()
	n.Title = strings.Repeat("t", 400)
	n.Body = strings.Repeat("ü", 3000)
	n.Pane = strings.Repeat("p", 600) // a click URL over 512 characters is left out
	if res := send(c, n); res.Status != channel.StatusDelivered {
		t.Fatalf("result %+v (the fake refuses fields over their limits)", res)
	}
	got := f.Messages()[0]
	if len([]rune(got.Get("title"))) != 250 || len([]rune(got.Get("message"))) != 1024 || got.Get("url") != "" {
		t.Fatalf("title %d message %d url %q", len([]rune(got.Get("title"))), len([]rune(got.Get("message"))), got.Get("url"))
	}
}

func TestPriorityByKind(t *testing.T) {
	f, c := setup(t, "")
	for kind, want := range map[notification.Kind]string{notification.KindBlocked: "1", notification.KindAsked: "1",
		notification.KindError: "0", notification.KindFinished: "-1"} {
		send(c, notification.Notification{Kind: kind, Title: "t", Body: "b", Renotify: true, Created: created})
		msgs := f.Messages()
		if got := msgs[len(msgs)-1].Get("priority"); got != want {
			t.Errorf("%s: priority %s, want %s", kind, got, want)
		}
	}
	n := blocked()
	n.Renotify = false // a silent replacement
	send(c, n)
	msgs := f.Messages()
	if got := msgs[len(msgs)-1].Get("priority"); got != "-1" {
		t.Errorf("silent replacement priority %s", got)
	}
}

func TestEscalationEmergencyThenCancel(t *testing.T) {
	f, c := setup(t, "?retry=45&expire=900")
	n := blocked()
	n.Escalation = true
	res := send(c, n)
	if res.Status != channel.StatusDelivered || res.Ref == "" {
		t.Fatalf("result %+v", res)
	}
	got := f.Messages()[0]
	if got.Get("priority") != "2" || got.Get("retry") != "45" || got.Get("expire") != "900" || got.Get("ttl") != "" {
		t.Fatalf("emergency form %v", got)
	}
	if r := c.Clear(context.Background(), res.Ref); r.Status != channel.StatusDelivered {
		t.Fatalf("cancel %+v", r)
	}
	if cancelled := f.Cancelled(); len(cancelled) != 1 || cancelled[0] != res.Ref {
		t.Fatalf("cancelled %v", cancelled)
	}
	last := f.Requests()[1]
	if last.Path != "/1/receipts/"+res.Ref+"/cancel.json" || string(last.Body) != "token="+appToken {
		t.Fatalf("cancel request %s %s", last.Path, last.Body)
	}
}

func TestEmergencyWithoutRetryRefusedLocally(t *testing.T) {
	f := channeltest.NewPushover(t, appToken, userKey)
	c := New(Config{Token: appToken, User: userKey, Expire: time.Hour}, Options{APIBase: f.URL})
	n := blocked()
	n.Escalation = true
	res := send(c, n)
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "refused before sending") || !strings.Contains(res.Detail, "at least 30 seconds") {
		t.Fatalf("result %+v", res)
	}
	if len(f.Requests()) != 0 {
		t.Fatal("an invalid emergency message was sent")
	}
}

func TestErrorShapes(t *testing.T) {
	f := channeltest.NewPushover(t, appToken, userKey)
	c := New(Config{Token: appToken, User: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", Retry: time.Minute, Expire: time.Hour}, Options{APIBase: f.URL})
	res := send(c, blocked())
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "user identifier is not a valid") || !strings.Contains(res.Detail, "check the token") {
		t.Fatalf("result %+v", res)
	}
	f.Script(channeltest.Reply{Status: 500, Body: `{"status":0,"errors":["internal error"],"request":"x"}`},
		channeltest.Reply{Status: 429, Body: `{"status":0,"errors":["application over its monthly message limit"],"request":"x"}`, Header: map[string]string{"Retry-After": "120"}})
	_, ok := setup(t, "")
	ok.opt.APIBase = f.URL
	if r := send(ok, blocked()); r.Status != channel.StatusRetry || !strings.Contains(r.Detail, "internal error") {
		t.Fatalf("500: %+v", r)
	}
	if r := send(ok, blocked()); r.Status != channel.StatusRetry || r.RetryAfter != 2*time.Minute {
		t.Fatalf("429: %+v", r)
	}
	if strings.Contains(res.Detail, appToken) {
		t.Fatal("token in detail")
	}
}

func TestParse(t *testing.T) {
	for raw, want := range map[string]string{
		"pushover://" + userKey + "/":                                        "application token",
		"pushover://shoutrrr:" + appToken + "@short/":                        "user key",
		"pushover://shoutrrr:" + appToken + "@" + userKey + "/?retry=10":     "at least 30 seconds",
		"pushover://shoutrrr:" + appToken + "@" + userKey + "/?expire=20000": "10800",
		"pushover://shoutrrr:" + appToken + "@" + userKey + "/?retry=x":      "want seconds",
		"pushover://shoutrrr:" + appToken + "@" + userKey + "/?priority=2":   "unknown parameter",
		"gotify://shoutrrr:" + appToken + "@" + userKey + "/":                "want pushover://",
	} {
		u, _ := url.Parse(raw)
		_, err := Parse(u)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", raw, err, want)
		}
		if err != nil && (strings.Contains(err.Error(), appToken) || strings.Contains(err.Error(), userKey)) {
			t.Errorf("secret in error %v", err)
		}
	}
	u, _ := url.Parse("pushover://shoutrrr:" + appToken + "@" + userKey + "/?devices=phone")
	if got := Redact(u); got != "pushover://shoutrrr:***@***/?devices=phone" {
		t.Fatalf("redacted %s", got)
	}
}
