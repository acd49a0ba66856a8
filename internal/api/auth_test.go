package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/board"
	"github.com/attn-dev/attn/internal/inapp"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// clock is a fake clock shared by the server and the store.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// webTest is an API over a real store with the web app configured.
type webTest struct {
	s     *Server
	st    *store.Store
	clock *clock
	board *board.Board
	inapp *inapp.Broker
	log   *bytes.Buffer
}

func newWebTest(t *testing.T, web Web) *webTest {
	t.Helper()
	c := &clock{now: time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)}
	st, err := store.Open(context.Background(), t.TempDir(), c.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var logBuf bytes.Buffer
	w := &webTest{st: st, clock: c, board: board.New(), inapp: inapp.NewBroker(), log: &logBuf}
	web.Store, web.InApp = st, w.inapp
	w.s = New(Config{Registry: st, Notifier: &fakeNotifier{}, Kinds: st, Board: w.board, Host: "box",
		Now: c.Now, Token: token, VAPIDPublicKey: "BKEY", Web: web,
		Log: slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	return w
}

// req is one request to the server; it returns the recorder.
type req struct {
	method, path, body string
	bearer             bool
	cookie             string // the credential cookie's value
	origin             string
	host               string
}

func (w *webTest) do(r req) *httptest.ResponseRecorder {
	host := r.host
	if host == "" {
		host = "127.0.0.1:7477"
	}
	hr := httptest.NewRequest(r.method, "http://"+host+r.path, strings.NewReader(r.body))
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	if r.bearer {
		hr.Header.Set("Authorization", "Bearer "+token)
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: w.s.cookieName(), Value: r.cookie})
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	rec := httptest.NewRecorder()
	w.s.ServeHTTP(rec, hr)
	return rec
}

func bodyCode(t *testing.T, rec *httptest.ResponseRecorder) float64 {
	t.Helper()
	var out map[string]any
	json.Unmarshal(rec.Body.Bytes(), &out)
	return errCode(out)
}

const selfOrigin = "http://127.0.0.1:7477"

// mintCode returns a fresh pairing code (the link's fragment).
func (w *webTest) mintCode(t *testing.T) string {
	t.Helper()
	rec := w.do(req{method: "POST", path: "/api/pair", body: "{}", bearer: true})
	var out PairResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &out); rec.Code != 201 || err != nil {
		t.Fatalf("pair: %d %s", rec.Code, rec.Body)
	}
	u, err := url.Parse(out.URL)
	if err != nil || u.Fragment == "" {
		t.Fatalf("pair url %q", out.URL)
	}
	return u.Fragment
}

// signIn redeems a fresh code and returns the credential cookie's value.
func (w *webTest) signIn(t *testing.T, name string) string {
	t.Helper()
	rec := w.do(req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + w.mintCode(t) + `","name":"` + name + `"}`, origin: selfOrigin})
	if rec.Code != 201 {
		t.Fatalf("redeem: %d %s", rec.Code, rec.Body)
	}
	for _, c := range rec.Result().Cookies() {
		if c.Name == w.s.cookieName() {
			return c.Value
		}
	}
	t.Fatal("no credential cookie set")
	return ""
}

