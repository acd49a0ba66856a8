package fcm

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/notification"
)

func setup(t *testing.T, tokens ...string) (*channeltest.FCM, *channeltest.MemTokens, *Channel) {
	t.Helper()
	f := channeltest.NewFCM(t, "attn-test")
	path := filepath.Join(t.TempDir(), "sa.json")
	os.WriteFile(path, f.ServiceAccountJSON(), 0o600)
	u, _ := url.Parse("fcm://?credentials=" + path)
	cfg, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	toks := &channeltest.MemTokens{}
	for _, tok := range tokens {
		toks.Register(tok)
	}
	c, err := Open(cfg, Options{Endpoint: f.URL, Tokens: toks, ServerID: "srv1", ServerName: "Mac Studio"})
	if err != nil {
		t.Fatal(err)
	}
	return f, toks, c
}

func blocked() notification.Notification {
	return notification.Notification{Kind: notification.KindBlocked, Title: "api", Body: "Allow edit?\nclaude on box",
		Name: "api", Tag: "block:box/%3", Renotify: true, Host: "box", Pane: "%3", Fingerprint: "fp1",
		Question: &agent.Question{Prompt: "Allow edit?", Options: []string{"Yes", "No"}, Selected: 0},
		Nonce:    "N0nce", Actions: []notification.Action{{Label: "Yes", OptionIndex: 0}, {Label: "No", OptionIndex: 1}},
		TTL: 10 * time.Minute, Created: time.Now()}
}

func send(c *Channel, n notification.Notification) channel.Result {
	return c.Send(context.Background(), channel.Adapt(n, c.Capabilities(), "https://attn.example.org"))
}

func TestAlertPair(t *testing.T) {
	f, _, c := setup(t, "tokA")
	if res := send(c, blocked()); res.Status != channel.StatusDelivered || res.Ref != "box/%3" {
		t.Fatalf("result %+v", res)
	}
	msgs := f.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the os and app pair", len(msgs))
	}
	osHalf, appHalf := msgs[0], msgs[1]
	if osHalf.Data["render"] != "os" || appHalf.Data["render"] != "app" || appHalf.Notification != nil {
		t.Fatalf("pair %+v / %+v", osHalf, appHalf)
	}
	if osHalf.Notification["title"] != "api" || osHalf.Notification["body"] != "Allow edit?\nclaude on box" {
		t.Fatalf("notification %v", osHalf.Notification)
	}
	an := osHalf.Android.Notification
	if osHalf.Android.Priority != "HIGH" || osHalf.Android.CollapseKey != "srv1/box/%3" || an.Tag != "srv1/box/%3" ||
		an.ChannelID != ChannelBlocked || an.NotificationPriority != "PRIORITY_HIGH" || !an.DefaultSound || osHalf.Android.TTL == "" {
		t.Fatalf("android %+v %+v", osHalf.Android, an)
	}
	if appHalf.Android.Priority != "HIGH" || appHalf.Android.CollapseKey != "srv1/box/%3" || appHalf.Android.Notification != nil {
		t.Fatalf("app android %+v", appHalf.Android)
	}
	want := map[string]string{"type": "alert", "agent": "box/%3", "status": "blocked", "kind": "blocked",
		"server_id": "srv1", "server_name": "Mac Studio", "agent_title": "api", "title": "api",
		"body": "Allow edit?\nclaude on box", "question": "Allow edit?", "url": "/panes/box/%253", "fingerprint": "fp1",
		"options": `[{"index":0,"label":"Yes","selected":true},{"index":1,"label":"No","selected":false}]`,
		"actions": `[{"label":"Yes","option_index":0},{"label":"No","option_index":1}]`, "nonce": "N0nce"}
	for k, v := range want {
		if osHalf.Data[k] != v || appHalf.Data[k] != v {
			t.Errorf("data[%s] = %q / %q, want %q", k, osHalf.Data[k], appHalf.Data[k], v)
		}
	}
	if osHalf.Data["ts"] == "" {
		t.Error("no ts")
	}
	for _, r := range f.Requests() {
		if strings.HasSuffix(r.Path, ":send") && r.Header.Get("Authorization") != "Bearer ya29.fake-1" {
			t.Fatalf("authorization %q", r.Header.Get("Authorization"))
		}
	}
	if f.TokenCalls() != 1 {
		t.Fatalf("%d access tokens fetched for one send: not cached", f.TokenCalls())
	}
}

