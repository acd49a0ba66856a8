package webpush

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Errors a [Sender.Send] wraps, besides [ErrTooLarge],
// [ErrInvalidSubscription] and [ErrInvalidContact].
var (
	// ErrNotDelivered is wrapped by the error for every HTTP answer other
	// than 200, 201 or 202: the push service did not take the message.
	// [Result.Outcome] says what to do about it.
	ErrNotDelivered = errors.New("webpush: not delivered")
	// ErrInvalidMessage is wrapped when a [Message] breaks a rule of
	// RFC 8030 §5.2–§5.4 (TTL, Urgency, Topic).
	ErrInvalidMessage = errors.New("webpush: invalid message")
	// ErrNoKey is wrapped when [Sender.Key] is nil.
	ErrNoKey = errors.New("webpush: Sender.Key is nil: load the VAPID key from the store, or generate one once and store it (RFC 8292 §2)")
)

// Outcome sorts a send's result into what the caller should do next. The
// zero value means no outcome and is never returned.
type Outcome uint8

// The outcomes of [Sender.Send].
const (
	// Delivered: 200, 201 or 202; the push service took the message
	// (RFC 8030 §5).
	Delivered Outcome = iota + 1
	// Gone: 404 or 410; the subscription expired or was removed
	// (RFC 8030 §7.3). Delete it.
	Gone
	// Unauthorized: 401 or 403; the service refused the VAPID credentials
	// (RFC 8292 §4.2), or the Sender is misconfigured before anything was
	// sent (no Key, a bad Contact or RecordSize). A configuration problem:
	// report it and keep the subscription (a rotated VAPID key fails every
	// old subscription until it subscribes again).
	Unauthorized
	// TooLarge: 413, or a payload over [MaxPlaintext] refused before
	// sending (RFC 8030 §7.2). Retry with a shorter payload.
	TooLarge
	// RetryLater: 429, any 5xx, or a network error (including a cancelled
	// or expired context). Retry with backoff, not before
	// [Result.RetryAfter] (RFC 8030 §8.4; RFC 9110 §10.2.3).
	RetryLater
	// Rejected: anything else, e.g. 400 (malformed request), a redirect, or
	// a message or subscription refused before sending. Record it; the
	// subscription is kept.
	Rejected
)

// String returns the outcome's lower-case name: "delivered", "gone",
// "unauthorized", "too-large", "retry-later" or "rejected";
// "Outcome(N)" for any other value.
func (o Outcome) String() string {
	switch o {
	case Delivered:
		return "delivered"
	case Gone:
		return "gone"
	case Unauthorized:
		return "unauthorized"
	case TooLarge:
		return "too-large"
	case RetryLater:
		return "retry-later"
	case Rejected:
		return "rejected"
	}
	return "Outcome(" + strconv.Itoa(int(o)) + ")"
}

// advice is what an operator reading an error should do about o.
func (o Outcome) advice() string {
	switch o {
	case Gone:
		return "remove the subscription"
	case Unauthorized:
		return "check the VAPID key and contact; keep the subscription"
	case TooLarge:
		return "send a shorter payload"
	case RetryLater:
		return "retry later"
	}
	return "the push service refused the request"
}

// Message is one push message (RFC 8030 §5).
type Message struct {
	// Payload is the plaintext, at most [MaxPlaintext] of the Sender's
	// RecordSize octets (3993 by default). Longer is refused, not cut.
	Payload []byte
	// TTL is how long the push service keeps an undelivered message
	// (RFC 8030 §5.2), sent as whole seconds (fractions dropped) in the
	// required TTL header. At least one second: a zero TTL, which services
	// read as "drop unless the device is connected right now", is refused
	// as the usual sign of a forgotten field.
	TTL time.Duration
	// Urgency is "very-low", "low", "normal" or "high" (RFC 8030 §5.3);
	// empty sends no Urgency header (the service assumes "normal").
	Urgency string
	// Topic, when not empty, replaces an undelivered message with the same
	// topic (RFC 8030 §5.4): at most 32 characters of the base64url
	// alphabet (A–Z a–z 0–9 - _). Hash a longer key to fit.
	Topic string
}

// Validate checks m against RFC 8030 §5.2–§5.4 (see the field docs); the
// payload size is checked by [Sender.Send], which knows the record size.
// Errors wrap [ErrInvalidMessage].
func (m Message) Validate() error {
	if m.TTL < time.Second {
		return fmt.Errorf("%w: TTL is %v: want at least 1s; it says how long the push service keeps the message (RFC 8030 §5.2)", ErrInvalidMessage, m.TTL)
	}
	if urgencyHeader(m.Urgency) == nil && m.Urgency != "" {
		return fmt.Errorf(`%w: Urgency %q: want "very-low", "low", "normal", "high" or empty (RFC 8030 §5.3)`, ErrInvalidMessage, m.Urgency)
	}
	return ValidateTopic(m.Topic)
}

