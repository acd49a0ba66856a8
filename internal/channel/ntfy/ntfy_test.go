package ntfy

import (
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

const public = "https://attn.example.org"

func blocked() notification.Notification {
	return notification.Notification{
		Kind: notification.KindBlocked, Title: "Café ☕ déploiement 🚀", Body: "Allow `rm -rf build`?\nclaude on box",
		Tag: "block:box/%3", Renotify: true, Host: "box", Pane: "%3", Fingerprint: "fp1",
		Question: &agent.Question{Prompt: "Allow?"}, Nonce: "N0nce_abc-123",
		Actions: []notification.Action{{Label: "Yes", OptionIndex: 0}, {Label: "No", OptionIndex: 2}},
		TTL:     10 * time.Minute, Created: time.Now(),
	}
}

func newChannel(t *testing.T, f *channeltest.Ntfy, userinfo string, st channel.State) *Channel {
	t.Helper()
	u, err := url.Parse("ntfy://" + userinfo + strings.TrimPrefix(f.URL, "http://") + "/attn-topic_1?scheme=http")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg, Options{State: st})
}

func send(c *Channel, n notification.Notification, publicURL string) (channel.Message, channel.Result) {
	m := channel.Adapt(n, c.Capabilities(), publicURL)
	return m, c.Send(context.Background(), m)
}

