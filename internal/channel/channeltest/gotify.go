package channeltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Gotify fakes a Gotify server's message API
// (https://gotify.net/api-docs#/message/createMessage): POST /message
// with the application token in X-Gotify-Key (or ?token=), a JSON body
// {"title","message","priority","extras"}, answering the stored message
// or {"error","errorCode","errorDescription"}.
type Gotify struct {
	*httptest.Server
	recorder

	// AppToken is the application token accepted.
	AppToken string

	mu       sync.Mutex
	messages []GotifyMessage
}

// GotifyMessage is a stored message.
type GotifyMessage struct {
	ID       int            `json:"id"`
	AppID    int            `json:"appid"`
	Title    string         `json:"title"`
	Message  string         `json:"message"`
	Priority int            `json:"priority"`
	Extras   map[string]any `json:"extras,omitempty"`
	Date     string         `json:"date"`
}

// NewGotify starts a fake Gotify server; it is closed when the test ends.
func NewGotify(t interface{ Cleanup(func()) }, appToken string) *Gotify {
	f := &Gotify{AppToken: appToken}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Messages returns the stored messages.
func (f *Gotify) Messages() []GotifyMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]GotifyMessage(nil), f.messages...)
}

func gotifyError(w http.ResponseWriter, code int, desc string) {
	b, _ := json.Marshal(map[string]any{"error": http.StatusText(code), "errorCode": code, "errorDescription": desc})
	writeJSON(w, code, string(b))
}

func (f *Gotify) serve(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if f.scripted(w, r) {
		return
	}
	if r.URL.Path != "/message" || r.Method != http.MethodPost {
		gotifyError(w, http.StatusNotFound, "page not found")
		return
	}
	tok := r.Header.Get("X-Gotify-Key")
	if tok == "" {
		tok = r.URL.Query().Get("token")
	}
	if tok != f.AppToken {
		gotifyError(w, http.StatusUnauthorized, "you need to provide a valid access token or user credentials to access this api")
		return
	}
	var m GotifyMessage
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || json.Unmarshal(rec.Body, &m) != nil {
		gotifyError(w, http.StatusBadRequest, "invalid JSON body")
		return
	}
	if strings.TrimSpace(m.Message) == "" {
		gotifyError(w, http.StatusBadRequest, "Field 'message' is required")
		return
	}
	f.mu.Lock()
	m.ID, m.AppID, m.Date = len(f.messages)+1, 1, time.Now().UTC().Format(time.RFC3339)
	f.messages = append(f.messages, m)
	f.mu.Unlock()
	b, _ := json.Marshal(m)
	writeJSON(w, http.StatusOK, fmt.Sprint(string(b)))
}
