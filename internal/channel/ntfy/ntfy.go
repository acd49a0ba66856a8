// Package ntfy is attn's ntfy channel (https://docs.ntfy.sh/publish/): a
// JSON publish to POST / (UTF-8 safe: no RFC 2047 headers), Bearer token
// or Basic auth, priority by kind (blocked ≥ 4), a click link to the
// pane's card, answer buttons as ntfy "http" actions that POST
// {"nonce","option_index"} to attn's answer endpoint, messages kept under
// ntfy's 4096-byte limit (over it a message becomes an attachment), and —
// on servers that take sequence ids (ntfy ≥ 2.16), detected from the
// publish answer echoing sequence_id, never assumed — replacement by tag
// and clearing with PUT /<topic>/<sequence_id>/clear.
//
// Channel URL: ntfy://[user:password@|token@]host[:port][/path]/topic[?scheme=http]
// (shoutrrr's form; https unless scheme=http).
package ntfy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/notification"
)

// Config is a parsed ntfy channel URL.
type Config struct {
	// Base is the server's URL: scheme://host[:port][/path], no trailing
	// slash.
	Base  string
	Topic string
	// User and Password are Basic credentials; Token is an access token
	// (tk_…) sent as Bearer. At most one of the two is set.
	User, Password, Token string
}

var validTopic = regexp.MustCompile(`^[-_A-Za-z0-9]{1,64}$`)

// Usage is the URL form, for errors.
const Usage = "ntfy://[user:password@|tk_token@]host[:port]/topic (add ?scheme=http for a server without TLS)"