func TestPublishJSONExactly(t *testing.T) {
	f := channeltest.NewNtfy(t)
	f.Token = "tk_secret0123456789"
	c := newChannel(t, f, "tk_secret0123456789@", nil)
	_, res := send(c, blocked(), public)
	if res.Status != channel.StatusDelivered {
		t.Fatalf("result = %+v", res)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/" || r.Header.Get("Content-Type") != "application/json" ||
		r.Header.Get("Authorization") != "Bearer tk_secret0123456789" {
		t.Fatalf("request %s %s %v", r.Method, r.Path, r.Header)
	}
	want := `{"topic":"attn-topic_1","message":"Allow ` + "`rm -rf build`" + `?\nclaude on box","title":"Café ☕ déploiement 🚀","priority":4,` +
		`"tags":["raising_hand"],"click":"https://attn.example.org/panes/box/%253","actions":[` +
		`{"action":"http","label":"Yes","url":"https://attn.example.org/api/push/answer","method":"POST","headers":{"Content-Type":"application/json","X-Attn-Surface":"ntfy"},"body":"{\"nonce\":\"N0nce_abc-123\",\"option_index\":0}","clear":true},` +
		`{"action":"http","label":"No","url":"https://attn.example.org/api/push/answer","method":"POST","headers":{"Content-Type":"application/json","X-Attn-Surface":"ntfy"},"body":"{\"nonce\":\"N0nce_abc-123\",\"option_index\":2}","clear":true},` +
		`{"action":"view","label":"Open","url":"https://attn.example.org/panes/box/%253","clear":false}],` +
		`"sequence_id":"` + SequenceID("block:box/%3") + `"}`
	if string(r.Body) != want {
		t.Fatalf("body\n got %s\nwant %s", r.Body, want)
	}
	// The server read the accents and emoji intact.
	if got := f.Messages()[0].Title; got != "Café ☕ déploiement 🚀" {
		t.Fatalf("title at server = %q", got)
	}
}

func TestBasicAuth(t *testing.T) {
	f := channeltest.NewNtfy(t)
	f.User, f.Password = "phil", "pa:ss"
	c := newChannel(t, f, "phil:pa%3Ass@", nil)
	if _, res := send(c, blocked(), public); res.Status != channel.StatusDelivered {
		t.Fatalf("result = %+v", res)
	}
}

func TestMoreThanThreeActionsCut(t *testing.T) {
	f := channeltest.NewNtfy(t)
	c := newChannel(t, f, "", nil)
	n := blocked()
	for i := range 5 {
		n.Actions = append(n.Actions, notification.Action{Label: "opt", OptionIndex: 10 + i})
	}
	m, res := send(c, n, public)
	if res.Status != channel.StatusDelivered {
		t.Fatalf("result = %+v (the server refuses more than 3 actions)", res)
	}
	if got := len(f.Messages()[0].Actions); got != 3 {
		t.Fatalf("%d actions at the server", got)
	}
	if len(m.Dropped) != 1 || !strings.Contains(m.Dropped[0], "at most 3") {
		t.Fatalf("dropped = %q", m.Dropped)
	}
}

func TestLargeBodyStaysAMessage(t *testing.T) {
	f := channeltest.NewNtfy(t)
	c := newChannel(t, f, "", nil)
	n := blocked()
	n.Body = strings.Repeat("é", 3*1024) // 6 KB
	if _, res := send(c, n, public); res.Status != channel.StatusDelivered {
		t.Fatalf("result = %+v", res)
	}
	got := f.Messages()[0]
	if got.Attachment != nil || len(got.Message) > 4096 || !strings.HasSuffix(got.Message, notification.CutMarker) {
		t.Fatalf("message of %d bytes, attachment %v", len(got.Message), got.Attachment)
	}
}

func TestNoPublicURLNoClickNoButtons(t *testing.T) {
	f := channeltest.NewNtfy(t)
	c := newChannel(t, f, "", nil)
	m, res := send(c, blocked(), "")
	if res.Status != channel.StatusDelivered {
		t.Fatal(res)
	}
	got := f.Messages()[0]
	if got.Click != "" || len(got.Actions) != 0 {
		t.Fatalf("click %q actions %v", got.Click, got.Actions)
	}
	if len(m.Dropped) != 1 || !strings.Contains(m.Dropped[0], "--public-url") {
		t.Fatalf("dropped = %q", m.Dropped)
	}
}

func TestSequenceUpdateThenClear(t *testing.T) {
	f := channeltest.NewNtfy(t)
	f.Sequences = true
	st := &channeltest.MemState{}
	c := newChannel(t, f, "", st)
	if c.Capabilities().Clear {
		t.Fatal("clear claimed before the server showed it takes sequence ids")
	}
	_, first := send(c, blocked(), public)
	sid := SequenceID("block:box/%3")
	if first.Ref != sid || c.Sequences() != "yes" || !c.Capabilities().Replace {
		t.Fatalf("ref %q sequences %q", first.Ref, c.Sequences())
	}
	n := blocked()
	n.Body = "a newer question"
	_, second := send(c, n, public)
	if second.Ref != sid || f.Messages()[1].SequenceID != sid {
		t.Fatalf("update went out without the same sequence id: %+v", f.Messages()[1])
	}
	if res := c.Clear(context.Background(), sid); res.Status != channel.StatusDelivered {
		t.Fatalf("clear: %+v", res)
	}
	last := f.Requests()[2]
	if last.Method != http.MethodPut || last.Path != "/attn-topic_1/"+sid+"/clear" {
		t.Fatalf("clear request %s %s", last.Method, last.Path)
	}
	if v, _ := st.Get(context.Background(), stateSequences); v != "yes" {
		t.Fatalf("state = %q", v)
	}
	// A restart keeps what was learnt.
	if again := newChannel(t, f, "", st); !again.Capabilities().Clear {
		t.Fatal("support forgotten across restart")
	}
}

func TestOlderServerFallback(t *testing.T) {
	f := channeltest.NewNtfy(t)
	st := &channeltest.MemState{}
	c := newChannel(t, f, "", st)
	_, res := send(c, blocked(), public)
	if res.Status != channel.StatusDelivered || res.Ref != "" || c.Sequences() != "no" || c.Capabilities().Clear {
		t.Fatalf("res %+v sequences %q", res, c.Sequences())
	}
	if res := c.Clear(context.Background(), SequenceID("block:box/%3")); res.Status != channel.StatusSkipped {
		t.Fatalf("clear on an older server: %+v", res)
	}
	if n := len(f.Requests()); n != 1 {
		t.Fatalf("%d requests: a clear was sent to a server that cannot take it", n)
	}
}

func TestErrorShapes(t *testing.T) {
	cases := []struct {
		name   string
		reply  channeltest.Reply
		status channel.Status
		detail string
		after  time.Duration
	}{
		{"unauthorized", channeltest.Reply{Status: 401, Body: `{"code":40101,"http":401,"error":"unauthorized","link":"https://ntfy.sh/docs/publish/#authentication"}`},
			channel.StatusFailed, "unauthorized (ntfy code 40101): check the token", 0},
		{"rate limited", channeltest.Reply{Status: 429, Body: channeltest.NtfyErrTooMany, Header: map[string]string{"Retry-After": "7"}},
			channel.StatusRetry, "too many requests", 7 * time.Second},
		{"internal", channeltest.Reply{Status: 500, Body: channeltest.NtfyErrInternal}, channel.StatusRetry, "internal server error (ntfy code 50001)", 0},
		{"bad request", channeltest.Reply{Status: 400, Body: `{"code":40009,"http":400,"error":"invalid request: topic invalid"}`}, channel.StatusFailed, "topic invalid", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := channeltest.NewNtfy(t)
			f.Script(tc.reply)
			c := newChannel(t, f, "tk_secret0123456789@", nil)
			_, res := send(c, blocked(), public)
			if res.Status != tc.status || !strings.Contains(res.Detail, tc.detail) || res.RetryAfter != tc.after {
				t.Fatalf("result = %+v", res)
			}
			if strings.Contains(res.Detail, "tk_secret") {
				t.Fatalf("secret in detail: %s", res.Detail)
			}
		})
	}
}

