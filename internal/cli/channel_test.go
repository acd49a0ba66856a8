package cli

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/attn-dev/attn/internal/api"
	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/channel/registry"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/route"
	"github.com/attn-dev/attn/internal/store"
)

const cliToken = "cli-test-token-0123456789abcdef"

// daemon serves the channel API over a real store, as `attn serve` does.
func daemon(t *testing.T) string {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	deps := registry.Deps{Store: st}
	d := channel.NewDispatcher(st, channel.Options{Parse: registry.Parse, Open: deps.Open, Decisions: st,
		KindDefault: func(k string) bool { return route.KindEnabled(nil, notification.Kind(k)) }})
	srv := httptest.NewServer(api.New(api.Config{Channels: d, Token: cliToken, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	t.Cleanup(srv.Close)
	t.Setenv("ATTN_TOKEN", cliToken)
	return srv.URL
}

func TestChannelAddListSetTestRemove(t *testing.T) {
	server := daemon(t)
	hook := channeltest.NewWebhook(t, "")
	secret := "tk_verysecrettoken"
	code, out, errOut := run(t, "", "channel", "add", "--server", server, "phone", "ntfy://"+secret+"@ntfy.example/alerts", "finished=on")
	if code != 0 || !strings.Contains(out, "channel phone added: ntfy://***@ntfy.example/al***, interrupts for blocked,asked,finished,error") {
		t.Fatalf("add: %d %q %q", code, out, errOut)
	}
	// The URL from standard input.
	if code, out, errOut := run(t, hook.URL+"/x\n", "channel", "add", "--server", server, "hook", "-"); code != 0 {
		t.Fatalf("add from stdin: %d %q %q", code, out, errOut)
	}
	code, out, _ = run(t, "", "channel", "list", "--server", server)
	if code != 0 || strings.Contains(out, secret) || !strings.Contains(out, "phone") || !strings.Contains(out, "ntfy://***@ntfy.example/al***") ||
		!strings.Contains(out, "never tried") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, out, _ := run(t, "", "channel", "set", "--server", server, "phone", "finished=default", "error=off"); code != 0 ||
		!strings.Contains(out, "interrupts for blocked,asked\n") {
		t.Fatalf("set: %d %q", code, out)
	}
	if code, out, errOut := run(t, "", "channel", "test", "--server", server, "hook"); code != 0 || !strings.Contains(out, "took the test") {
		t.Fatalf("test: %d %q %q", code, out, errOut)
	}
	hook.Script(channeltest.Reply{Status: 403, Body: "forbidden here"})
	if code, _, errOut := run(t, "", "channel", "test", "--server", server, "hook"); code != 1 || !strings.Contains(errOut, "403 Forbidden: forbidden here") {
		t.Fatalf("failed test: %d %q", code, errOut)
	}
	_, out, _ = run(t, "", "channel", "list", "--server", server)
	if !strings.Contains(out, "failed: 403 Forbidden: forbidden here") {
		t.Fatalf("list after failure: %q", out)
	}
	if code, out, _ := run(t, "", "channel", "remove", "--server", server, "phone"); code != 0 || out != "channel phone removed\n" {
		t.Fatalf("remove: %d %q", code, out)
	}
	if code, _, errOut := run(t, "", "channel", "remove", "--server", server, "phone"); code != 1 || !strings.Contains(errOut, "no channel by that name") {
		t.Fatalf("remove again: %d %q", code, errOut)
	}
}

func TestChannelBadInput(t *testing.T) {
	server := daemon(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"add"}, 2, "needs a channel NAME"},
		{[]string{"add", "phone"}, 2, "needs a URL after the name"},
		{[]string{"add", "bad name", "desktop://"}, 2, "1 to 40 letters"},
		{[]string{"add", "phone", "slack://xoxb-secret-tok@c"}, 2, "unknown scheme \"slack\""},
		{[]string{"add", "phone", "ntfy://ntfy.sh"}, 2, "not an ntfy topic"},
		{[]string{"add", "phone", "telegram://123:abc@telegram?chats=1"}, 2, "@BotFather"},
		{[]string{"add", "phone", "pushover://shoutrrr:abc@def/"}, 2, "pushover://shoutrrr:APP_TOKEN@USER_KEY/"},
		{[]string{"add", "phone", "http://hooks.example.org/x"}, 2, "https://"},
		{[]string{"add", "phone", "desktop://", "finished=maybe"}, 2, "KIND=on, KIND=off or KIND=default"},
		{[]string{"add", "phone", "desktop://", "everything=on"}, 1, "unknown kind"},
		{[]string{"set", "phone"}, 2, "nothing to change"},
		{[]string{"test", "nosuch"}, 1, "no channel by that name"},
	}
	for _, tc := range cases {
		args := append([]string{"channel", tc.args[0], "--server", server}, tc.args[1:]...)
		code, _, errOut := run(t, "", args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("attn %v: code %d, stderr %q; want %d mentioning %q", args, code, errOut, tc.code, tc.want)
		}
		if strings.Contains(errOut, "xoxb-secret") {
			t.Errorf("secret echoed: %q", errOut)
		}
	}
}
