// Package gotify is attn's Gotify channel
// (https://gotify.net/docs/pushmsg): POST /message with the application
// token in the X-Gotify-Key header (never in the URL, where proxies log
// it), a JSON body with title, plain-text message, priority by kind
// (Gotify's Android app shows 8 and above as heads-up) and the card's
// URL as the click action (extras "client::notification").
//
// Channel URL: gotify://host[:port][/path]/APP_TOKEN[?disabletls=yes]
// (shoutrrr's form; https unless disabletls=yes).
package gotify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/channel"
)

// Usage is the URL form, for errors.
const Usage = "gotify://host[:port][/path]/APP_TOKEN (add ?disabletls=yes for a server without TLS)"

// Config is a parsed gotify:// URL.
type Config struct {
	Base  string // scheme://host[:port][/path], no trailing slash
	Token string // the application token
}

var validToken = regexp.MustCompile(`^[A-Za-z0-9._-]{8,}$`)

// Parse reads a gotify:// URL. Errors say what to write.
func Parse(u *url.URL) (Config, error) {
	if u.Scheme != "gotify" {
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	if u.Host == "" {
		return Config{}, fmt.Errorf("the server is missing: write %s", Usage)
	}
	path := strings.Trim(u.Path, "/")
	i := strings.LastIndex(path, "/")
	tok, prefix := path[i+1:], ""
	if i >= 0 {
		prefix = "/" + path[:i]
	}
	if !validToken.MatchString(tok) {
		return Config{}, fmt.Errorf("the application token (the last path segment, from Gotify's Apps page) is missing or malformed: write %s", Usage)
	}
	scheme := "https"
	for k, v := range u.Query() {
		switch k {
		case "disabletls":
			switch v[0] {
			case "yes", "true":
				scheme = "http"
			case "no", "false":
			default:
				return Config{}, fmt.Errorf("disabletls=%q: want yes or no", v[0])
			}
		default:
			return Config{}, fmt.Errorf("unknown parameter %q: a gotify URL takes only disabletls=yes", k)
		}
	}
	return Config{Base: scheme + "://" + u.Host + prefix, Token: tok}, nil
}

// Redact shows a gotify URL without its application token.
func Redact(u *url.URL) string {
	path := strings.Trim(u.Path, "/")
	prefix := ""
	if i := strings.LastIndex(path, "/"); i >= 0 {
		prefix = "/" + path[:i]
	}
	s := "gotify://" + u.Host + prefix + "/***"
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// Options are a Channel's collaborators.
type Options struct {
	Client *http.Client
	Now    func() time.Time
}

// Channel sends to one Gotify application.
type Channel struct {
	cfg Config
	opt Options
}

// New returns a Gotify channel.
func New(cfg Config, opt Options) *Channel {
	if opt.Client == nil {
		opt.Client = channel.NewHTTPClient(30 * time.Second)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Channel{cfg: cfg, opt: opt}
}

// Kind returns "gotify".
func (c *Channel) Kind() string { return "gotify" }

// Capabilities: title, body, click URL, priority. No buttons, no
// replacement or clearing with an application token, no end-to-end
// encryption.
func (c *Channel) Capabilities() channel.Capabilities {
	return channel.Capabilities{Title: true, Body: true, Click: true, Priority: true,
		MaxTitle: 250, MaxBody: 8000, Unit: channel.Runes}
}

// Priority maps attn's 1–5 to Gotify's 0–10: 5 → 10, 4 → 8 (heads-up on
// Android), 3 → 5, 2 → 3, 1 → 1; a silent replacement 3.
func Priority(m channel.Message) int {
	if m.Silent && !m.Escalation {
		return 3
	}
	return map[int]int{5: 10, 4: 8, 3: 5, 2: 3, 1: 1}[m.Priority]
}

// Message is the body of POST /message.
type Message struct {
	Title    string         `json:"title"`
	Message  string         `json:"message"`
	Priority int            `json:"priority"`
	Extras   map[string]any `json:"extras"`
}

// Body returns the message body for m.
func (c *Channel) Body(m channel.Message) Message {
	body := m.Body
	if body == "" {
		body = m.Title
	}
	extras := map[string]any{"client::display": map[string]string{"contentType": "text/plain"}}
	if m.Click != "" {
		extras["client::notification"] = map[string]any{"click": map[string]string{"url": m.Click}}
	}
	return Message{Title: m.Title, Message: body, Priority: Priority(m), Extras: extras}
}

// Send posts m.
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	b, err := json.Marshal(c.Body(m))
	if err != nil {
		return channel.Failed(fmt.Sprintf("encode gotify message: %v", err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Base+"/message", bytes.NewReader(b))
	if err != nil {
		return channel.Failed(fmt.Sprintf("gotify request: %v", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gotify-Key", c.cfg.Token)
	resp, err := channel.Do(c.opt.Client, req, c.cfg.Base+"/message")
	if err != nil {
		return channel.NetworkResult(fmt.Errorf("%s", channel.Scrub(err.Error(), c.cfg.Token)))
	}
	if resp.Status/100 == 2 {
		return channel.Delivered("")
	}
	var e struct {
		Error       string `json:"error"`
		Code        int    `json:"errorCode"`
		Description string `json:"errorDescription"`
	}
	detail := channel.Excerpt(resp.Body)
	if json.Unmarshal(resp.Body, &e) == nil && e.Error != "" {
		detail = fmt.Sprintf("gotify: %s: %s", e.Error, e.Description)
	}
	if resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden {
		detail += " (check the application token in the channel URL: an app token, not a client token)"
	}
	return channel.StatusResult(resp, c.opt.Now(), channel.Scrub(detail, c.cfg.Token))
}