// Parse reads an ntfy:// URL. Errors say what to write.
func Parse(u *url.URL) (Config, error) {
	if u.Scheme != "ntfy" {
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	if u.Host == "" {
		return Config{}, fmt.Errorf("the server is missing: write %s, e.g. ntfy://ntfy.sh/my-secret-topic", Usage)
	}
	path := strings.Trim(u.Path, "/")
	i := strings.LastIndex(path, "/")
	topic, prefix := path[i+1:], ""
	if i >= 0 {
		prefix = "/" + path[:i]
	}
	if !validTopic.MatchString(topic) {
		return Config{}, fmt.Errorf("the topic %q is not an ntfy topic (1 to 64 letters, digits, '-' or '_'): write %s", topic, Usage)
	}
	scheme := "https"
	for k, v := range u.Query() {
		switch k {
		case "scheme":
			if v[0] != "http" && v[0] != "https" {
				return Config{}, fmt.Errorf("scheme=%q: want scheme=https (the default) or scheme=http", v[0])
			}
			scheme = v[0]
		default:
			return Config{}, fmt.Errorf("unknown parameter %q: an ntfy URL takes only scheme=http|https", k)
		}
	}
	c := Config{Base: scheme + "://" + u.Host + prefix, Topic: topic}
	if u.User != nil {
		user := u.User.Username()
		pass, hasPass := u.User.Password()
		switch {
		case hasPass && user == "" && pass != "":
			c.Token = pass
		case hasPass && user != "":
			c.User, c.Password = user, pass
		case !hasPass && strings.HasPrefix(user, "tk_"):
			c.Token = user
		case !hasPass && user != "":
			return Config{}, fmt.Errorf("the part before @ is neither an access token (tk_…) nor user:password: write %s", Usage)
		}
	}
	return c, nil
}

// Redact shows an ntfy URL without its secrets: the password or token
// and the topic (on a server without access control the topic name is
// the secret).
func Redact(u *url.URL) string {
	var b strings.Builder
	b.WriteString("ntfy://")
	if u.User != nil {
		if _, has := u.User.Password(); has && u.User.Username() != "" {
			b.WriteString(u.User.Username() + ":***@")
		} else {
			b.WriteString("***@")
		}
	}
	b.WriteString(u.Host)
	path := strings.Trim(u.Path, "/")
	if i := strings.LastIndex(path, "/"); i >= 0 {
		b.WriteString("/" + path[:i])
		path = path[i+1:]
	}
	b.WriteString("/" + hideTopic(path))
	if u.RawQuery != "" {
		b.WriteString("?" + u.RawQuery)
	}
	return b.String()
}

func hideTopic(t string) string {
	if len(t) <= 2 {
		return "***"
	}
	return t[:2] + "***"
}

// MaxMessage is the largest message body sent, in bytes: ntfy turns a
// message over 4096 bytes into an attachment.
const MaxMessage = 4000

// Channel publishes to one ntfy topic.
type Channel struct {
	cfg    Config
	client *http.Client
	state  channel.State
	now    func() time.Time

	mu        sync.Mutex
	sequences string // "yes", "no" or "" (not known yet)
}

// Options are a Channel's collaborators.
type Options struct {
	// Client sends the requests; nil means channel.NewHTTPClient(30 s).
	Client *http.Client
	// State persists whether the server takes sequence ids; nil keeps it
	// in memory only.
	State channel.State
	Now   func() time.Time
}

// New returns an ntfy channel.
func New(cfg Config, opt Options) *Channel {
	if opt.Client == nil {
		opt.Client = channel.NewHTTPClient(30 * time.Second)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	c := &Channel{cfg: cfg, client: opt.Client, state: opt.State, now: opt.Now}
	if c.state != nil {
		c.sequences, _ = c.state.Get(context.Background(), stateSequences)
	}
	return c
}

const stateSequences = "sequences"

// Kind returns "ntfy".
func (c *Channel) Kind() string { return "ntfy" }

// Capabilities: title, body, click, 3 actions (http actions need
// --public-url), priority; replace and clear only once the server has
// shown it takes sequence ids. No end-to-end encryption: the ntfy server
// reads every message.
func (c *Channel) Capabilities() channel.Capabilities {
	seq := c.Sequences() == "yes"
	return channel.Capabilities{Title: true, Body: true, Click: true, Actions: 3, ActionsNeedPublicURL: true,
		Replace: seq, Clear: seq, Priority: true, MaxTitle: 250, MaxBody: MaxMessage, MaxLabel: 40, Unit: channel.Bytes}
}

// Sequences reports whether the server takes sequence ids: "yes", "no",
// or "" before the first publish told.
func (c *Channel) Sequences() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sequences
}

func (c *Channel) learn(ctx context.Context, v string) {
	c.mu.Lock()
	changed := c.sequences != v
	c.sequences = v
	c.mu.Unlock()
	if changed && c.state != nil {
		c.state.Set(ctx, stateSequences, v)
	}
}

// Publish is the JSON body of POST / (https://docs.ntfy.sh/publish/#publish-as-json).
type Publish struct {
	Topic    string   `json:"topic"`
	Message  string   `json:"message"`
	Title    string   `json:"title,omitempty"`
	Priority int      `json:"priority,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	Click    string   `json:"click,omitempty"`
	Actions  []Action `json:"actions,omitempty"`
	// SequenceID makes a later publish with the same id replace this
	// message, and lets it be cleared (ntfy ≥ 2.16; older servers ignore
	// it).
	SequenceID string `json:"sequence_id,omitempty"`
}

// Action is an ntfy action button (https://docs.ntfy.sh/publish/#action-buttons).
type Action struct {
	Action  string            `json:"action"` // "view" or "http"
	Label   string            `json:"label"`
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	Clear   bool              `json:"clear"`
}

// tags are emoji short codes ntfy shows before the title.
var tags = map[notification.Kind][]string{
	notification.KindBlocked:  {"raising_hand"},
	notification.KindAsked:    {"speech_balloon"},
	notification.KindFinished: {"white_check_mark"},
	notification.KindError:    {"warning"},
	notification.KindTest:     {"test_tube"},
}

// SurfaceHeader names the answering surface to attn's answer endpoint.
const SurfaceHeader = "X-Attn-Surface"

// SequenceID is the sequence id of a tag: "attn-" and 24 hex digits of
// its SHA-256 (ntfy ids are at most 64 of [-_A-Za-z0-9]).
func SequenceID(tag string) string {
	if tag == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(tag))
	return "attn-" + hex.EncodeToString(sum[:12])
}

// Body returns the publish body for m.
func (c *Channel) Body(m channel.Message) Publish {
	p := Publish{Topic: c.cfg.Topic, Message: m.Body, Title: m.Title, Priority: m.Priority,
		Tags: tags[m.Kind], Click: m.Click, SequenceID: SequenceID(m.Tag)}
	if p.Message == "" {
		p.Message = m.Title
	}
	for _, a := range m.Actions {
		body, _ := json.Marshal(struct {
			Nonce       string `json:"nonce"`
			OptionIndex int    `json:"option_index"`
		}{m.Nonce, a.OptionIndex})
		p.Actions = append(p.Actions, Action{Action: "http", Label: a.Label, URL: a.AnswerURL, Method: http.MethodPost,
			Headers: map[string]string{"Content-Type": "application/json", SurfaceHeader: "ntfy"}, Body: string(body), Clear: true})
	}
	if m.Click != "" && len(p.Actions) < 3 && len(p.Actions) > 0 {
		p.Actions = append(p.Actions, Action{Action: "view", Label: "Open", URL: m.Click})
	}
	return p
}

// Send publishes m. The answer tells whether the server took the
// sequence id; the Result's Ref is that id only when it did.
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	p := c.Body(m)
	b, err := json.Marshal(p)
	if err != nil {
		return channel.Failed(fmt.Sprintf("encode ntfy message: %v", err))
	}
	resp, err := c.do(ctx, http.MethodPost, c.cfg.Base+"/", b)
	if err != nil {
		return channel.NetworkResult(err)
	}
	if resp.Status/100 != 2 {
		return c.errorResult(resp)
	}
	var ans struct {
		ID         string `json:"id"`
		SequenceID string `json:"sequence_id"`
	}
	json.Unmarshal(resp.Body, &ans)
	if p.SequenceID == "" {
		return channel.Delivered("")
	}
	if ans.SequenceID == p.SequenceID {
		c.learn(ctx, "yes")
		return channel.Delivered(p.SequenceID)
	}
	c.learn(ctx, "no")
	return channel.Delivered("")
}

// Clear marks the message with sequence id ref read and dismisses it
// (PUT /<topic>/<ref>/clear); skipped on a server without sequence ids.
func (c *Channel) Clear(ctx context.Context, ref string) channel.Result {
	if c.Sequences() != "yes" {
		return channel.Result{Status: channel.StatusSkipped, Detail: "this ntfy server does not take sequence ids (ntfy ≥ 2.16 does): nothing to clear"}
	}
	resp, err := c.do(ctx, http.MethodPut, c.cfg.Base+"/"+c.cfg.Topic+"/"+url.PathEscape(ref)+"/clear", nil)
	if err != nil {
		return channel.NetworkResult(err)
	}
	if resp.Status/100 != 2 {
		return c.errorResult(resp)
	}
	return channel.Delivered(ref)
}

func (c *Channel) do(ctx context.Context, method, target string, body []byte) (*channel.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("ntfy request: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case c.cfg.Token != "":
		req.Header.Set("Authorization", "Bearer "+c.cfg.Token)
	case c.cfg.User != "":
		req.SetBasicAuth(c.cfg.User, c.cfg.Password)
	}
	resp, err := channel.Do(c.client, req, c.shown(target))
	if err != nil {
		return nil, fmt.Errorf("%s", channel.Scrub(err.Error(), c.cfg.Token, c.cfg.Password))
	}
	return resp, nil
}

// shown is a request URL without the topic.
func (c *Channel) shown(target string) string {
	return strings.ReplaceAll(target, "/"+c.cfg.Topic, "/"+hideTopic(c.cfg.Topic))
}

// errorResult maps ntfy's JSON error {"code","http","error","link"}.
func (c *Channel) errorResult(resp *channel.Response) channel.Result {
	var e struct {
		Code  int    `json:"code"`
		Error string `json:"error"`
	}
	detail := channel.Excerpt(resp.Body)
	if json.Unmarshal(resp.Body, &e) == nil && e.Error != "" {
		detail = fmt.Sprintf("%s (ntfy code %d)", e.Error, e.Code)
	}
	switch resp.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		detail += ": check the token or user:password in the channel URL, and that it may publish to this topic"
	}
	return channel.StatusResult(resp, c.now(), channel.Scrub(detail, c.cfg.Token, c.cfg.Password))
}