// ValidateTopic checks a Topic header value (RFC 8030 §5.4): empty (no
// topic), or 1 to 32 characters of the base64url alphabet. Errors wrap
// [ErrInvalidMessage].
func ValidateTopic(topic string) error {
	if len(topic) > 32 {
		return fmt.Errorf("%w: Topic is %d characters: at most 32 are allowed (RFC 8030 §5.4); hash a longer key", ErrInvalidMessage, len(topic))
	}
	for i := 0; i < len(topic); i++ {
		if c := topic[i]; !isBase64URL(c) {
			return fmt.Errorf("%w: Topic %q has %q at offset %d: only A-Z a-z 0-9 - _ are allowed (RFC 8030 §5.4)", ErrInvalidMessage, topic, rune(c), i)
		}
	}
	return nil
}

func isBase64URL(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

// Header values shared by every request; the transport only reads them.
var (
	hdrAES128GCM   = []string{"aes128gcm"}
	hdrOctetStream = []string{"application/octet-stream"}
	hdrVeryLow     = []string{"very-low"}
	hdrLow         = []string{"low"}
	hdrNormal      = []string{"normal"}
	hdrHigh        = []string{"high"}
)

func urgencyHeader(u string) []string {
	switch u {
	case "very-low":
		return hdrVeryLow
	case "low":
		return hdrLow
	case "normal":
		return hdrNormal
	case "high":
		return hdrHigh
	}
	return nil
}

// Result is what became of one [Sender.Send].
type Result struct {
	// Status is the HTTP status code, or 0 when no answer came (a network
	// error, or a refusal before sending).
	Status int
	// Outcome says what to do next.
	Outcome Outcome
	// RetryAfter is the wait the service asked for with Retry-After
	// (RFC 9110 §10.2.3: seconds or an HTTP date, measured against
	// [Sender.Now]); set only for [RetryLater], zero when absent.
	RetryAfter time.Duration
	// Detail is a short, printable account: the status and its text with
	// the start of the response body (e.g. "410 Gone: push subscription has
	// unsubscribed or expired"), or why nothing was sent. It never holds
	// the JWT, a key, the auth secret or the endpoint's path.
	Detail string
}

// Sender sends push messages: one encrypted POST per [Sender.Send]. Set the
// fields before the first Send and leave them alone while sends run; a
// Sender is then safe for concurrent use. It must not be copied after first
// use.
type Sender struct {
	// Key is the VAPID signing key (RFC 8292 §2). Required.
	Key *VAPIDKey
	// Contact is the JWT "sub" claim: "mailto:" and an address, or an
	// "https:" URL; see [ValidateContact] (RFC 8292 §2.1). Required.
	Contact string
	// Client sends the requests. Nil means a client from [NewHTTPClient],
	// made on first use.
	Client *http.Client
	// RecordSize is the largest encrypted body, in octets, the push
	// services are trusted to take; zero means [DefaultRecordSize] (4096).
	// It bounds the payload: see [MaxPlaintext].
	RecordSize int
	// Now tells the time, for JWT expiry and Retry-After dates. Nil means
	// time.Now.
	Now func() time.Time

	clientOnce sync.Once
	client     *http.Client

	mu   sync.RWMutex
	jwts map[audience]jwtEntry

	ttl atomic.Pointer[ttlHeader] // the last TTL header, reused while it repeats
}

// NewHTTPClient returns the client a [Sender] uses when Client is nil: a
// 10 s limit on the whole exchange, 5 s to connect and 5 s for the TLS
// handshake, proxies from the environment, HTTP/2 when offered, idle
// connections kept per host for reuse, and redirects not followed (a push
// endpoint that redirects is answered as [Rejected]).
func NewHTTPClient() *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           d.DialContext,
			ForceAttemptHTTP2:     true,
			TLSHandshakeTimeout:   5 * time.Second,
			ExpectContinueTimeout: time.Second,
			MaxIdleConns:          100,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

func (s *Sender) httpClient() *http.Client {
	if s.Client != nil {
		return s.Client
	}
	s.clientOnce.Do(func() { s.client = NewHTTPClient() })
	return s.client
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Send encrypts msg for sub (RFC 8291) and POSTs it to sub.Endpoint with
// the TTL, Urgency, Topic, Content-Encoding: aes128gcm, Content-Type and
// VAPID Authorization headers (RFC 8030 §5, RFC 8292 §3). The response
// body is always read (at most 4 KB) and closed.
//
// The error is nil exactly when Outcome is [Delivered]. Otherwise it wraps
// [ErrNotDelivered] (an HTTP answer; also [ErrTooLarge] for 413), the
// network or context error ([RetryLater]), [ErrTooLarge] (payload over
// [MaxPlaintext], nothing sent), [ErrInvalidMessage] or
// [ErrInvalidSubscription] ([Rejected], nothing sent), or [ErrNoKey],
// [ErrInvalidContact] or a bad RecordSize ([Unauthorized], nothing sent).
// Errors name the endpoint by its origin only and never carry a secret.
//
// The endpoint must be https; plain http is sent only to a loopback host
// (a test push service).
func (s *Sender) Send(ctx context.Context, sub Subscription, msg Message) (Result, error) {
	if err := msg.Validate(); err != nil {
		return failed(Rejected, err)
	}
	rs := s.RecordSize
	if rs <= 0 {
		rs = DefaultRecordSize
	}
	if rs < overhead || int64(rs) > maxRS {
		return failed(Unauthorized, fmt.Errorf("webpush: Sender.RecordSize %d is out of range: want %d to %d octets, or 0 for %d", s.RecordSize, overhead, int64(maxRS), DefaultRecordSize))
	}
	if n := MaxPlaintext(rs); len(msg.Payload) > n {
		return failed(TooLarge, fmt.Errorf("%w: %d bytes of payload, at most %d fit record size %d (RFC 8291 §4): cut the text before sending",
			ErrTooLarge, len(msg.Payload), n, rs))
	}
	if s.Key == nil {
		return failed(Unauthorized, ErrNoKey)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, sub.Endpoint, nil)
	if err != nil { // its text would quote the endpoint
		if ctx == nil {
			return failed(Rejected, errors.New("webpush: Send: nil context"))
		}
		return failed(Rejected, errEndpointNotURL)
	}
	u := req.URL
	if err := checkEndpointURL(u); err != nil {
		return failed(Rejected, err)
	}
	if err := checkEndpointScheme(u, true); err != nil {
		return failed(Rejected, err)
	}
	now := s.now()
	auth, err := s.authorization(u, now)
	if err != nil {
		return failed(Unauthorized, err)
	}
	body, err := Encrypt(msg.Payload, sub, rs)
	if err != nil {
		return failed(Rejected, err)
	}

	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	h := req.Header
	h["Ttl"] = s.ttlHeader(int64(msg.TTL / time.Second))
	h["Content-Encoding"] = hdrAES128GCM
	h["Content-Type"] = hdrOctetStream
	h["Authorization"] = auth
	if msg.Urgency != "" {
		h["Urgency"] = urgencyHeader(msg.Urgency)
	}
	if msg.Topic != "" {
		h["Topic"] = []string{msg.Topic}
	}

	resp, err := s.httpClient().Do(req)
	if err != nil {
		// A *url.Error quotes the whole endpoint; keep only what it wraps.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return Result{Outcome: RetryLater, Detail: "network error: " + snippet([]byte(err.Error()), u.Path, "")},
			fmt.Errorf("webpush: POST to %s: %w", origin(u), err)
	}
	res := Result{Status: resp.StatusCode, Outcome: classify(resp.StatusCode)}
	text := readAndClose(resp.Body, u.Path, jwtOf(auth[0]))
	res.Detail = detail(resp.StatusCode, text)
	switch res.Outcome {
	case Delivered:
		return res, nil
	case RetryLater:
		res.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), now)
	case TooLarge:
		return res, fmt.Errorf("%w: %s answered %s (%s; %w)", ErrNotDelivered, origin(u), res.Detail, res.Outcome.advice(), ErrTooLarge)
	}
	return res, fmt.Errorf("%w: %s answered %s (%s)", ErrNotDelivered, origin(u), res.Detail, res.Outcome.advice())
}

