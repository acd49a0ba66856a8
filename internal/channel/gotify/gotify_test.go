package gotify

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

const appToken = "AbCdEf1234567.x"

func setup(t *testing.T) (*channeltest.Gotify, *Channel) {
	f := channeltest.NewGotify(t, appToken)
	u, _ := url.Parse("gotify://" + strings.TrimPrefix(f.URL, "http://") + "/" + appToken + "?disabletls=yes")
	cfg, err := Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return f, New(cfg, Options{})
}

func blocked() notification.Notification {
	return notification.Notification{Kind: notification.KindBlocked, Title: "api ✓", Body: "Allow edit?", Renotify: true,
		Host: "box", Pane: "%3", TTL: time.Minute, Created: time.Now()}
}

func TestMessageExactly(t *testing.T) {
	f, c := setup(t)
	res := c.Send(context.Background(), channel.Adapt(blocked(), c.Capabilities(), "https://attn.example.org"))
	if res.Status != channel.StatusDelivered {
		t.Fatalf("result %+v", res)
	}
	req := f.Requests()[0]
	if req.Path != "/message" || req.Header.Get("X-Gotify-Key") != appToken || req.Query != "" {
		t.Fatalf("request %s ?%s %v", req.Path, req.Query, req.Header)
	}
	want := `{"title":"api ✓","message":"Allow edit?","priority":8,"extras":{"client::display":{"contentType":"text/plain"},` +
		`"client::notification":{"click":{"url":"https://attn.example.org/panes/box/%253"}}}}`
	if string(req.Body) != want {
		t.Fatalf("body\n got %s\nwant %s", req.Body, want)
	}
}

func TestErrorShapes(t *testing.T) {
	f, c := setup(t)
	f.Script(channeltest.Reply{Status: 401, Body: `{"error":"Unauthorized","errorCode":401,"errorDescription":"you need to provide a valid access token or user credentials to access this api"}`},
		channeltest.Reply{Status: 503, Body: `{"error":"Service Unavailable","errorCode":503,"errorDescription":"down"}`, Header: map[string]string{"Retry-After": "5"}})
	res := c.Send(context.Background(), channel.Adapt(blocked(), c.Capabilities(), ""))
	if res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "valid access token") || !strings.Contains(res.Detail, "app token") {
		t.Fatalf("401: %+v", res)
	}
	res = c.Send(context.Background(), channel.Adapt(blocked(), c.Capabilities(), ""))
	if res.Status != channel.StatusRetry || res.RetryAfter != 5*time.Second {
		t.Fatalf("503: %+v", res)
	}
	f.Close()
	res = c.Send(context.Background(), channel.Adapt(blocked(), c.Capabilities(), ""))
	if res.Status != channel.StatusRetry || strings.Contains(res.Detail, appToken) {
		t.Fatalf("network: %+v", res)
	}
}

func TestPriorityByKind(t *testing.T) {
	f, c := setup(t)
	for kind, want := range map[notification.Kind]int{notification.KindBlocked: 8, notification.KindError: 5, notification.KindFinished: 3} {
		c.Send(context.Background(), channel.Adapt(notification.Notification{Kind: kind, Title: "t", Renotify: true, Created: time.Now()}, c.Capabilities(), ""))
		msgs := f.Messages()
		if got := msgs[len(msgs)-1].Priority; got != want {
			t.Errorf("%s: %d, want %d", kind, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	u, _ := url.Parse("gotify://push.example.org/gotify/" + appToken)
	cfg, err := Parse(u)
	if err != nil || cfg.Base != "https://push.example.org/gotify" || cfg.Token != appToken {
		t.Fatalf("%+v %v", cfg, err)
	}
	if got := Redact(u); got != "gotify://push.example.org/gotify/***" {
		t.Fatalf("redacted %s", got)
	}
	for raw, want := range map[string]string{
		"gotify:///" + appToken:                         "server is missing",
		"gotify://push.example.org/":                    "application token",
		"gotify://push.example.org/x?disabletls=maybe":  "application token",
		"gotify://push.example.org/" + appToken + "?a=": "unknown parameter",
	} {
		u, _ := url.Parse(raw)
		if _, err := Parse(u); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want %q", raw, err, want)
		}
	}
}