func TestNetworkErrorShowsNoSecret(t *testing.T) {
	f := channeltest.NewNtfy(t)
	c := newChannel(t, f, "tk_secret0123456789@", nil)
	f.Close()
	_, res := send(c, blocked(), public)
	if res.Status != channel.StatusRetry {
		t.Fatalf("result = %+v", res)
	}
	for _, s := range []string{"tk_secret", "attn-topic_1"} {
		if strings.Contains(res.Detail, s) {
			t.Fatalf("%q in detail %q", s, res.Detail)
		}
	}
}

func TestParse(t *testing.T) {
	good := map[string]Config{
		"ntfy://ntfy.sh/alerts":                      {Base: "https://ntfy.sh", Topic: "alerts"},
		"ntfy://tk_abc@ntfy.example:8080/sub/alerts": {Base: "https://ntfy.example:8080/sub", Topic: "alerts", Token: "tk_abc"},
		"ntfy://:tk_abc@ntfy.example/alerts":         {Base: "https://ntfy.example", Topic: "alerts", Token: "tk_abc"},
		"ntfy://me:pw@10.0.0.2/alerts?scheme=http":   {Base: "http://10.0.0.2", Topic: "alerts", User: "me", Password: "pw"},
	}
	for raw, want := range good {
		u, _ := url.Parse(raw)
		got, err := Parse(u)
		if err != nil || got != want {
			t.Errorf("Parse(%s) = %+v, %v; want %+v", raw, got, err, want)
		}
	}
	bad := map[string]string{
		"ntfy:///alerts":                 "server is missing",
		"ntfy://ntfy.sh/":                "not an ntfy topic",
		"ntfy://ntfy.sh/a b":             "not an ntfy topic",
		"ntfy://ntfy.sh/alerts?prio=5":   "unknown parameter",
		"ntfy://ntfy.sh/alerts?scheme=x": "scheme=https",
		"ntfy://phil@ntfy.sh/alerts":     "neither an access token",
	}
	for raw, want := range bad {
		u, _ := url.Parse(raw)
		if _, err := Parse(u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", raw, err, want)
		}
	}
}

func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"ntfy://tk_abcdef@ntfy.sh/mysecrettopic":    "ntfy://***@ntfy.sh/my***",
		"ntfy://me:hunter2@ntfy.example/x/alerts":   "ntfy://me:***@ntfy.example/x/al***",
		"ntfy://ntfy.sh/ab?scheme=http":             "ntfy://ntfy.sh/***?scheme=http",
		"ntfy://:tk_abcdef@ntfy.sh/mysecrettopic12": "ntfy://***@ntfy.sh/my***",
	} {
		u, _ := url.Parse(raw)
		if got := Redact(u); got != want {
			t.Errorf("Redact(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestPriorityByKind(t *testing.T) {
	f := channeltest.NewNtfy(t)
	c := newChannel(t, f, "", nil)
	for kind, want := range map[notification.Kind]int{notification.KindBlocked: 4, notification.KindAsked: 4,
		notification.KindError: 3, notification.KindFinished: 2} {
		n := notification.Notification{Kind: kind, Title: "t", Body: "b", Created: time.Now()}
		send(c, n, "")
		msgs := f.Messages()
		if got := msgs[len(msgs)-1].Priority; got != want {
			t.Errorf("%s: priority %d, want %d", kind, got, want)
		}
	}
	n := blocked()
	n.Escalation = true
	send(c, n, "")
	msgs := f.Messages()
	if got := msgs[len(msgs)-1].Priority; got != 5 {
		t.Errorf("escalation priority %d", got)
	}
}