func TestPairingLink(t *testing.T) {
	w := newWebTest(t, Web{})
	rec := w.do(req{method: "POST", path: "/api/pair", body: "{}", bearer: true})
	var out PairResponse
	json.Unmarshal(rec.Body.Bytes(), &out)
	if rec.Code != 201 || !strings.HasPrefix(out.URL, "http://127.0.0.1:7477/pair#") || len(out.URL) != len("http://127.0.0.1:7477/pair#")+22 ||
		!out.ExpiresAt.Equal(w.clock.Now().Add(10*time.Minute)) {
		t.Fatalf("pair: %d %+v", rec.Code, out)
	}
	code := strings.TrimPrefix(out.URL, "http://127.0.0.1:7477/pair#")
	if strings.Contains(w.log.String(), code) {
		t.Fatalf("the log holds the pairing code:\n%s", w.log)
	}
	// A public URL starts the links.
	w2 := newWebTest(t, Web{PublicURLs: []string{"https://laptop.example.ts.net"}})
	rec = w2.do(req{method: "POST", path: "/api/pair", body: "{}", bearer: true})
	json.Unmarshal(rec.Body.Bytes(), &out)
	if !strings.HasPrefix(out.URL, "https://laptop.example.ts.net/pair#") {
		t.Fatalf("public pair url %q", out.URL)
	}
	// Only the API token mints links: not a browser, not nobody.
	cookie := w.signIn(t, "phone")
	if rec := w.do(req{method: "POST", path: "/api/pair", body: "{}", cookie: cookie, origin: selfOrigin}); rec.Code != 403 || bodyCode(t, rec) != 40304 {
		t.Fatalf("pair from a browser: %d %s", rec.Code, rec.Body)
	}
	if rec := w.do(req{method: "POST", path: "/api/pair", body: "{}"}); rec.Code != 401 || bodyCode(t, rec) != 40101 {
		t.Fatalf("pair without credential: %d %s", rec.Code, rec.Body)
	}
	// Nothing acts on a GET.
	if rec := w.do(req{method: "GET", path: "/api/pair/redeem?code=" + code}); rec.Code != 405 {
		t.Fatalf("GET redeem: %d", rec.Code)
	}
}

func TestRedeemRefusals(t *testing.T) {
	w := newWebTest(t, Web{})
	used := w.mintCode(t)
	if rec := w.do(req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + used + `"}`, origin: selfOrigin}); rec.Code != 201 {
		t.Fatalf("first use: %d %s", rec.Code, rec.Body)
	}
	expired := w.mintCode(t)
	w.clock.Add(10*time.Minute + time.Second)
	cases := []struct {
		name   string
		r      req
		status int
		code   float64
		msg    string
	}{
		{"no origin", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + w.mintCode(t) + `"}`}, 403, 40305, "Origin"},
		{"foreign origin", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + w.mintCode(t) + `"}`, origin: "https://evil.example"}, 403, 40301, ""},
		{"missing code", req{method: "POST", path: "/api/pair/redeem", body: `{}`, origin: selfOrigin}, 400, 40021, "attn pair"},
		{"malformed code", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"not a code"}`, origin: selfOrigin}, 403, 40303, "attn pair"},
		{"unknown code", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"AAAAAAAAAAAAAAAAAAAAAA"}`, origin: selfOrigin}, 403, 40303, "attn pair"},
		{"reused code", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + used + `"}`, origin: selfOrigin}, 410, 41001, "already used"},
		{"expired code", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + expired + `"}`, origin: selfOrigin}, 410, 41002, "expired"},
		{"not json", req{method: "POST", path: "/api/pair/redeem", body: `code=x`, origin: selfOrigin}, 400, 40001, ""},
		{"long name", req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + w.mintCode(t) + `","name":"` + strings.Repeat("n", 101) + `"}`, origin: selfOrigin}, 400, 40001, "at most 100"},
	}
	for _, c := range cases {
		rec := w.do(c.r)
		if rec.Code != c.status || bodyCode(t, rec) != c.code || !strings.Contains(rec.Body.String(), c.msg) || len(rec.Result().Cookies()) != 0 {
			t.Errorf("%s: %d %s, want %d code %v mentioning %q and no cookie", c.name, rec.Code, rec.Body, c.status, c.code, c.msg)
		}
	}
	creds, _ := w.st.Credentials(context.Background())
	if len(creds) != 1 {
		t.Fatalf("credentials = %+v, want only the first use's", creds)
	}
}