func TestFinishedUsesQuietChannel(t *testing.T) {
	f, _, c := setup(t, "tokA")
	send(c, notification.Notification{Kind: notification.KindFinished, Title: "api", Body: "Finished", Host: "box", Pane: "%3", Created: time.Now()})
	m := f.Messages()[0]
	if m.Android.Notification.ChannelID != ChannelDone || m.Data["status"] != "done" {
		t.Fatalf("%+v %v", m.Android.Notification, m.Data)
	}
}

func TestBodyCutTo240Runes(t *testing.T) {
	f, _, c := setup(t, "tokA")
	n := blocked()
	n.Body = strings.Repeat("ß", 500)
	send(c, n)
	if got := []rune(f.Messages()[0].Notification["body"]); len(got) != 240 {
		t.Fatalf("body of %d runes", len(got))
	}
}

func TestUnregisteredDroppedThenRevived(t *testing.T) {
	f, toks, c := setup(t, "tokA", "tokB")
	f.Unregister("tokA")
	if res := send(c, blocked()); res.Status != channel.StatusDelivered {
		t.Fatalf("result %+v (tokB still works)", res)
	}
	list, _ := toks.Tokens(context.Background())
	if list[0].Dropped.IsZero() || !strings.Contains(list[0].Detail, "UNREGISTERED") || !list[1].Dropped.IsZero() {
		t.Fatalf("tokens %+v", list)
	}
	before := len(f.Requests())
	send(c, blocked())
	for _, r := range f.Requests()[before:] {
		if strings.Contains(string(r.Body), `"tokA"`) {
			t.Fatal("a dropped token was sent to")
		}
	}
	// Only tokA left, and unregistered: gone.
	f.Unregister("tokB")
	if res := send(c, blocked()); res.Status != channel.StatusGone {
		t.Fatalf("result %+v", res)
	}
	if res := send(c, blocked()); res.Status != channel.StatusGone || !strings.Contains(res.Detail, "registers again") {
		t.Fatalf("result %+v", res)
	}
	// The app registers the same token again.
	f.Register("tokA")
	toks.Register("tokA")
	if res := send(c, blocked()); res.Status != channel.StatusDelivered {
		t.Fatalf("after re-registration: %+v", res)
	}
}

func TestDismiss(t *testing.T) {
	f, _, c := setup(t, "tokA")
	res := send(c, blocked())
	if r := c.Clear(context.Background(), res.Ref); r.Status != channel.StatusDelivered {
		t.Fatalf("clear %+v", r)
	}
	reqs := f.Requests()
	var body struct {
		Message map[string]json.RawMessage `json:"message"`
	}
	json.Unmarshal(reqs[len(reqs)-1].Body, &body)
	if _, has := body.Message["notification"]; has {
		t.Fatal("a dismiss draws a notification")
	}
	if string(body.Message["data"]) != `{"agent":"box/%3","server_id":"srv1","server_name":"Mac Studio","type":"dismiss"}` ||
		string(body.Message["android"]) != `{"priority":"HIGH","collapse_key":"srv1/box/%3"}` {
		t.Fatalf("dismiss %s %s", body.Message["data"], body.Message["android"])
	}
}

