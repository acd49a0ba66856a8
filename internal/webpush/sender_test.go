package webpush

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newTestSender(t testing.TB) *Sender {
	t.Helper()
	key, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	return &Sender{Key: key, Contact: "mailto:ops@attn.example", Now: func() time.Time { return testNow }}
}

// captured is one request as a push service saw it.
type captured struct {
	method, path string
	header       http.Header
	body         []byte
}

func TestSendHeadersAndBody(t *testing.T) {
	ua, sub := newTestUA(t)
	var got atomic.Pointer[captured]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got.Store(&captured{r.Method, r.URL.Path, r.Header.Clone(), body})
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	sub.Endpoint = srv.URL + "/push/v1/CAPABILITY"
	s := newTestSender(t)

	for _, tc := range []struct {
		name string
		msg  Message
		want map[string]string // "" means absent
	}{
		{"all headers", Message{Payload: []byte(`{"title":"api"}`), TTL: 10 * time.Minute, Urgency: "high", Topic: "block-host1_pane2"},
			map[string]string{"Ttl": "600", "Urgency": "high", "Topic": "block-host1_pane2"}},
		{"fractional TTL, no urgency or topic", Message{Payload: []byte("hi"), TTL: 90*time.Second + 900*time.Millisecond},
			map[string]string{"Ttl": "90", "Urgency": "", "Topic": ""}},
		{"very-low", Message{Payload: []byte("x"), TTL: 24 * time.Hour, Urgency: "very-low"},
			map[string]string{"Ttl": "86400", "Urgency": "very-low", "Topic": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := s.Send(context.Background(), sub, tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if res != (Result{Status: 201, Outcome: Delivered, Detail: "201 Created"}) {
				t.Fatalf("result %+v", res)
			}
			c := got.Load()
			if c.method != http.MethodPost || c.path != "/push/v1/CAPABILITY" {
				t.Errorf("request %s %s", c.method, c.path)
			}
			want := map[string]string{
				"Content-Encoding": "aes128gcm",
				"Content-Type":     "application/octet-stream",
				"Content-Length":   strconv.Itoa(len(tc.msg.Payload) + 103),
			}
			for k, v := range tc.want {
				want[k] = v
			}
			for k, v := range want {
				if vs := c.header.Values(k); v == "" && len(vs) != 0 || v != "" && (len(vs) != 1 || vs[0] != v) {
					t.Errorf("header %s = %q, want %q", k, vs, v)
				}
			}
			p := parseAuthorization(t, c.header.Get("Authorization"), s.Key)
			if p.aud != srv.URL || p.sub != s.Contact || p.exp != testNow.Add(12*time.Hour).Unix() {
				t.Errorf("JWT aud %q sub %q exp %d", p.aud, p.sub, p.exp)
			}
			plain, err := testDecrypt(c.body, ua.Bytes(), sub.Auth)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(plain, tc.msg.Payload) {
				t.Errorf("decrypted %q, want %q", plain, tc.msg.Payload)
			}
		})
	}
}

func TestSendOutcomes(t *testing.T) {
	_, sub := newTestUA(t)
	date := func(d time.Duration) string { return testNow.Add(d).Format(http.TimeFormat) }
	for _, tc := range []struct {
		status     int
		body       string
		retryAfter string
		want       Result
	}{
		{200, "", "", Result{Status: 200, Outcome: Delivered, Detail: "200 OK"}},
		{201, "", "", Result{Status: 201, Outcome: Delivered, Detail: "201 Created"}},
		{202, "", "", Result{Status: 202, Outcome: Delivered, Detail: "202 Accepted"}},
		{201, "queued", "", Result{Status: 201, Outcome: Delivered, Detail: "201 Created: queued"}},
		{404, "", "", Result{Status: 404, Outcome: Gone, Detail: "404 Not Found"}},
		{410, `{"reason":"Push subscription has unsubscribed or expired."}`, "", Result{Status: 410, Outcome: Gone,
			Detail: `410 Gone: {"reason":"Push subscription has unsubscribed or expired."}`}},
		{401, "", "", Result{Status: 401, Outcome: Unauthorized, Detail: "401 Unauthorized"}},
		{403, `{"reason":"BadJwtToken"}`, "", Result{Status: 403, Outcome: Unauthorized, Detail: `403 Forbidden: {"reason":"BadJwtToken"}`}},
		{413, "", "", Result{Status: 413, Outcome: TooLarge, Detail: "413 Request Entity Too Large"}},
		{429, "", "120", Result{Status: 429, Outcome: RetryLater, RetryAfter: 120 * time.Second, Detail: "429 Too Many Requests"}},
		{429, "", " 7 ", Result{Status: 429, Outcome: RetryLater, RetryAfter: 7 * time.Second, Detail: "429 Too Many Requests"}},
		{429, "", "", Result{Status: 429, Outcome: RetryLater, Detail: "429 Too Many Requests"}},
		{429, "", "soon", Result{Status: 429, Outcome: RetryLater, Detail: "429 Too Many Requests"}},
		{429, "", "-5", Result{Status: 429, Outcome: RetryLater, Detail: "429 Too Many Requests"}},
		{503, "", date(90 * time.Second), Result{Status: 503, Outcome: RetryLater, RetryAfter: 90 * time.Second, Detail: "503 Service Unavailable"}},
		{503, "", date(-time.Hour), Result{Status: 503, Outcome: RetryLater, Detail: "503 Service Unavailable"}},
		{500, "", "", Result{Status: 500, Outcome: RetryLater, Detail: "500 Internal Server Error"}},
		{599, "", "3", Result{Status: 599, Outcome: RetryLater, RetryAfter: 3 * time.Second, Detail: "599"}},
		{400, "bad\n\tTTL\x00header", "60", Result{Status: 400, Outcome: Rejected, Detail: "400 Bad Request: bad TTL header"}},
		{204, "", "", Result{Status: 204, Outcome: Rejected, Detail: "204 No Content"}},
		{307, "", "", Result{Status: 307, Outcome: Rejected, Detail: "307 Temporary Redirect"}},
		{405, "", "", Result{Status: 405, Outcome: Rejected, Detail: "405 Method Not Allowed"}},
	} {
		t.Run(strconv.Itoa(tc.status)+" "+tc.body+" "+tc.retryAfter, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				if tc.status == 307 {
					w.Header().Set("Location", "/elsewhere")
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			sub := sub
			sub.Endpoint = srv.URL + "/push/CAPABILITY"
			s := newTestSender(t)
			s.Client = NewHTTPClient()
			res, err := s.Send(context.Background(), sub, Message{Payload: []byte("hello"), TTL: time.Minute})
			if res != tc.want {
				t.Errorf("result\n got %+v\nwant %+v", res, tc.want)
			}
			if tc.want.Outcome == Delivered {
				if err != nil {
					t.Errorf("error %v for a delivery", err)
				}
				return
			}
			if !errors.Is(err, ErrNotDelivered) {
				t.Fatalf("error %v does not wrap ErrNotDelivered", err)
			}
			if errors.Is(err, ErrTooLarge) != (tc.want.Outcome == TooLarge) {
				t.Errorf("error %v: wraps ErrTooLarge = %v", err, errors.Is(err, ErrTooLarge))
			}
			wantText := "webpush: not delivered: " + srv.URL + " answered " + tc.want.Detail
			if !strings.HasPrefix(err.Error(), wantText) {
				t.Errorf("error %q, want it to start %q", err, wantText)
			}
			if strings.Contains(err.Error(), "CAPABILITY") {
				t.Errorf("error %q names the endpoint path", err)
			}
		})
	}
}

// trackedBody is a response body that records reads and Close.
type trackedBody struct {
	r      io.Reader
	read   int
	eof    bool
	closed bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	if b.closed {
		return 0, errors.New("read after close")
	}
	n, err := b.r.Read(p)
	b.read += n
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

func (b *trackedBody) Close() error { b.closed = true; return nil }

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestSendReadsAndClosesBody(t *testing.T) {
	_, sub := newTestUA(t)
	for _, tc := range []struct {
		name     string
		status   int
		size     int
		wantRead int
		wantEOF  bool
	}{
		{"empty 201", 201, 0, 0, true},
		{"small 201", 201, 100, 100, true},
		{"small 410", 410, 300, 300, true},
		{"exactly 4 KB 400", 400, 4096, 4096, false},
		{"1 MB 500", 500, 1 << 20, 4096, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := &trackedBody{r: bytes.NewReader(bytes.Repeat([]byte("a "), tc.size/2+1)[:tc.size])}
			s := newTestSender(t)
			s.Client = &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
				return &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: body, Request: r}, nil
			})}
			s.Send(context.Background(), sub, Message{Payload: []byte("x"), TTL: time.Minute})
			if !body.closed {
				t.Error("response body not closed")
			}
			if body.read != tc.wantRead || body.eof != tc.wantEOF {
				t.Errorf("read %d bytes (EOF %v), want %d (EOF %v)", body.read, body.eof, tc.wantRead, tc.wantEOF)
			}
		})
	}
}

