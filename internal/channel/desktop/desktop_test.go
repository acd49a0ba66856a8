package desktop

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/notification"
)

type runner struct {
	path string
	args []string
	out  string
	err  error
}

func (r *runner) run(_ context.Context, path string, args ...string) ([]byte, error) {
	r.path, r.args = path, args
	return []byte(r.out), r.err
}

func msg(c *Channel, title string) channel.Message {
	return channel.Adapt(notification.Notification{Kind: notification.KindBlocked, Title: title, Body: "Allow?\nclaude on box",
		Renotify: true, Created: time.Now()}, c.Capabilities(), "")
}

func TestLinux(t *testing.T) {
	r := &runner{}
	c := New(Config{Sound: true}, Options{GOOS: "linux", LookPath: func(string) (string, error) { return "/usr/bin/notify-send", nil }, Run: r.run})
	if res := c.Send(context.Background(), msg(c, "-api")); res.Status != channel.StatusDelivered {
		t.Fatalf("%+v", res)
	}
	want := "--app-name=attn --urgency=critical --hint=string:sound-name:message-new-instant -- -api Allow?\nclaude on box"
	if r.path != "/usr/bin/notify-send" || strings.Join(r.args, " ") != want {
		t.Fatalf("ran %s %q", r.path, r.args)
	}
}

func TestMacQuotes(t *testing.T) {
	r := &runner{}
	c := New(Config{Sound: true}, Options{GOOS: "darwin", LookPath: func(string) (string, error) { return "/usr/bin/osascript", nil }, Run: r.run})
	c.Send(context.Background(), msg(c, `say "hi" \ bye`))
	want := `display notification "Allow? claude on box" with title "say \"hi\" \\ bye" sound name "Glass"`
	if len(r.args) != 2 || r.args[0] != "-e" || r.args[1] != want {
		t.Fatalf("ran %q", r.args)
	}
}

func TestAbsentSkipped(t *testing.T) {
	c := New(Config{}, Options{GOOS: "linux", LookPath: func(string) (string, error) { return "", errors.New("not found") }})
	res := c.Send(context.Background(), msg(c, "api"))
	if res.Status != channel.StatusSkipped || !strings.Contains(res.Detail, "libnotify-bin") {
		t.Fatalf("%+v", res)
	}
	if res := New(Config{}, Options{GOOS: "plan9"}).Send(context.Background(), msg(c, "api")); res.Status != channel.StatusSkipped {
		t.Fatalf("%+v", res)
	}
}

func TestFailureSaysWhy(t *testing.T) {
	r := &runner{out: "Cannot autolaunch D-Bus without X11 $DISPLAY", err: errors.New("exit status 1")}
	c := New(Config{}, Options{GOOS: "linux", LookPath: func(string) (string, error) { return "notify-send", nil }, Run: r.run})
	if res := c.Send(context.Background(), msg(c, "api")); res.Status != channel.StatusFailed || !strings.Contains(res.Detail, "D-Bus") {
		t.Fatalf("%+v", res)
	}
}

func TestParse(t *testing.T) {
	for raw, sound := range map[string]bool{"desktop://": true, "desktop://?sound=no": false} {
		u, _ := url.Parse(raw)
		if c, err := Parse(u); err != nil || c.Sound != sound {
			t.Errorf("Parse(%s) = %+v %v", raw, c, err)
		}
	}
	for _, raw := range []string{"desktop://host", "desktop://?volume=3"} {
		u, _ := url.Parse(raw)
		if _, err := Parse(u); err == nil {
			t.Errorf("Parse(%s) accepted", raw)
		}
	}
}
