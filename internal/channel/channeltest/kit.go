// Package channeltest is the shared test kit of attn's channels: fakes of
// ntfy, the Telegram Bot API, Pushover, Gotify, FCM HTTP v1 (with Google's
// OAuth token endpoint) and a webhook receiver, each served by httptest on
// loopback and following the published API — paths, auth, field limits
// and error shapes — closely enough that a channel passing against its
// fake speaks the real protocol. Each fake records every request and can
// be scripted to answer with errors, to stall, or to be "down".
package channeltest

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/store"
)

// Request is one request a fake received.
type Request struct {
	Method string
	Path   string // the URL path, unescaped
	Query  string // the raw query
	Header http.Header
	Body   []byte
}

// Reply is a scripted answer: when a fake has replies queued it answers
// the next matching request with the first one instead of its normal
// behaviour.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
	// Stall, when set, holds the request until the channel is closed or
	// the client gives up, then answers.
	Stall <-chan struct{}
}

// recorder is the request log and reply script every fake shares.
type recorder struct {
	mu      sync.Mutex
	reqs    []Request
	replies []Reply
	down    bool
}

func (r *recorder) record(req *http.Request) Request {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	rec := Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Header: req.Header.Clone(), Body: body}
	r.mu.Lock()
	r.reqs = append(r.reqs, rec)
	r.mu.Unlock()
	return rec
}

// scripted answers w with the next queued reply, or reports false.
func (r *recorder) scripted(w http.ResponseWriter, req *http.Request) bool {
	r.mu.Lock()
	if r.down {
		r.mu.Unlock()
		w.WriteHeader(http.StatusServiceUnavailable)
		return true
	}
	if len(r.replies) == 0 {
		r.mu.Unlock()
		return false
	}
	rep := r.replies[0]
	r.replies = r.replies[1:]
	r.mu.Unlock()
	if rep.Stall != nil {
		select {
		case <-rep.Stall:
		case <-req.Context().Done():
			return true
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if rep.Body != "" && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(rep.Status)
	io.WriteString(w, rep.Body)
	return true
}

// Requests returns a copy of every request received so far.
func (r *recorder) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// Script queues replies, answered in order before normal behaviour
// resumes.
func (r *recorder) Script(replies ...Reply) {
	r.mu.Lock()
	r.replies = append(r.replies, replies...)
	r.mu.Unlock()
}

// SetDown makes the fake answer 503 to everything (an outage) until
// called with false.
func (r *recorder) SetDown(down bool) {
	r.mu.Lock()
	r.down = down
	r.mu.Unlock()
}

// MemState is an in-memory channel.State.
type MemState struct {
	mu sync.Mutex
	m  map[string]string
}

// Get returns the value for key, "" when unset.
func (s *MemState) Get(_ context.Context, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[key], nil
}

// Set stores a value.
func (s *MemState) Set(_ context.Context, key, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	s.m[key] = value
	return nil
}

func writeJSON(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// MemTokens is an in-memory device-token registry (fcm.Tokens).
type MemTokens struct {
	mu   sync.Mutex
	list []store.ChannelToken
}

// Tokens lists the tokens, dropped ones included.
func (m *MemTokens) Tokens(context.Context) ([]store.ChannelToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]store.ChannelToken(nil), m.list...), nil
}

// Ensure adds a token unless known.
func (m *MemTokens) Ensure(_ context.Context, token string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.list {
		if t.Token == token {
			return nil
		}
	}
	m.list = append(m.list, store.ChannelToken{Token: token, Created: time.Now()})
	return nil
}

// Register adds a token, or revives it when dropped (as a new
// registration from the app does).
func (m *MemTokens) Register(token string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range m.list {
		if t.Token == token {
			m.list[i].Dropped, m.list[i].Detail = time.Time{}, ""
			return
		}
	}
	m.list = append(m.list, store.ChannelToken{Token: token, Created: time.Now()})
}

// Drop marks a token dropped.
func (m *MemTokens) Drop(_ context.Context, token, detail string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range m.list {
		if t.Token == token {
			m.list[i].Dropped, m.list[i].Detail = time.Now(), detail
		}
	}
	return nil
}