func TestSendNetworkError(t *testing.T) {
	_, sub := newTestUA(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	sub.Endpoint = srv.URL + "/push/CAPABILITY"
	srv.Close() // nothing listens any more

	s := newTestSender(t)
	res, err := s.Send(context.Background(), sub, Message{Payload: []byte("x"), TTL: time.Minute})
	if err == nil || res.Outcome != RetryLater || res.Status != 0 {
		t.Fatalf("Send to a closed port = %+v, %v; want RetryLater and an error", res, err)
	}
	if !strings.HasPrefix(err.Error(), "webpush: POST to "+srv.URL+": ") || strings.Contains(err.Error(), "CAPABILITY") {
		t.Errorf("error %q: want the origin only", err)
	}
	if !strings.HasPrefix(res.Detail, "network error: ") || strings.Contains(res.Detail, "CAPABILITY") {
		t.Errorf("detail %q", res.Detail)
	}

	// A cancelled context is a network error too, and errors.Is finds it.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err = s.Send(ctx, sub, Message{Payload: []byte("x"), TTL: time.Minute})
	if res.Outcome != RetryLater || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Send = %+v, %v", res, err)
	}
}

func TestSendRefusesBeforeSending(t *testing.T) {
	_, sub := newTestUA(t)
	sub.Endpoint = "https://push.example/push/CAPABILITY"
	key, err := GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	ok := Message{Payload: []byte("x"), TTL: time.Minute}
	with := func(f func(*Sender, *Subscription, *Message)) (*Sender, Subscription, Message) {
		s := &Sender{Key: key, Contact: "mailto:ops@attn.example"}
		sb, m := sub, ok
		f(s, &sb, &m)
		return s, sb, m
	}
	for _, tc := range []struct {
		name    string
		f       func(*Sender, *Subscription, *Message)
		outcome Outcome
		wantErr error
		wantMsg string
	}{
		{"zero TTL", func(_ *Sender, _ *Subscription, m *Message) { m.TTL = 0 }, Rejected, ErrInvalidMessage, "TTL is 0s: want at least 1s"},
		{"negative TTL", func(_ *Sender, _ *Subscription, m *Message) { m.TTL = -time.Hour }, Rejected, ErrInvalidMessage, "TTL is -1h0m0s"},
		{"sub-second TTL", func(_ *Sender, _ *Subscription, m *Message) { m.TTL = 500 * time.Millisecond }, Rejected, ErrInvalidMessage, "want at least 1s"},
		{"bad urgency", func(_ *Sender, _ *Subscription, m *Message) { m.Urgency = "urgent" }, Rejected, ErrInvalidMessage, `Urgency "urgent"`},
		{"bad topic", func(_ *Sender, _ *Subscription, m *Message) { m.Topic = "block:host/pane" }, Rejected, ErrInvalidMessage, `has ':' at offset 5`},
		{"too large", func(_ *Sender, _ *Subscription, m *Message) { m.Payload = make([]byte, 3994) }, TooLarge, ErrTooLarge, "3994 bytes of payload, at most 3993 fit record size 4096"},
		{"too large for 3070", func(s *Sender, _ *Subscription, m *Message) { s.RecordSize = 3070; m.Payload = make([]byte, 2968) }, TooLarge, ErrTooLarge, "at most 2967"},
		{"record size", func(s *Sender, _ *Subscription, _ *Message) { s.RecordSize = 64 }, Unauthorized, nil, "Sender.RecordSize 64 is out of range"},
		{"no key", func(s *Sender, _ *Subscription, _ *Message) { s.Key = nil }, Unauthorized, ErrNoKey, "Sender.Key is nil"},
		{"doubled mailto", func(s *Sender, _ *Subscription, _ *Message) { s.Contact = "mailto:mailto:ops@attn.example" }, Unauthorized, ErrInvalidContact, "403 BadJwtToken"},
		{"empty contact", func(s *Sender, _ *Subscription, _ *Message) { s.Contact = "" }, Unauthorized, ErrInvalidContact, "empty"},
		{"http endpoint", func(_ *Sender, sb *Subscription, _ *Message) { sb.Endpoint = "http://push.example/push/CAPABILITY" }, Rejected, ErrInvalidSubscription, "plain http"},
		{"bad endpoint", func(_ *Sender, sb *Subscription, _ *Message) { sb.Endpoint = "https://push.example/%zzCAPABILITY" }, Rejected, ErrInvalidSubscription, "not an absolute URL"},
		{"empty endpoint", func(_ *Sender, sb *Subscription, _ *Message) { sb.Endpoint = "" }, Rejected, ErrInvalidSubscription, "not an absolute URL"},
		{"bad p256dh", func(_ *Sender, sb *Subscription, _ *Message) { sb.P256DH = sb.P256DH[:33] }, Rejected, ErrInvalidSubscription, "p256dh"},
		{"bad auth", func(_ *Sender, sb *Subscription, _ *Message) { sb.Auth = nil }, Rejected, ErrInvalidSubscription, "auth: want a 16-byte secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, sb, m := with(tc.f)
			sent := false
			s.Client = &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
				sent = true
				return nil, errors.New("unreachable")
			})}
			res, err := s.Send(context.Background(), sb, m)
			if sent {
				t.Fatal("a request went out")
			}
			if res.Outcome != tc.outcome || res.Status != 0 || err == nil || res.Detail != err.Error() {
				t.Fatalf("got %+v, %v; want outcome %v", res, err, tc.outcome)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v does not wrap %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not say %q", err, tc.wantMsg)
			}
			if strings.Contains(err.Error(), "CAPABILITY") {
				t.Errorf("error %q names the endpoint path", err)
			}
		})
	}
}

