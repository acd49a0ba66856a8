// Package webhook is attn's webhook channel: an HTTPS POST of the
// notification as JSON (the Payload below), signed when a secret is set:
// X-Attn-Timestamp is the send time in Unix seconds and X-Attn-Signature
// is "sha256=" followed by the hex HMAC-SHA256 (RFC 2104), keyed with the
// secret, of "<timestamp>.<body>". A receiver recomputes it, compares in
// constant time, and refuses a timestamp far from its clock and a
// signature seen before (replay); Verify does all three but the last.
//
// Channel URL: the receiver's https:// URL, with the signing secret in an
// attn_secret parameter that is never sent:
// https://hooks.example.org/attn?attn_secret=S. Plain http:// is taken
// only for this machine (localhost, 127.0.0.0/8, ::1).
package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/notification"
)

// Usage is the URL form, for errors.
const Usage = "https://host/path[?attn_secret=SIGNING_SECRET] (http:// only to localhost)"

// SecretParam is the URL parameter holding the signing secret.
const SecretParam = "attn_secret"

// Header names.
const (
	HeaderTimestamp = "X-Attn-Timestamp"
	HeaderSignature = "X-Attn-Signature"
	HeaderEvent     = "X-Attn-Event"
)

// Config is a parsed webhook URL.
type Config struct {
	Target string // the URL posted to, without attn_secret
	Secret string // "" for unsigned
}