func TestRedeemSetsStrictCookie(t *testing.T) {
	for _, secure := range []bool{false, true} {
		w := newWebTest(t, Web{SecureCookies: secure})
		rec := w.do(req{method: "POST", path: "/api/pair/redeem", body: `{"code":"` + w.mintCode(t) + `","name":"phone"}`, origin: selfOrigin})
		cookies := rec.Result().Cookies()
		if rec.Code != 201 || len(cookies) != 1 {
			t.Fatalf("secure=%v: %d %s %v", secure, rec.Code, rec.Body, cookies)
		}
		c := cookies[0]
		wantName := map[bool]string{false: "attn", true: "__Host-attn"}[secure]
		if c.Name != wantName || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Secure != secure || c.Path != "/" ||
			c.MaxAge != int(CredentialMaxAge/time.Second) || c.Domain != "" || len(c.Value) != 43 {
			t.Fatalf("secure=%v: cookie %+v", secure, c)
		}
		if strings.Contains(w.log.String(), c.Value) {
			t.Fatal("the log holds the credential")
		}
		if rec := w.do(req{method: "GET", path: "/api/session", cookie: c.Value}); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"name":"phone"`) {
			t.Fatalf("session: %d %s", rec.Code, rec.Body)
		}
	}
}

func TestBadCookiesAreRefused(t *testing.T) {
	w := newWebTest(t, Web{})
	good := w.signIn(t, "phone")
	for name, v := range map[string]string{
		"not base64":    "!!!not-base64!!!",
		"short":         "AAAA",
		"unknown":       strings.Repeat("A", 43),
		"good plus one": good + "A",
	} {
		if rec := w.do(req{method: "GET", path: "/api/panes", cookie: v}); rec.Code != 401 || bodyCode(t, rec) != 40101 {
			t.Errorf("%s cookie: %d %s", name, rec.Code, rec.Body)
		}
	}
	// A cookie under the wrong name (a Secure deployment's on plain HTTP)
	// is not a credential either.
	hr := httptest.NewRequest("GET", "http://127.0.0.1:7477/api/panes", nil)
	hr.AddCookie(&http.Cookie{Name: "__Host-attn", Value: good})
	rec := httptest.NewRecorder()
	w.s.ServeHTTP(rec, hr)
	if rec.Code != 401 {
		t.Fatalf("wrong cookie name: %d", rec.Code)
	}
	if rec := w.do(req{method: "GET", path: "/api/panes", cookie: good}); rec.Code != 200 {
		t.Fatalf("good cookie: %d %s", rec.Code, rec.Body)
	}
	// A page for a browser without a credential: the pairing page, 401,
	// never a redirect.
	for _, p := range []string{"/", "/settings", "/panes/box/%253"} {
		rec := w.do(req{method: "GET", path: p, cookie: "AAAA"})
		if rec.Code != 401 || rec.Header().Get("Location") != "" || !strings.Contains(rec.Body.String(), "attn pair") {
			t.Errorf("GET %s with a bad cookie: %d %.100s", p, rec.Code, rec.Body)
		}
	}
}

func TestBrowserWritesNeedOrigin(t *testing.T) {
	w := newWebTest(t, Web{})
	cookie := w.signIn(t, "phone")
	body := `{"name":"pixel"}`
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: body, cookie: cookie}); rec.Code != 403 || bodyCode(t, rec) != 40305 {
		t.Fatalf("no origin: %d %s", rec.Code, rec.Body)
	}
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: body, cookie: cookie, origin: "https://evil.example"}); rec.Code != 403 || bodyCode(t, rec) != 40301 {
		t.Fatalf("foreign origin: %d %s", rec.Code, rec.Body)
	}
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: body, cookie: cookie, origin: selfOrigin}); rec.Code != 200 || !strings.Contains(rec.Body.String(), `"name":"pixel"`) {
		t.Fatalf("same origin: %d %s", rec.Code, rec.Body)
	}
	// The API token acts without an Origin (the CLI), but has no session.
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: body, bearer: true}); rec.Code != 400 || bodyCode(t, rec) != 40022 {
		t.Fatalf("bearer session patch: %d %s", rec.Code, rec.Body)
	}
	// Linking a device that does not exist.
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: `{"device_id":99}`, cookie: cookie, origin: selfOrigin}); rec.Code != 404 || bodyCode(t, rec) != 40402 {
		t.Fatalf("link unknown device: %d %s", rec.Code, rec.Body)
	}
}

func TestRevoke(t *testing.T) {
	w := newWebTest(t, Web{})
	ctx := context.Background()
	phone, laptop := w.signIn(t, "phone"), w.signIn(t, "laptop")
	devID, _, err := w.st.UpsertDevice(ctx, "https://push.example/phone", []byte{4}, []byte{1}, "phone")
	if err != nil {
		t.Fatal(err)
	}
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: `{"device_id":1}`, cookie: phone, origin: selfOrigin}); rec.Code != 200 {
		t.Fatalf("link: %d %s", rec.Code, rec.Body)
	}
	for path, want := range map[string]float64{"/api/credentials/x": 40023, "/api/credentials/99": 40405} {
		if rec := w.do(req{method: "DELETE", path: path, bearer: true}); bodyCode(t, rec) != want {
			t.Errorf("DELETE %s: %d %s", path, rec.Code, rec.Body)
		}
	}
	// The laptop signs the phone out: the phone is refused, its device gone.
	rec := w.do(req{method: "DELETE", path: "/api/credentials/1", cookie: laptop, origin: selfOrigin})
	if rec.Code != 204 || len(rec.Result().Cookies()) != 0 {
		t.Fatalf("revoke phone: %d %v", rec.Code, rec.Result().Cookies())
	}
	if rec := w.do(req{method: "GET", path: "/api/session", cookie: phone}); rec.Code != 401 {
		t.Fatalf("revoked phone: %d", rec.Code)
	}
	if devs, _ := w.st.Devices(ctx); len(devs) != 0 {
		t.Fatalf("devices after revoking the phone = %+v, want its device %d gone", devs, devID)
	}
	// Revoke all: everyone out, the caller's cookie cleared.
	w.signIn(t, "tablet")
	rec = w.do(req{method: "DELETE", path: "/api/credentials", cookie: laptop, origin: selfOrigin})
	if rec.Code != 200 || strings.TrimSpace(rec.Body.String()) != `{"revoked":2}` {
		t.Fatalf("revoke all: %d %s", rec.Code, rec.Body)
	}
	if c := rec.Result().Cookies(); len(c) != 1 || c[0].MaxAge != -1 {
		t.Fatalf("revoke all cookies = %+v, want the credential cleared", c)
	}
	if rec := w.do(req{method: "GET", path: "/api/panes", cookie: laptop}); rec.Code != 401 {
		t.Fatalf("after revoke all: %d", rec.Code)
	}
	// Removing a device by id.
	old, _, _ := w.st.UpsertDevice(ctx, "https://push.example/2", []byte{4}, []byte{1}, "old")
	path := "/api/devices/" + strconv.FormatInt(old, 10)
	if rec := w.do(req{method: "DELETE", path: path, bearer: true}); rec.Code != 204 {
		t.Fatalf("delete device: %d %s", rec.Code, rec.Body)
	}
	if rec := w.do(req{method: "DELETE", path: path, bearer: true}); rec.Code != 404 || bodyCode(t, rec) != 40402 {
		t.Fatalf("delete device again: %d %s", rec.Code, rec.Body)
	}
}

func TestHostGuardWithPublicURL(t *testing.T) {
	plain := newWebTest(t, Web{})
	if rec := plain.do(req{method: "GET", path: "/api/panes", bearer: true, host: "laptop.example.ts.net"}); rec.Code != 403 || bodyCode(t, rec) != 40302 {
		t.Fatalf("public host without --public-url: %d %s", rec.Code, rec.Body)
	}
	w := newWebTest(t, Web{PublicURLs: []string{"https://laptop.example.ts.net"}, SecureCookies: true})
	for _, host := range []string{"laptop.example.ts.net", "LAPTOP.example.ts.net:443", "127.0.0.1:7477"} {
		if rec := w.do(req{method: "GET", path: "/api/panes", bearer: true, host: host}); rec.Code != 200 {
			t.Errorf("Host %s: %d %s", host, rec.Code, rec.Body)
		}
	}
	if rec := w.do(req{method: "GET", path: "/api/panes", bearer: true, host: "evil.example"}); rec.Code != 403 || bodyCode(t, rec) != 40302 {
		t.Fatalf("foreign host: %d", rec.Code)
	}
	// A proxy that rewrites Host to loopback: the browser's public Origin
	// still passes; any other is refused.
	cookie := w.signIn(t, "phone")
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: `{"name":"p"}`, cookie: cookie, origin: "https://laptop.example.ts.net"}); rec.Code != 200 {
		t.Fatalf("public origin via proxy: %d %s", rec.Code, rec.Body)
	}
	if rec := w.do(req{method: "PATCH", path: "/api/session", body: `{"name":"p"}`, cookie: cookie, origin: "https://laptop.example.ts.net.evil.example"}); rec.Code != 403 || bodyCode(t, rec) != 40301 {
		t.Fatalf("lookalike origin: %d %s", rec.Code, rec.Body)
	}
}

func TestWebFiles(t *testing.T) {
	w := newWebTest(t, Web{})
	cookie := w.signIn(t, "phone")
	cases := []struct {
		path, cookie string
		status       int
		ctype        string
	}{
		{"/", cookie, 200, "text/html; charset=utf-8"},
		{"/settings", cookie, 200, "text/html; charset=utf-8"},
		{"/panes/box/%253", cookie, 200, "text/html; charset=utf-8"},
		{"/", "", 401, "text/html; charset=utf-8"},
		{"/sw.js", cookie, 200, "text/javascript; charset=utf-8"},
		{"/sw.js", "", 401, "application/json"},
		{"/app/main.js", cookie, 200, "text/javascript; charset=utf-8"},
		{"/app/main.js", "", 401, "application/json"},
		{"/app/style.css", "", 200, "text/css; charset=utf-8"},
		{"/pair", "", 200, "text/html; charset=utf-8"},
		{"/pair.js", "", 200, "text/javascript; charset=utf-8"},
		{"/manifest.webmanifest", "", 200, "application/manifest+json"},
		{"/icons/icon-192.png", "", 200, "image/png"},
		{"/icons/nope.png", "", 404, "text/plain; charset=utf-8"},
		{"/app/nope.js", cookie, 404, "text/plain; charset=utf-8"},
		{"/embed.go", cookie, 404, "text/plain; charset=utf-8"},
	}
	for _, c := range cases {
		rec := w.do(req{method: "GET", path: c.path, cookie: c.cookie})
		if rec.Code != c.status || rec.Header().Get("Content-Type") != c.ctype || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s (cookie %v): %d %q %q", c.path, c.cookie != "", rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"))
		}
		if c.status == 200 && !strings.Contains(rec.Header().Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("GET %s: CSP %q", c.path, rec.Header().Get("Content-Security-Policy"))
		}
	}
	if rec := w.do(req{method: "POST", path: "/", cookie: cookie, origin: selfOrigin}); rec.Code != 405 {
		t.Fatalf("POST /: %d", rec.Code)
	}
}

func TestSessionTellsAnswerAndRenewsCookie(t *testing.T) {
	w := newWebTest(t, Web{})
	cookie := w.signIn(t, "phone")
	w.clock.Add(30 * 24 * time.Hour)
	rec := w.do(req{method: "GET", path: "/api/session", cookie: cookie})
	var v SessionView
	json.Unmarshal(rec.Body.Bytes(), &v)
	if rec.Code != 200 || v.Credential == nil || v.Credential.Name != "phone" || v.Host != "box" || v.VAPIDPublicKey != "BKEY" ||
		v.Answer != w.s.serves("POST", "/api/push/answer") || !v.Credential.LastSeen.Equal(w.clock.Now()) {
		t.Fatalf("session: %d %+v", rec.Code, v)
	}
	if c := rec.Result().Cookies(); len(c) != 1 || c[0].Value != cookie || c[0].MaxAge != int(CredentialMaxAge/time.Second) {
		t.Fatalf("renewed cookie = %+v", c)
	}
	rec = w.do(req{method: "GET", path: "/api/session", bearer: true})
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"credential":null`) || len(rec.Result().Cookies()) != 0 {
		t.Fatalf("bearer session: %d %s", rec.Code, rec.Body)
	}
}