// failed is the Result and error of a send refused before anything went out.
func failed(o Outcome, err error) (Result, error) {
	return Result{Outcome: o, Detail: err.Error()}, err
}

// classify maps an HTTP status to an Outcome (RFC 8030 §5, §7.2, §7.3,
// §8.4; RFC 8292 §4.2).
func classify(code int) Outcome {
	switch {
	case code == http.StatusOK, code == http.StatusCreated, code == http.StatusAccepted:
		return Delivered
	case code == http.StatusNotFound, code == http.StatusGone:
		return Gone
	case code == http.StatusUnauthorized, code == http.StatusForbidden:
		return Unauthorized
	case code == http.StatusRequestEntityTooLarge:
		return TooLarge
	case code == http.StatusTooManyRequests, code >= 500 && code <= 599:
		return RetryLater
	}
	return Rejected
}

// detail is "<code> <status text>[: <body snippet>]", with the common
// success texts kept as constants so that a delivery allocates nothing.
func detail(code int, text string) string {
	if text == "" {
		switch code {
		case http.StatusOK:
			return "200 OK"
		case http.StatusCreated:
			return "201 Created"
		case http.StatusAccepted:
			return "202 Accepted"
		}
	}
	d := strconv.Itoa(code)
	if st := http.StatusText(code); st != "" {
		d += " " + st
	}
	if text != "" {
		d += ": " + text
	}
	return d
}

// parseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3): delay
// seconds, or an HTTP date measured against now. Absent, malformed or past
// values give 0.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		const maxSecs = int64(1<<63-1) / int64(time.Second)
		return time.Duration(min(max(secs, 0), maxSecs)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// maxResponseRead bounds how much of a response body is read.
const maxResponseRead = 4 << 10

var responseBufs = sync.Pool{New: func() any { return new([maxResponseRead]byte) }}

// readAndClose reads at most maxResponseRead octets of body, closes it and
// returns a printable snippet of what it read, with path and jwt removed.
// A body read to its end lets the connection be reused.
func readAndClose(body io.ReadCloser, path, jwt string) string {
	buf := responseBufs.Get().(*[maxResponseRead]byte)
	n, _ := io.ReadFull(body, buf[:])
	body.Close()
	var text string
	if n > 0 {
		text = snippet(buf[:n], path, jwt)
	}
	responseBufs.Put(buf)
	return text
}

// ttlHeader is a TTL header value with the seconds it was made from.
type ttlHeader struct {
	secs  int64
	value []string
}

// ttlHeader returns the TTL header value for secs, reusing the last one
// made when it is the same (a sender usually sends one TTL).
func (s *Sender) ttlHeader(secs int64) []string {
	if t := s.ttl.Load(); t != nil && t.secs == secs {
		return t.value
	}
	t := &ttlHeader{secs: secs, value: []string{strconv.FormatInt(secs, 10)}}
	s.ttl.Store(t)
	return t.value
}

// audience is a JWT cache key: an endpoint's scheme and host as parsed, so
// that a lookup builds no string.
type audience struct{ scheme, host string }

// jwtEntry is a signed Authorization value and when it may be used.
type jwtEntry struct {
	value   []string  // {"vapid t=<jwt>, k=<key>"}
	key     *VAPIDKey // the key and contact it was signed with
	contact string
	issued  int64 // Unix seconds; a clock that went back re-signs
	refresh int64 // Unix seconds: exp − JWTRefreshMargin
}

// maxAudiences bounds the JWT cache: push services are few, but endpoints
// come from browsers.
const maxAudiences = 256

// authorization returns the Authorization header value for u's origin:
// "vapid t=<jwt>, k=<key>" (RFC 8292 §3). A JWT is signed once per origin
// and reused until JWTRefreshMargin before its exp (RFC 8292 §2 allows
// reuse; signing is the costliest step of a send).
func (s *Sender) authorization(u *url.URL, now time.Time) ([]string, error) {
	a := audience{u.Scheme, u.Host}
	t := now.Unix()
	s.mu.RLock()
	e, ok := s.jwts[a]
	s.mu.RUnlock()
	if ok && e.key == s.Key && e.contact == s.Contact && t >= e.issued && t < e.refresh {
		return e.value, nil
	}
	if err := ValidateContact(s.Contact); err != nil {
		return nil, fmt.Errorf("webpush: Sender.Contact: %w", err)
	}
	exp := now.Add(JWTLifetime).Unix()
	v, err := s.Key.authorization(origin(u), s.Contact, exp)
	if err != nil {
		return nil, err
	}
	e = jwtEntry{value: []string{v}, key: s.Key, contact: s.Contact, issued: t, refresh: exp - int64(JWTRefreshMargin/time.Second)}
	s.mu.Lock()
	if s.jwts == nil {
		s.jwts = make(map[audience]jwtEntry)
	}
	if len(s.jwts) >= maxAudiences {
		for k, old := range s.jwts {
			if t >= old.refresh || t < old.issued {
				delete(s.jwts, k)
			}
		}
		if len(s.jwts) >= maxAudiences {
			clear(s.jwts)
		}
	}
	s.jwts[a] = e
	s.mu.Unlock()
	return e.value, nil
}