// Parse reads a webhook URL. Errors say what to write.
func Parse(u *url.URL) (Config, error) {
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback(u.Hostname()):
	case u.Scheme == "http":
		return Config{}, fmt.Errorf("a webhook goes over https:// (plain http:// only to this machine): write %s", Usage)
	default:
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	if u.Host == "" {
		return Config{}, fmt.Errorf("the host is missing: write %s", Usage)
	}
	if u.User != nil {
		return Config{}, fmt.Errorf("put no user:password@ in a webhook URL; sign with %s= instead", SecretParam)
	}
	q := u.Query()
	c := Config{Secret: q.Get(SecretParam)}
	if q.Has(SecretParam) && len(c.Secret) < 16 {
		return Config{}, fmt.Errorf("%s is too short to sign with: use at least 16 random characters (e.g. from `openssl rand -hex 16`)", SecretParam)
	}
	q.Del(SecretParam)
	t := *u
	t.RawQuery = q.Encode()
	t.Fragment = ""
	c.Target = t.String()
	return c, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Redact shows a webhook URL without anything that may be a secret: the
// path and query values (services such as Slack put tokens there) and
// the signing secret.
func Redact(u *url.URL) string {
	s := u.Scheme + "://" + u.Host
	if p := strings.Trim(u.Path, "/"); p != "" {
		s += "/…"
	}
	if u.RawQuery != "" {
		var keys []string
		for k := range u.Query() {
			keys = append(keys, k+"=***")
		}
		sort.Strings(keys)
		s += "?" + strings.Join(keys, "&")
	}
	return s
}

// Payload is the JSON body posted.
type Payload struct {
	Kind        notification.Kind `json:"kind"`
	Title       string            `json:"title"`
	Body        string            `json:"body"`
	Tag         string            `json:"tag,omitempty"`
	Host        string            `json:"host,omitempty"`
	Pane        string            `json:"pane,omitempty"`
	Name        string            `json:"name,omitempty"`
	Agent       string            `json:"agent,omitempty"`
	Fingerprint string            `json:"fingerprint,omitempty"`
	Question    *agent.Question   `json:"question,omitempty"`
	// URL is the pane's card: absolute with --public-url, else its path.
	URL        string `json:"url"`
	Priority   int    `json:"priority"` // 1–5
	Escalation bool   `json:"escalation,omitempty"`
	// Nonce and Actions let the receiver answer: POST
	// {"nonce","option_index"} to an action's answer_url.
	Nonce   string    `json:"nonce,omitempty"`
	Actions []Action  `json:"actions,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// Action is an answer the receiver may give.
type Action struct {
	Label       string `json:"label"`
	OptionIndex int    `json:"option_index"`
	AnswerURL   string `json:"answer_url,omitempty"`
}

// Sign returns the X-Attn-Signature value for body sent at ts.
func Sign(secret string, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// Verify checks a received webhook: the signature over "<timestamp>.<body>"
// and a timestamp within tolerance of now. A receiver should also refuse
// a signature it has seen before.
func Verify(secret string, h http.Header, body []byte, now time.Time, tolerance time.Duration) error {
	ts, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return errors.New("missing or unreadable " + HeaderTimestamp)
	}
	if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
		return fmt.Errorf("%s is %s away from now: refused as a possible replay", HeaderTimestamp, d.Round(time.Second))
	}
	if !hmac.Equal([]byte(h.Get(HeaderSignature)), []byte(Sign(secret, ts, body))) {
		return errors.New("signature does not match: wrong secret, or the body was changed")
	}
	return nil
}

// Options are a Channel's collaborators.
type Options struct {
	Client *http.Client
	Now    func() time.Time
}

// Channel posts to one webhook.
type Channel struct {
	cfg Config
	opt Options
	red string
}

// New returns a webhook channel.
func New(cfg Config, opt Options) *Channel {
	if opt.Client == nil {
		opt.Client = channel.NewHTTPClient(30 * time.Second)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	red := "webhook"
	if u, err := url.Parse(cfg.Target); err == nil {
		red = Redact(u)
	}
	return &Channel{cfg: cfg, opt: opt, red: red}
}

// Kind returns "webhook".
func (c *Channel) Kind() string { return "webhook" }

// Capabilities: everything the payload carries (the receiver decides what
// to show); answers need --public-url. No end-to-end encryption beyond
// TLS; the signature proves origin and integrity.
func (c *Channel) Capabilities() channel.Capabilities {
	return channel.Capabilities{Title: true, Body: true, Click: true, Actions: 4, ActionsNeedPublicURL: true, Priority: true,
		MaxTitle: 1000, MaxBody: 16000, Unit: channel.Bytes}
}

// Body returns the payload for m.
func (c *Channel) Body(m channel.Message) Payload {
	p := Payload{Kind: m.Kind, Title: m.Title, Body: m.Body, Tag: m.Tag, Host: m.Host, Pane: m.Pane, Name: m.Name,
		Agent: m.Agent, Fingerprint: m.Fingerprint, Question: m.Question, URL: m.Click, Priority: m.Priority,
		Escalation: m.Escalation, Nonce: m.Nonce, Created: m.Created.UTC(), Expires: m.Expires.UTC()}
	if p.URL == "" {
		p.URL = m.CardPath
	}
	for _, a := range m.Actions {
		p.Actions = append(p.Actions, Action{Label: a.Label, OptionIndex: a.OptionIndex, AnswerURL: a.AnswerURL})
	}
	return p
}

// Send posts m, signed when a secret is set. 2xx delivered; 410 gone;
// 408, 429 and 5xx retried (Retry-After honored); anything else failed.
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	body, err := json.Marshal(c.Body(m))
	if err != nil {
		return channel.Failed(fmt.Sprintf("encode webhook payload: %v", err))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.Target, bytes.NewReader(body))
	if err != nil {
		return channel.Failed(fmt.Sprintf("webhook request to %s: %v", c.red, err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "attn-webhook/1")
	req.Header.Set(HeaderEvent, string(m.Kind))
	if c.cfg.Secret != "" {
		ts := c.opt.Now().Unix()
		req.Header.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
		req.Header.Set(HeaderSignature, Sign(c.cfg.Secret, ts, body))
	}
	resp, err := channel.Do(c.opt.Client, req, c.red)
	if err != nil {
		return channel.NetworkResult(fmt.Errorf("%s", channel.Scrub(err.Error(), c.cfg.Secret)))
	}
	if resp.Status == http.StatusGone {
		return channel.Result{Status: channel.StatusGone, Detail: "the receiver answered 410 Gone: remove this channel, or fix the URL"}
	}
	return channel.StatusResult(resp, c.opt.Now(), channel.Scrub(channel.Excerpt(resp.Body), c.cfg.Secret))
}
