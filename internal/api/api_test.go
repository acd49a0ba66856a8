package api

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

type fakeRegistry struct {
	devs  map[string]store.Device
	next  int64
	calls int
}

func (f *fakeRegistry) UpsertDevice(_ context.Context, ep string, p, a []byte, name string) (int64, bool, error) {
	f.calls++
	if d, ok := f.devs[ep]; ok {
		return d.ID, false, nil
	}
	f.next++
	f.devs[ep] = store.Device{ID: f.next, Endpoint: ep, P256DH: p, Auth: a, Name: name, Created: time.Unix(1, 0)}
	return f.next, true, nil
}

func (f *fakeRegistry) Devices(context.Context) ([]store.Device, error) {
	var out []store.Device
	for _, d := range f.devs {
		out = append(out, d)
	}
	return out, nil
}

func (f *fakeRegistry) DeleteDeviceByEndpoint(_ context.Context, ep string) error {
	if _, ok := f.devs[ep]; !ok {
		return store.ErrNotFound
	}
	delete(f.devs, ep)
	return nil
}

type fakeNotifier struct{ got []notification.Notification }

func (f *fakeNotifier) Asked(_ context.Context, n notification.Notification) deliver.Report {
	f.got = append(f.got, n)
	return deliver.Report{Sent: true, Transports: []string{"webpush"}}
}

const token = "0123456789abcdef0123456789abcdef-token"

