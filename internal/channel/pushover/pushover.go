// Package pushover is attn's Pushover channel (https://pushover.net/api):
// a form POST to /1/messages.json with priority by kind, field limits
// respected (message 1024 characters, title 250, url 512, url_title 100),
// and escalations sent at emergency priority 2 — which repeats until
// acknowledged and so needs retry ≥ 30 s and expire ≤ 10800 s, checked
// before anything is sent — whose receipt is cancelled
// (POST /1/receipts/<receipt>/cancel.json) when the wait clears.
//
// Channel URL: pushover://shoutrrr:APP_TOKEN@USER_KEY/[?devices=a,b][&retry=60][&expire=1800]
// (shoutrrr's form).
package pushover

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/channel"
)

// Usage is the URL form, for errors.
const Usage = "pushover://shoutrrr:APP_TOKEN@USER_KEY/[?devices=phone][&retry=60][&expire=1800]"

// Emergency priority bounds (https://pushover.net/api#priority).
const (
	MinRetry  = 30 * time.Second
	MaxExpire = 10800 * time.Second
	// DefaultRetry and DefaultExpire: repeat every minute for half an
	// hour, then stop (a blocked question is stale by then).
	DefaultRetry  = time.Minute
	DefaultExpire = 30 * time.Minute
)

// Config is a parsed pushover:// URL.
type Config struct {
	Token   string // the application's API token
	User    string // the user (or group) key
	Devices []string
	// Retry and Expire shape emergency (priority 2) notifications.
	Retry, Expire time.Duration
}

var validKey = regexp.MustCompile(`^[A-Za-z0-9]{30}$`)