func TestSendKeepsSecretsOutOfResults(t *testing.T) {
	_, sub := newTestUA(t)
	// A hostile or chatty service echoes everything it was sent.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "bad request to "+r.URL.Path+" with "+r.Header.Get("Authorization")+" token="+jwtOf(r.Header.Get("Authorization")))
	}))
	defer srv.Close()
	sub.Endpoint = srv.URL + "/wpush/v2/gAAAAABmTOKENTOKENTOKEN"
	s := newTestSender(t)
	res, err := s.Send(context.Background(), sub, Message{Payload: []byte("x"), TTL: time.Minute})
	if res.Outcome != Rejected || err == nil {
		t.Fatalf("got %+v, %v", res, err)
	}
	v, _ := s.authorization(mustURL(t, sub.Endpoint), testNow)
	jwt := jwtOf(v[0])
	parts := strings.Split(jwt, ".")
	for _, text := range []string{res.Detail, err.Error()} {
		for _, secret := range append(parts, jwt, "gAAAAABmTOKENTOKENTOKEN", s.Key.PublicKeyBase64()) {
			if strings.Contains(text, secret) {
				t.Errorf("%q contains %q", text, secret)
			}
		}
	}
	if want := "400 Bad Request: bad request to [endpoint] with vapid t=[redacted], k=[redacted] token=[redacted]"; res.Detail != want {
		t.Errorf("detail\n got %q\nwant %q", res.Detail, want)
	}
}

