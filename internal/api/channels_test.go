package api

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/channeltest"
	"github.com/attn-dev/attn/internal/channel/registry"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/route"
	"github.com/attn-dev/attn/internal/store"
)

const tgToken = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ012345"

func withChannels(t *testing.T) *Server {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	deps := registry.Deps{Store: st}
	d := channel.NewDispatcher(st, channel.Options{Parse: registry.Parse, Open: deps.Open, Decisions: st,
		KindDefault: func(k string) bool { return route.KindEnabled(nil, notification.Kind(k)) }})
	s, _, _ := newTest(t)
	s.cfg.Channels = d
	return s
}

// raw returns the body of a call, as text.
func raw(s *Server, c call) (int, string) {
	req := httptest.NewRequest(c.method, "http://127.0.0.1:7477"+c.path, strings.NewReader(c.body))
	if !c.noAuth {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w.Code, w.Body.String()
}

func TestChannelsAPI(t *testing.T) {
	s := withChannels(t)
	hook := channeltest.NewWebhook(t, "")
	body, _ := json.Marshal(ChannelRequest{Name: "tg", URL: "telegram://" + tgToken + "@telegram?chats=42", Kinds: map[string]*bool{"finished": ptr(true)}})
	code, text := raw(s, call{method: "POST", path: "/api/channels", body: string(body)})
	if code != 201 || strings.Contains(text, "ABCdefGHI") || !strings.Contains(text, `"url":"telegram://***@telegram?chats=42"`) ||
		!strings.Contains(text, `"finished":true`) {
		t.Fatalf("add: %d %s", code, text)
	}
	if code, out := (call{method: "POST", path: "/api/channels", body: string(body)}).do(s); code != 409 || errCode(out) != 40930 {
		t.Fatalf("duplicate: %d %v", code, out)
	}
	hookBody, _ := json.Marshal(ChannelRequest{Name: "hook", URL: hook.URL + "/x"})
	if code, out := (call{method: "POST", path: "/api/channels", body: string(hookBody)}).do(s); code != 201 {
		t.Fatalf("add webhook: %d %v", code, out)
	}
	code, text = raw(s, call{method: "GET", path: "/api/channels"})
	if code != 200 || strings.Contains(text, "ABCdefGHI") || !strings.Contains(text, `"name":"hook"`) {
		t.Fatalf("list: %d %s", code, text)
	}
	code, out := call{method: "PATCH", path: "/api/channels/tg", body: `{"kinds":{"finished":null,"blocked":false}}`}.do(s)
	kinds, _ := out["channel"].(map[string]any)["kinds"].(map[string]any)
	if code != 200 || kinds["finished"] != false || kinds["blocked"] != false || kinds["asked"] != true {
		t.Fatalf("patch: %d %v", code, out)
	}
	code, out = call{method: "POST", path: "/api/channels/hook/test"}.do(s)
	if code != 200 || out["sent"] != true || len(hook.Requests()) != 1 {
		t.Fatalf("test: %d %v", code, out)
	}
	if code, out := (call{method: "POST", path: "/api/channels/hook/tokens", body: `{"token":"x"}`}).do(s); code != 400 || errCode(out) != 40033 {
		t.Fatalf("token on a webhook: %d %v", code, out)
	}
	if code, _ := (call{method: "DELETE", path: "/api/channels/tg"}).do(s); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	if code, out := (call{method: "DELETE", path: "/api/channels/tg"}).do(s); code != 404 || errCode(out) != 40430 {
		t.Fatalf("delete again: %d %v", code, out)
	}
	if code, _ := (call{method: "GET", path: "/api/channels", noAuth: true}).do(s); code != 401 {
		t.Fatalf("no token: %d", code)
	}
}

func TestBadChannelURLsSayWhatToWrite(t *testing.T) {
	s := withChannels(t)
	for _, tc := range []struct {
		req  ChannelRequest
		code float64
		want string
	}{
		{ChannelRequest{Name: "x", URL: "slack://xoxb-secret-1234@c"}, 40031, "unknown scheme"},
		{ChannelRequest{Name: "x", URL: "telegram://123:ABC@telegram?chats=1"}, 40031, "BotFather"},
		{ChannelRequest{Name: "x", URL: "ntfy://ntfy.sh/"}, 40031, "ntfy://[user:password@|tk_token@]host"},
		{ChannelRequest{Name: "bad name", URL: "desktop://"}, 40030, "1 to 40"},
		{ChannelRequest{Name: "x"}, 40032, "a channel is"},
		{ChannelRequest{Name: "x", URL: "desktop://", Kinds: map[string]*bool{"everything": ptr(true)}}, 40007, "unknown kind"},
	} {
		b, _ := json.Marshal(tc.req)
		code, text := raw(s, call{method: "POST", path: "/api/channels", body: string(b)})
		var out map[string]any
		json.Unmarshal([]byte(text), &out)
		if code != 400 || errCode(out) != tc.code || !strings.Contains(text, tc.want) || strings.Contains(text, "xoxb-secret") {
			t.Errorf("%+v: %d %s", tc.req, code, text)
		}
	}
}

func TestChannelsOff(t *testing.T) {
	s, _, _ := newTest(t)
	if code, out := (call{method: "GET", path: "/api/channels"}).do(s); code != 503 || errCode(out) != 50330 {
		t.Fatalf("%d %v", code, out)
	}
}

func ptr[T any](v T) *T { return &v }