// Parse reads a pushover:// URL. Errors say what to write.
func Parse(u *url.URL) (Config, error) {
	if u.Scheme != "pushover" {
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	var c Config
	if u.User != nil {
		c.Token, _ = u.User.Password()
	}
	c.User = u.Host
	if !validKey.MatchString(c.Token) {
		return Config{}, fmt.Errorf("the application token (30 letters and digits, after \"shoutrrr:\") is missing or malformed: write %s", Usage)
	}
	if !validKey.MatchString(c.User) {
		return Config{}, fmt.Errorf("the user key (30 letters and digits, after @) is missing or malformed: write %s", Usage)
	}
	c.Retry, c.Expire = DefaultRetry, DefaultExpire
	for k, v := range u.Query() {
		switch k {
		case "devices":
			for _, d := range strings.Split(v[0], ",") {
				if d = strings.TrimSpace(d); d != "" {
					c.Devices = append(c.Devices, d)
				}
			}
		case "retry", "expire":
			s, err := strconv.Atoi(v[0])
			if err != nil {
				return Config{}, fmt.Errorf("%s=%q: want seconds, e.g. %s=60", k, v[0], k)
			}
			if k == "retry" {
				c.Retry = time.Duration(s) * time.Second
			} else {
				c.Expire = time.Duration(s) * time.Second
			}
		default:
			return Config{}, fmt.Errorf("unknown parameter %q: a pushover URL takes devices=, retry= and expire=", k)
		}
	}
	if err := c.checkEmergency(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// checkEmergency validates the emergency parameters.
func (c Config) checkEmergency() error {
	if c.Retry < MinRetry {
		return fmt.Errorf("retry=%d: emergency notifications need retry of at least 30 seconds (Pushover refuses less)", int(c.Retry/time.Second))
	}
	if c.Expire > MaxExpire || c.Expire < c.Retry {
		return fmt.Errorf("expire=%d: want from retry (%d) up to 10800 seconds (3 hours, Pushover's limit)", int(c.Expire/time.Second), int(c.Retry/time.Second))
	}
	return nil
}

// Redact shows a pushover URL without its token and user key.
func Redact(u *url.URL) string {
	s := "pushover://shoutrrr:***@***/"
	if u.RawQuery != "" {
		s += "?" + u.RawQuery
	}
	return s
}

// Options are a Channel's collaborators.
type Options struct {
	// APIBase is Pushover's API URL (default https://api.pushover.net).
	APIBase string
	Client  *http.Client
	Now     func() time.Time
}

// Channel sends to one Pushover user.
type Channel struct {
	cfg Config
	opt Options
}

// New returns a Pushover channel.
func New(cfg Config, opt Options) *Channel {
	if opt.APIBase == "" {
		opt.APIBase = "https://api.pushover.net"
	}
	opt.APIBase = strings.TrimRight(opt.APIBase, "/")
	if opt.Client == nil {
		opt.Client = channel.NewHTTPClient(30 * time.Second)
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Channel{cfg: cfg, opt: opt}
}

// Kind returns "pushover".
func (c *Channel) Kind() string { return "pushover" }

// Capabilities: title ≤ 250 and message ≤ 1024 characters, a click URL,
// priority; clear only for emergency messages (their receipt). No
// buttons, no end-to-end encryption.
func (c *Channel) Capabilities() channel.Capabilities {
	return channel.Capabilities{Title: true, Body: true, Click: true, Priority: true, Clear: true,
		MaxTitle: 250, MaxBody: 1024, Unit: channel.Runes}
}

// Priority maps attn's 1–5 priority to Pushover's −2…2: 5 (an
// escalation) is emergency 2; 4 (blocked, asked) high 1; 3 normal 0; 2
// (finished) quiet −1; a silent replacement is quiet −1.
func Priority(m channel.Message) int {
	if m.Silent && !m.Escalation {
		return -1
	}
	return max(m.Priority-3, -2)
}

// Form returns the form fields of m, or why it is refused before sending.
func (c *Channel) Form(m channel.Message) (url.Values, error) {
	f := url.Values{}
	f.Set("token", c.cfg.Token)
	f.Set("user", c.cfg.User)
	f.Set("title", m.Title)
	body := m.Body
	if body == "" {
		body = m.Title
	}
	f.Set("message", body)
	if m.Click != "" && len(m.Click) <= 512 {
		f.Set("url", m.Click)
		f.Set("url_title", "Open in attn")
	}
	if len(c.cfg.Devices) > 0 {
		f.Set("device", strings.Join(c.cfg.Devices, ","))
	}
	p := Priority(m)
	f.Set("priority", strconv.Itoa(p))
	if !m.Created.IsZero() {
		f.Set("timestamp", strconv.FormatInt(m.Created.Unix(), 10))
	}
	if p == 2 {
		if err := c.cfg.checkEmergency(); err != nil {
			return nil, fmt.Errorf("emergency priority refused before sending: %w", err)
		}
		f.Set("retry", strconv.Itoa(int(c.cfg.Retry/time.Second)))
		f.Set("expire", strconv.Itoa(int(c.cfg.Expire/time.Second)))
	} else if ttl := m.Expires.Sub(m.Created); ttl > 0 && !m.Created.IsZero() {
		f.Set("ttl", strconv.Itoa(int(ttl/time.Second))) // gone from the device when stale
	}
	return f, nil
}

// Send posts m. An emergency message's Ref is its receipt.
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	form, err := c.Form(m)
	if err != nil {
		return channel.Failed(err.Error())
	}
	var ans struct {
		Receipt string `json:"receipt"`
	}
	res := c.post(ctx, "/1/messages.json", form, &ans)
	if res.Status == channel.StatusDelivered {
		res.Ref = ans.Receipt
	}
	return res
}

// Clear cancels the emergency retries of receipt ref: the wait cleared,
// the phone stops repeating.
func (c *Channel) Clear(ctx context.Context, ref string) channel.Result {
	if ref == "" {
		return channel.Result{Status: channel.StatusSkipped, Detail: "no receipt to cancel"}
	}
	form := url.Values{}
	form.Set("token", c.cfg.Token)
	return c.post(ctx, "/1/receipts/"+url.PathEscape(ref)+"/cancel.json", form, nil)
}

func (c *Channel) post(ctx context.Context, path string, form url.Values, out any) channel.Result {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.opt.APIBase+path, strings.NewReader(form.Encode()))
	if err != nil {
		return channel.Failed(fmt.Sprintf("pushover request: %v", err))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := channel.Do(c.opt.Client, req, c.opt.APIBase+path)
	if err != nil {
		return channel.NetworkResult(fmt.Errorf("%s", channel.Scrub(err.Error(), c.cfg.Token, c.cfg.User)))
	}
	var ans struct {
		Status int      `json:"status"`
		Errors []string `json:"errors"`
	}
	json.Unmarshal(resp.Body, &ans)
	if resp.Status/100 == 2 && ans.Status == 1 {
		if out != nil {
			json.Unmarshal(resp.Body, out)
		}
		return channel.Delivered("")
	}
	detail := channel.Excerpt(resp.Body)
	if len(ans.Errors) > 0 {
		detail = "pushover: " + strings.Join(ans.Errors, "; ")
	}
	detail = channel.Scrub(detail, c.cfg.Token, c.cfg.User)
	if strings.Contains(detail, "token is invalid") || strings.Contains(detail, "user identifier") {
		detail += " (check the token and user key in the channel URL)"
	}
	return channel.StatusResult(resp, c.opt.Now(), detail)
}