// sseReader reads events from a live stream.
type sseReader struct {
	t  *testing.T
	sc *bufio.Scanner
}

func (r *sseReader) next() (event, data string) {
	r.t.Helper()
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data = strings.TrimPrefix(line, "data: ")
		case line == "" && event != "":
			return event, data
		}
	}
	r.t.Fatalf("stream ended: %v", r.sc.Err())
	return "", ""
}

func TestEventStream(t *testing.T) {
	w := newWebTest(t, Web{})
	ctx := context.Background()
	devID, _, _ := w.st.UpsertDevice(ctx, "https://push.example/phone", []byte{4}, []byte{1}, "phone")
	other, _, _ := w.st.UpsertDevice(ctx, "https://push.example/other", []byte{4}, []byte{1}, "other")
	cookie := w.signIn(t, "phone")
	w.do(req{method: "PATCH", path: "/api/session", body: `{"device_id":1}`, cookie: cookie, origin: selfOrigin})
	w.board.Replace("box", w.clock.Now(), []board.Pane{{Pane: "%1", Name: "api", Agent: "claude", State: agent.StatusWorking}})
	srv := httptest.NewServer(w.s)
	defer srv.Close()
	open := func(query string) *http.Response {
		hr, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/events"+query, nil)
		hr.AddCookie(&http.Cookie{Name: "attn", Value: cookie})
		resp, err := srv.Client().Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	// Another device's toasts are not this browser's to read.
	if resp := open("?device=2"); resp.StatusCode != 403 {
		t.Fatalf("other device %d: %d", other, resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	if resp := open("?device=x"); resp.StatusCode != 400 {
		t.Fatalf("bad device: %d", resp.StatusCode)
	} else {
		resp.Body.Close()
	}
	resp := open("?device=1")
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	r := &sseReader{t: t, sc: bufio.NewScanner(resp.Body)}
	ev, data := r.next()
	if ev != "panes" || !strings.Contains(data, `"name":"api"`) || !strings.HasPrefix(data, `{"panes":[{"host":"box","pane":"%1"`) {
		t.Fatalf("first event %s %s", ev, data)
	}
	w.board.Replace("box", w.clock.Now(), []board.Pane{{Pane: "%1", Name: "api", Agent: "claude", State: agent.StatusBlocked,
		Question: &agent.Question{Prompt: "Proceed?", Options: []string{"Yes", "No"}}}})
	ev, data = r.next()
	var change struct {
		Seq  uint64 `json:"seq"`
		Pane struct {
			Status   string `json:"status"`
			Question struct {
				Prompt string `json:"prompt"`
			} `json:"question"`
		} `json:"pane"`
	}
	json.Unmarshal([]byte(data), &change)
	if ev != "pane" || change.Seq != 2 || change.Pane.Status != "blocked" || change.Pane.Question.Prompt != "Proceed?" {
		t.Fatalf("change event %s %s", ev, data)
	}
	if !w.inapp.Publish(devID, notification.Notification{Kind: notification.KindAsked, Title: "build", Body: "tests passed"}) {
		t.Fatal("no window took the toast")
	}
	ev, data = r.next()
	if ev != "toast" || !strings.HasPrefix(data, `{"title":"build","body":"tests passed","kind":"asked"`) {
		t.Fatalf("toast event %s %s", ev, data)
	}
	if w.inapp.Publish(other, notification.Notification{Title: "x"}) {
		t.Fatal("another device's toast reached this window")
	}
	// Shutting down ends the stream.
	w.s.CloseStreams()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("stream after CloseStreams: %v", err)
	}
}

// TestErrorCodesAreUnique: clients match on codes, so no two errors of
// the catalog share one.
func TestErrorCodesAreUnique(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`&Error\{http\.\w+, (\d+),`)
	seen := map[string]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			if prev, dup := seen[m[1]]; dup {
				t.Errorf("error code %s is used in %s and %s", m[1], prev, f)
			}
			seen[m[1]] = f
		}
	}
	if len(seen) < 20 {
		t.Fatalf("found only %d error codes", len(seen))
	}
}
