package channel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxAnswer bounds how much of a service's answer is read: its JSON status
// fits easily; anything longer is not worth holding.
const maxAnswer = 64 << 10

// NewHTTPClient returns the client channels use: timeout bounds a whole
// exchange (the Dispatcher's per-attempt context is the tighter bound),
// redirects are not followed (a push API that redirects a POST is
// misconfigured, and following would resend credentials elsewhere).
func NewHTTPClient(timeout time.Duration) *http.Client {
	return &http.Client{
		Timeout: timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// Response is a service's answer, read (at most 64 KiB) and closed.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Do sends req and reads the answer. shown is how the request's URL may
// be shown (without secrets); errors name it, never req.URL, because a
// URL error from net/http quotes the whole URL and a Telegram URL carries
// the bot token. Header values set on req are checked for control
// characters first.
func Do(client *http.Client, req *http.Request, shown string) (*Response, error) {
	for k, vs := range req.Header {
		for i, v := range vs {
			req.Header[k][i] = HeaderValue(v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		switch {
		case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
			return nil, fmt.Errorf("%s %s: no answer in time (timed out)", req.Method, shown)
		case errors.Is(err, context.Canceled):
			return nil, fmt.Errorf("%s %s: cancelled", req.Method, shown)
		}
		return nil, fmt.Errorf("%s %s: %w", req.Method, shown, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer)) // let the connection be reused
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", req.Method, shown, err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// NetworkResult is the Result of a request that got no answer: retryable.
func NetworkResult(err error) Result { return Retry(err.Error(), 0) }

// StatusResult maps an HTTP status to a Result the generic way: 2xx
// delivered; 408, 425, 429 and 5xx retry (honoring Retry-After);
// everything else failed (channels map their own "gone" answers first).
// detail is appended to the status ("403 Forbidden: <detail>").
func StatusResult(r *Response, now time.Time, detail string) Result {
	text := fmt.Sprintf("%d %s", r.Status, http.StatusText(r.Status))
	if detail != "" {
		text += ": " + detail
	}
	switch {
	case r.Status >= 200 && r.Status < 300:
		return Delivered("")
	case r.Status == http.StatusRequestTimeout || r.Status == http.StatusTooEarly ||
		r.Status == http.StatusTooManyRequests || r.Status >= 500:
		return Retry(text, RetryAfter(r.Header, now))
	default:
		return Failed(text)
	}
}

// RetryAfter reads a Retry-After header (RFC 9110 §10.2.3): seconds or an
// HTTP date; 0 when absent, unreadable or past.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// Scrub replaces every non-empty secret in s with "***": a last guard so
// no token reaches an error, a log or the decision log.
func Scrub(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return s
}

// Excerpt returns a service's answer body as one short line for a detail:
// control characters removed, at most 200 bytes.
func Excerpt(b []byte) string {
	return Clip(CleanLine(string(b)), 200, Bytes)
}