func newTest(t *testing.T) (*Server, *fakeRegistry, *fakeNotifier) {
	reg := &fakeRegistry{devs: map[string]store.Device{}}
	nt := &fakeNotifier{}
	s := New(Config{
		Registry: reg, Notifier: nt, VAPIDPublicKey: "BPUBLIC", Token: token,
		Asked: func(_ context.Context, r NotifyRequest) (notification.Notification, string) {
			return notification.Notification{Kind: notification.KindAsked, Title: "attn", Body: r.Message}, "titled attn: pane gone"
		},
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	return s, reg, nt
}

type call struct {
	method, path, body string
	header             map[string]string
	noAuth             bool
}

func (c call) do(s *Server) (int, map[string]any) {
	req := httptest.NewRequest(c.method, "http://127.0.0.1:7477"+c.path, strings.NewReader(c.body))
	if !c.noAuth {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range c.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	var out map[string]any
	json.Unmarshal(w.Body.Bytes(), &out)
	return w.Code, out
}

func validSub(t *testing.T, endpoint string) string {
	k, _ := ecdh.P256().GenerateKey(rand.Reader)
	auth := make([]byte, 16)
	rand.Read(auth)
	b, _ := json.Marshal(map[string]any{"endpoint": endpoint, "expirationTime": nil, "name": "phone",
		"keys": map[string]string{"p256dh": base64.RawURLEncoding.EncodeToString(k.PublicKey().Bytes()),
			"auth": base64.RawURLEncoding.EncodeToString(auth)}})
	return string(b)
}

func errCode(out map[string]any) float64 {
	e, _ := out["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestSubscribeIsIdempotent(t *testing.T) {
	s, reg, _ := newTest(t)
	body := validSub(t, "https://push.example/sub/1")
	code, out := call{method: "POST", path: "/api/push/subscribe", body: body}.do(s)
	if code != 201 || out["device_id"] != 1.0 || out["created"] != true {
		t.Fatalf("first: %d %v", code, out)
	}
	code, out = call{method: "POST", path: "/api/push/subscribe", body: body}.do(s)
	if code != 200 || out["device_id"] != 1.0 || out["created"] != false {
		t.Fatalf("second: %d %v", code, out)
	}
	if len(reg.devs) != 1 {
		t.Fatalf("devices = %d", len(reg.devs))
	}
}

func TestBadRequestsAreRefusedAndLoseNothing(t *testing.T) {
	s, reg, _ := newTest(t)
	call{method: "POST", path: "/api/push/subscribe", body: validSub(t, "https://push.example/keep")}.do(s)
	longName := strings.Replace(validSub(t, "https://push.example/x"), `"phone"`, `"`+strings.Repeat("n", 101)+`"`, 1)
	cases := []struct {
		name string
		c    call
		code int
		err  float64
		msg  string
	}{
		{"no token", call{method: "POST", path: "/api/push/subscribe", body: "{}", noAuth: true}, 401, 40101, "Bearer"},
		{"wrong token", call{method: "GET", path: "/api/devices", header: map[string]string{"Authorization": "Bearer nope"}, noAuth: true}, 401, 40101, ""},
		{"foreign origin", call{method: "POST", path: "/api/notify", body: `{"message":"x"}`, header: map[string]string{"Origin": "https://evil.example"}}, 403, 40301, ""},
		{"foreign referer", call{method: "POST", path: "/api/notify", body: `{"message":"x"}`, header: map[string]string{"Referer": "https://evil.example/page"}}, 403, 40301, ""},
		{"rebinding host", call{method: "GET", path: "/api/devices", header: map[string]string{"Host": "evil.example:7477"}}, 403, 40302, ""},
		{"not json", call{method: "POST", path: "/api/push/subscribe", body: "endpoint=x"}, 400, 40001, ""},
		{"wrong content type", call{method: "POST", path: "/api/notify", body: "{}", header: map[string]string{"Content-Type": "text/plain"}}, 415, 41501, ""},
		{"http endpoint", call{method: "POST", path: "/api/push/subscribe", body: validSub(t, "http://push.example/1")}, 400, 40002, "endpoint"},
		{"short p256dh", call{method: "POST", path: "/api/push/subscribe", body: `{"endpoint":"https://p.example/1","keys":{"p256dh":"BAAA","auth":"AAAAAAAAAAAAAAAAAAAAAA"}}`}, 400, 40002, "p256dh"},
		{"missing keys", call{method: "POST", path: "/api/push/subscribe", body: `{"endpoint":"https://p.example/1"}`}, 400, 40002, ""},
		{"long name", call{method: "POST", path: "/api/push/subscribe", body: longName}, 400, 40012, "at most 100"},
		{"control characters in the name", call{method: "POST", path: "/api/push/subscribe",
			body: strings.Replace(validSub(t, "https://push.example/y"), `"phone"`, `"a\u001b[31mRED\u202e"`, 1)}, 400, 40012, "control character U+001B"},
		{"huge body", call{method: "POST", path: "/api/notify", body: `{"message":"` + strings.Repeat("a", maxBody) + `"}`}, 413, 41301, ""},
		{"empty message", call{method: "POST", path: "/api/notify", body: `{"message":"  "}`}, 400, 40003, ""},
		{"unsubscribe unknown", call{method: "DELETE", path: "/api/push/subscribe", body: `{"endpoint":"https://push.example/none"}`}, 404, 40401, ""},
		{"unsubscribe no endpoint", call{method: "DELETE", path: "/api/push/subscribe", body: `{}`}, 400, 40004, ""},
		{"notify by GET", call{method: "GET", path: "/api/notify"}, 405, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := tc.c.do(s)
			if code != tc.code || errCode(out) != tc.err {
				t.Fatalf("got %d %v, want %d code %v", code, out, tc.code, tc.err)
			}
			if tc.msg != "" {
				msg, _ := out["error"].(map[string]any)["message"].(string)
				if !strings.Contains(msg, tc.msg) {
					t.Fatalf("message %q does not mention %q", msg, tc.msg)
				}
			}
		})
	}
	if _, ok := reg.devs["https://push.example/keep"]; !ok || len(reg.devs) != 1 {
		t.Fatalf("devices after bad requests = %v, want only the first", reg.devs)
	}
}

func TestVAPIDKeyNeedsNoToken(t *testing.T) {
	s, _, _ := newTest(t)
	code, out := call{method: "GET", path: "/api/push/vapid-public-key", noAuth: true}.do(s)
	if code != 200 || out["publicKey"] != "BPUBLIC" {
		t.Fatalf("%d %v", code, out)
	}
}

func TestSameOriginAllowed(t *testing.T) {
	s, _, _ := newTest(t)
	code, _ := call{method: "GET", path: "/api/devices", header: map[string]string{"Origin": "http://127.0.0.1:7477"}}.do(s)
	if code != 200 {
		t.Fatalf("same-origin request: %d", code)
	}
}

func TestNotifyReportsHonestly(t *testing.T) {
	s, _, nt := newTest(t)
	code, out := call{method: "POST", path: "/api/notify", body: `{"message":"build done","pane":"%99"}`}.do(s)
	if code != 200 || out["sent"] != true || out["title"] != "attn" || out["detail"] != "titled attn: pane gone" {
		t.Fatalf("%d %v", code, out)
	}
	if len(nt.got) != 1 || nt.got[0].Body != "build done" {
		t.Fatalf("delivered = %+v", nt.got)
	}
}

func TestDevicesHideEndpointPath(t *testing.T) {
	s, _, _ := newTest(t)
	call{method: "POST", path: "/api/push/subscribe", body: validSub(t, "https://push.example/secret-capability")}.do(s)
	req := httptest.NewRequest("GET", "http://127.0.0.1:7477/api/devices", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != http.StatusOK || strings.Contains(w.Body.String(), "secret-capability") ||
		!strings.Contains(w.Body.String(), `"push_service":"https://push.example"`) {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
}