func TestErrorShapes(t *testing.T) {
	cases := []struct {
		reply  channeltest.Reply
		status channel.Status
		detail string
		after  time.Duration
	}{
		{channeltest.FCMError(400, "INVALID_ARGUMENT", "INVALID_ARGUMENT", "Invalid value at 'message.data'"), channel.StatusFailed, "fcm INVALID_ARGUMENT", 0},
		{func() channeltest.Reply {
			r := channeltest.FCMError(429, "RESOURCE_EXHAUSTED", "QUOTA_EXCEEDED", "Quota exceeded")
			r.Header = map[string]string{"Retry-After": "30"}
			return r
		}(), channel.StatusRetry, "QUOTA_EXCEEDED", 30 * time.Second},
		{channeltest.FCMError(503, "UNAVAILABLE", "UNAVAILABLE", "The service is currently unavailable."), channel.StatusRetry, "UNAVAILABLE", 0},
		{channeltest.FCMError(500, "INTERNAL", "INTERNAL", "Internal error"), channel.StatusRetry, "INTERNAL", 0},
		{channeltest.FCMError(403, "PERMISSION_DENIED", "THIRD_PARTY_AUTH_ERROR", "auth"), channel.StatusFailed, "Admin role", 0},
	}
	for _, tc := range cases {
		f, _, c := setup(t, "tokA")
		c.tokSrc.Token() // fetch the access token first: the script is for the send
		f.Script(tc.reply)
		res := send(c, blocked())
		if res.Status != tc.status || !strings.Contains(res.Detail, tc.detail) || res.RetryAfter != tc.after {
			t.Errorf("%s: result %+v", tc.detail, res)
		}
		if strings.Contains(res.Detail, "tokA") || strings.Contains(res.Detail, "ya29") {
			t.Errorf("secret in detail %q", res.Detail)
		}
	}
}

func TestKeyRefused(t *testing.T) {
	f, _, c := setup(t, "tokA")
	f.Script(channeltest.Reply{Status: 400, Body: `{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`})
	res := send(c, blocked())
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "Invalid JWT Signature") || !strings.Contains(res.Detail, "new key") {
		t.Fatalf("result %+v", res)
	}
}

func TestNoTokens(t *testing.T) {
	_, _, c := setup(t)
	if res := send(c, blocked()); res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "/tokens") {
		t.Fatalf("result %+v", res)
	}
}

func TestURLTokensEnsuredNotRevived(t *testing.T) {
	f := channeltest.NewFCM(t, "attn-test")
	path := filepath.Join(t.TempDir(), "sa.json")
	os.WriteFile(path, f.ServiceAccountJSON(), 0o600)
	u, _ := url.Parse("fcm://attn-test?credentials=" + path + "&token=tokU")
	cfg, _ := Parse(u)
	toks := &channeltest.MemTokens{}
	toks.Ensure(context.Background(), "tokU")
	toks.Drop(context.Background(), "tokU", "gone")
	c, err := Open(cfg, Options{Endpoint: f.URL, Tokens: toks, ServerID: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if res := send(c, blocked()); res.Status != channel.StatusGone {
		t.Fatalf("a dropped URL token was revived by a restart: %+v", res)
	}
}

func TestOpenAndParseErrors(t *testing.T) {
	dir := t.TempDir()
	notSA := filepath.Join(dir, "user.json")
	os.WriteFile(notSA, []byte(`{"type":"authorized_user"}`), 0o600)
	for path, want := range map[string]string{filepath.Join(dir, "missing.json"): "attn serve must be able to read it", notSA: "not a service account key"} {
		if _, err := Open(Config{Project: "p", Credentials: path}, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v", path, err)
		}
	}
	for raw, want := range map[string]string{
		"fcm://p":                        "credentials= must be",
		"fcm://p?credentials=rel.json":   "absolute path",
		"fcm://p?credentials=/a&color=1": "unknown parameter",
	} {
		u, _ := url.Parse(raw)
		if _, err := Parse(u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v", raw, err)
		}
	}
	u, _ := url.Parse("fcm://p?credentials=/etc/sa.json&token=secrettok&token=other")
	if got := Redact(u); got != "fcm://p?credentials=%2Fetc%2Fsa.json&token=***" {
		t.Fatalf("redacted %s", got)
	}
}
