package channeltest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Ntfy fakes an ntfy server (https://docs.ntfy.sh/publish/): JSON publish
// to POST / ({"topic","message","title","priority","tags","click",
// "actions","sequence_id"}), Bearer or Basic auth, at most 3 actions,
// messages over 4096 bytes turned into attachments, errors as
// {"code","http","error","link"} (server/errors.go), and — when Sequences
// is on, as on servers from 2.16 — sequence ids echoed in the answer and
// PUT /<topic>/<sequence_id>/clear. Without Sequences it behaves like an
// older server: sequence_id is ignored (absent from the answer) and
// /clear is an unknown path (404).
type Ntfy struct {
	*httptest.Server
	recorder

	// Token, when set, is the only access token accepted (as Bearer).
	Token string
	// User and Password, when set, are the only Basic credentials
	// accepted.
	User, Password string
	// Sequences makes the server take sequence ids (ntfy ≥ 2.16).
	Sequences bool

	mu       sync.Mutex
	messages []NtfyMessage
	cleared  []string
	seq      int
}

// NtfyMessage is a message as the fake stored it (its answer's shape).
type NtfyMessage struct {
	ID         string       `json:"id"`
	Time       int64        `json:"time"`
	Expires    int64        `json:"expires,omitempty"`
	Event      string       `json:"event"`
	Topic      string       `json:"topic"`
	Title      string       `json:"title,omitempty"`
	Message    string       `json:"message,omitempty"`
	Priority   int          `json:"priority,omitempty"`
	Tags       []string     `json:"tags,omitempty"`
	Click      string       `json:"click,omitempty"`
	Actions    []NtfyAction `json:"actions,omitempty"`
	SequenceID string       `json:"sequence_id,omitempty"`
	// Attachment is set when the message was over 4096 bytes and became a
	// file (ntfy's behaviour), which attn must never cause.
	Attachment *struct {
		Name string `json:"name"`
		Size int    `json:"size"`
	} `json:"attachment,omitempty"`
}

// NtfyAction is one action button (https://docs.ntfy.sh/publish/#action-buttons).
type NtfyAction struct {
	ID      string            `json:"id,omitempty"`
	Action  string            `json:"action"`
	Label   string            `json:"label"`
	URL     string            `json:"url,omitempty"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Clear   bool              `json:"clear"`
}

var ntfyTopic = regexp.MustCompile(`^[-_A-Za-z0-9]{1,64}$`)

// ntfy errors, as server/errors.go defines them.
const (
	ntfyErrJSON      = `{"code":40017,"http":400,"error":"invalid request: request body must be message JSON","link":"https://ntfy.sh/docs/publish/#publish-as-json"}`
	ntfyErrTopic     = `{"code":40009,"http":400,"error":"invalid request: topic invalid"}`
	ntfyErrPriority  = `{"code":40007,"http":400,"error":"invalid priority parameter","link":"https://ntfy.sh/docs/publish/#message-priority"}`
	ntfyErrActions   = `{"code":40018,"http":400,"error":"invalid request: actions invalid, only 3 actions allowed","link":"https://ntfy.sh/docs/publish/#action-buttons"}`
	ntfyErrUnauth    = `{"code":40101,"http":401,"error":"unauthorized","link":"https://ntfy.sh/docs/publish/#authentication"}`
	ntfyErrForbidden = `{"code":40301,"http":403,"error":"forbidden","link":"https://ntfy.sh/docs/publish/#authentication"}`
	ntfyErrNotFound  = `{"code":40401,"http":404,"error":"page not found"}`
	// NtfyErrTooMany is ntfy's rate limit answer, for scripting.
	NtfyErrTooMany = `{"code":42901,"http":429,"error":"limit reached: too many requests, please be nice","link":"https://ntfy.sh/docs/publish/#limitations"}`
	// NtfyErrInternal is ntfy's internal error answer, for scripting.
	NtfyErrInternal = `{"code":50001,"http":500,"error":"internal server error"}`
)

// NewNtfy starts a fake ntfy server; it is closed when the test ends.
func NewNtfy(t interface{ Cleanup(func()) }) *Ntfy {
	f := &Ntfy{}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// Messages returns the messages published so far.
func (f *Ntfy) Messages() []NtfyMessage {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]NtfyMessage(nil), f.messages...)
}

// Cleared returns the "topic/sequence_id" pairs cleared so far.
func (f *Ntfy) Cleared() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.cleared...)
}

func (f *Ntfy) serve(w http.ResponseWriter, r *http.Request) {
	rec := f.record(r)
	if f.scripted(w, r) {
		return
	}
	if status, body := f.auth(r); status != 0 {
		writeJSON(w, status, body)
		return
	}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/":
		f.publish(w, rec.Body)
	case r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/clear") && f.Sequences:
		parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
		if len(parts) != 3 || !ntfyTopic.MatchString(parts[0]) {
			writeJSON(w, http.StatusNotFound, ntfyErrNotFound)
			return
		}
		f.mu.Lock()
		f.cleared = append(f.cleared, parts[0]+"/"+parts[1])
		f.mu.Unlock()
		writeJSON(w, http.StatusOK, fmt.Sprintf(`{"id":"clr%d","time":%d,"event":"message_clear","topic":%q,"sequence_id":%q}`,
			len(f.Cleared()), time.Now().Unix(), parts[0], parts[1]))
	default:
		writeJSON(w, http.StatusNotFound, ntfyErrNotFound)
	}
}

func (f *Ntfy) auth(r *http.Request) (int, string) {
	if f.Token == "" && f.User == "" {
		return 0, ""
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return http.StatusForbidden, ntfyErrForbidden // anonymous access to a protected topic
	}
	if tok, ok := strings.CutPrefix(h, "Bearer "); ok && f.Token != "" && tok == f.Token {
		return 0, ""
	}
	if b, ok := strings.CutPrefix(h, "Basic "); ok && f.User != "" {
		raw, err := base64.StdEncoding.DecodeString(b)
		if err == nil && string(raw) == f.User+":"+f.Password {
			return 0, ""
		}
	}
	return http.StatusUnauthorized, ntfyErrUnauth
}

func (f *Ntfy) publish(w http.ResponseWriter, body []byte) {
	var m struct {
		Topic      string       `json:"topic"`
		Message    string       `json:"message"`
		Title      string       `json:"title"`
		Priority   int          `json:"priority"`
		Tags       []string     `json:"tags"`
		Click      string       `json:"click"`
		Actions    []NtfyAction `json:"actions"`
		SequenceID string       `json:"sequence_id"`
	}
	if err := json.Unmarshal(body, &m); err != nil || !utf8.Valid(body) {
		writeJSON(w, http.StatusBadRequest, ntfyErrJSON)
		return
	}
	if !ntfyTopic.MatchString(m.Topic) {
		writeJSON(w, http.StatusBadRequest, ntfyErrTopic)
		return
	}
	if m.Priority < 0 || m.Priority > 5 {
		writeJSON(w, http.StatusBadRequest, ntfyErrPriority)
		return
	}
	if len(m.Actions) > 3 {
		writeJSON(w, http.StatusBadRequest, ntfyErrActions)
		return
	}
	for _, a := range m.Actions {
		if (a.Action != "view" && a.Action != "http" && a.Action != "broadcast") || a.Label == "" ||
			(a.Action != "broadcast" && a.URL == "") {
			writeJSON(w, http.StatusBadRequest, ntfyErrActions)
			return
		}
	}
	f.mu.Lock()
	f.seq++
	now := time.Now().Unix()
	msg := NtfyMessage{ID: fmt.Sprintf("msg%09d", f.seq), Time: now, Expires: now + 43200, Event: "message",
		Topic: m.Topic, Title: m.Title, Message: m.Message, Priority: m.Priority, Tags: m.Tags, Click: m.Click,
		Actions: m.Actions}
	if msg.Message == "" {
		msg.Message = "triggered"
	}
	if len(msg.Message) > 4096 {
		msg.Attachment = &struct {
			Name string `json:"name"`
			Size int    `json:"size"`
		}{"attachment.txt", len(msg.Message)}
		msg.Message = "You received a file: attachment.txt"
	}
	if f.Sequences && m.SequenceID != "" {
		msg.SequenceID = m.SequenceID
	}
	f.messages = append(f.messages, msg)
	f.mu.Unlock()
	b, _ := json.Marshal(msg)
	writeJSON(w, http.StatusOK, string(b))
}