func TestSendDefaultClient(t *testing.T) {
	_, sub := newTestUA(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	sub.Endpoint = srv.URL + "/p"
	s := newTestSender(t) // Client nil
	if res, err := s.Send(context.Background(), sub, Message{Payload: []byte("x"), TTL: time.Minute}); err != nil || res.Outcome != Delivered {
		t.Fatalf("got %+v, %v", res, err)
	}
	c := NewHTTPClient()
	tr := c.Transport.(*http.Transport)
	if c.Timeout != 10*time.Second || tr.TLSHandshakeTimeout != 5*time.Second || c.CheckRedirect == nil {
		t.Fatalf("client timeout %v, TLS %v", c.Timeout, tr.TLSHandshakeTimeout)
	}
}

func TestValidateTopic(t *testing.T) {
	for _, tc := range []struct {
		topic string
		ok    bool
	}{
		{"", true},
		{"a", true},
		{"block-host1_pane2", true},
		{strings.Repeat("Z", 32), true},
		{"AZaz09-_", true},
		{strings.Repeat("Z", 33), false},
		{"block:host", false},
		{"a/b", false},
		{"a+b", false},
		{"a=", false},
		{"a b", false},
		{"é", false},
	} {
		err := ValidateTopic(tc.topic)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateTopic(%q) = %v, want ok %v", tc.topic, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidMessage) {
			t.Errorf("ValidateTopic(%q) error does not wrap ErrInvalidMessage", tc.topic)
		}
	}
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[Outcome]string{
		0: "Outcome(0)", Delivered: "delivered", Gone: "gone", Unauthorized: "unauthorized",
		TooLarge: "too-large", RetryLater: "retry-later", Rejected: "rejected", 99: "Outcome(99)",
	} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", o, got, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("word ", 100)
	for _, tc := range []struct{ in, path, jwt, want string }{
		{"", "", "", ""},
		{"  plain\r\n\ttext  ", "", "", "plain text"},
		{"ctl\x00\x1b[31m", "", "", "ctl [31m"},
		{"bad utf8 \xff here", "", "", "bad utf8 ? here"},
		{"ünïcode ok", "", "", "ünïcode ok"},
		{"token eyJ0eXAiOiJKV1QiLCJhbGciOiJFUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln end", "", "", "token [redacted] end"},
		{"short tokens like BadJwtToken and ExpiredSubscription stay", "", "", "short tokens like BadJwtToken and ExpiredSubscription stay"},
		{"path /push/abc was gone", "/push/abc", "", "path [endpoint] was gone"},
		{"tok abcdefghijklmnopq0 gone", "/push/abcdefghijklmnopq0", "", "tok [endpoint] gone"},
		{"jwt a.b.c here", "", "a.b.c", "jwt [redacted] here"},
		{long, "", "", strings.TrimSpace(long)[:200] + "…"},
	} {
		if got := snippet([]byte(tc.in), tc.path, tc.jwt); got != tc.want {
			t.Errorf("snippet(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestFmtKeepsSecretsOut(t *testing.T) {
	_, sub := newTestUA(t)
	sub.Endpoint = "https://fcm.googleapis.com/fcm/send/CAPABILITYTOKEN"
	s := newTestSender(t)
	if _, err := s.authorization(mustURL(t, sub.Endpoint), testNow); err != nil {
		t.Fatal(err)
	}
	jwt := jwtOf(s.jwts[audience{"https", "fcm.googleapis.com"}].value[0])
	secrets := map[string]string{
		"path":      "CAPABILITYTOKEN",
		"auth":      string(sub.Auth),
		"auth hex":  hex.EncodeToString(sub.Auth),
		"auth b64":  base64.RawURLEncoding.EncodeToString(sub.Auth),
		"private":   string(s.Key.MarshalPrivate()),
		"priv hex":  hex.EncodeToString(s.Key.MarshalPrivate()),
		"jwt":       jwt,
		"jwt claim": strings.Split(jwt, ".")[1],
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x"} {
		for _, v := range []any{sub, &sub, s.Key, *s.Key, s, []any{s, sub}} {
			out := fmt.Sprintf(verb, v)
			for name, secret := range secrets {
				if secret != "" && strings.Contains(out, secret) {
					t.Errorf("%s of %T shows the %s: %s", verb, v, name, out)
				}
			}
		}
	}
	if got, want := fmt.Sprint(sub), "webpush.Subscription{endpoint: https://fcm.googleapis.com/…, p256dh: 65 bytes, auth: [redacted]}"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
