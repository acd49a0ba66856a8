// Package fcm is attn's FCM HTTP v1 channel, for an Android app of one's
// own (https://firebase.google.com/docs/reference/fcm/rest/v1/projects.messages),
// following the alert/dismiss contract of seed 003:
//
//   - Every alert is a pair sent to each device token: render "os" (a
//     notification block Android draws unaided, even when the app is
//     killed) and render "app" (data only, which the app redraws with
//     answer buttons), sharing one tag "<server_id>/<host>/<pane>" so the
//     second replaces the first. Delivery is counted on the os half.
//   - Data keys: type, render, agent, status, kind, server_id,
//     server_name, agent_title, title, body (≤ 240 runes), question,
//     options, nonce, actions, url, fingerprint, ts — every value a string.
//   - Two Android channels: attn_blocked (high importance: blocked, asked,
//     error, test) and attn_done (default: finished).
//   - android.priority HIGH on every message (a normal one may wait for a
//     Doze maintenance window), collapse_key the tag, ttl the
//     notification's.
//   - When a wait clears, a data-only {"type":"dismiss"} message with the
//     same collapse key makes the app cancel the tag.
//   - UNREGISTERED (404) drops that token; registering the same token
//     again revives it. INVALID_ARGUMENT is not retried; QUOTA_EXCEEDED,
//     UNAVAILABLE and INTERNAL are, honoring Retry-After.
//
// Access tokens come from a service-account key through
// golang.org/x/oauth2/google (scope firebase.messaging), cached until
// near expiry.
//
// Channel URL: fcm://PROJECT_ID?credentials=/path/to/service-account.json[&token=DEVICE_TOKEN…][&server_name=NAME]
// (PROJECT_ID may be left out: fcm://?credentials=… takes the key file's).
package fcm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// Usage is the URL form, for errors.
const Usage = "fcm://PROJECT_ID?credentials=/path/to/service-account.json[&token=DEVICE_TOKEN][&server_name=NAME]"

// Scope is the OAuth scope of FCM HTTP v1.
const Scope = "https://www.googleapis.com/auth/firebase.messaging"

// The Android notification channels the app creates (seed 003 §4): a
// push naming another is dropped silently on Android 8+.
const (
	ChannelBlocked = "attn_blocked" // high importance: sound, heads-up
	ChannelDone    = "attn_done"    // default importance: quiet
)

// Config is a parsed fcm:// URL.
type Config struct {
	Project     string // "" until read from the key file
	Credentials string // absolute path of the service-account key file
	Tokens      []string
	ServerName  string
}

// Parse reads an fcm:// URL. Errors say what to write.
func Parse(u *url.URL) (Config, error) {
	if u.Scheme != "fcm" {
		return Config{}, fmt.Errorf("want %s", Usage)
	}
	c := Config{Project: u.Host}
	for k, v := range u.Query() {
		switch k {
		case "credentials":
			c.Credentials = v[0]
		case "token":
			for _, t := range v {
				if t = strings.TrimSpace(t); t != "" {
					c.Tokens = append(c.Tokens, t)
				}
			}
		case "server_name":
			c.ServerName = v[0]
		default:
			return Config{}, fmt.Errorf("unknown parameter %q: an fcm URL takes credentials=, token= and server_name=", k)
		}
	}
	if c.Credentials == "" || !filepath.IsAbs(c.Credentials) {
		return Config{}, fmt.Errorf("credentials= must be the absolute path of the service account's JSON key (Firebase console → Project settings → Service accounts): write %s", Usage)
	}
	return c, nil
}

// Redact shows an fcm URL without its device tokens.
func Redact(u *url.URL) string {
	q := u.Query()
	if n := len(q["token"]); n > 0 {
		q["token"] = []string{"***"}
	}
	s := "fcm://" + u.Host
	if enc := q.Encode(); enc != "" {
		s += "?" + strings.ReplaceAll(enc, "%2A%2A%2A", "***")
	}
	return s
}

// Tokens is the channel's device-token registry (the store, bound to this
// channel).
type Tokens interface {
	Tokens(ctx context.Context) ([]store.ChannelToken, error)
	// Ensure registers a token unless it is known (a dropped token stays
	// dropped).
	Ensure(ctx context.Context, token string) error
	Drop(ctx context.Context, token, detail string) error
}

// Options are a Channel's collaborators.
type Options struct {
	// Endpoint is FCM's base URL (default https://fcm.googleapis.com).
	Endpoint string
	Client   *http.Client
	Tokens   Tokens
	// ServerID and ServerName name this attn daemon in every payload
	// (seed 003 §1: one phone, several machines).
	ServerID, ServerName string
	Now                  func() time.Time
}

// Channel pushes to one Firebase project's app installs.
type Channel struct {
	cfg     Config
	opt     Options
	tokSrc  oauth2.TokenSource
	ensured sync.Once
}

// Open reads the service-account key and returns the channel; no request
// is made until the first send. Errors say what to fix.
func Open(cfg Config, opt Options) (*Channel, error) {
	raw, err := os.ReadFile(cfg.Credentials)
	if err != nil {
		return nil, fmt.Errorf("read the service account key %s (attn serve must be able to read it): %w", cfg.Credentials, err)
	}
	jc, err := google.JWTConfigFromJSON(raw, Scope)
	if err != nil {
		// The parser's error can quote the file's bytes: never pass it on.
		return nil, fmt.Errorf("the key %s is not a service account key (download one from Firebase console → Project settings → Service accounts)", cfg.Credentials)
	}
	if cfg.Project == "" {
		var f struct {
			ProjectID string `json:"project_id"`
		}
		json.Unmarshal(raw, &f)
		if cfg.Project = f.ProjectID; cfg.Project == "" {
			return nil, fmt.Errorf("the key %s names no project_id: write the project in the URL, %s", cfg.Credentials, Usage)
		}
	}
	if opt.Endpoint == "" {
		opt.Endpoint = "https://fcm.googleapis.com"
	}
	opt.Endpoint = strings.TrimRight(opt.Endpoint, "/")
	if opt.Client == nil {
		opt.Client = channel.NewHTTPClient(15 * time.Second) // seed 003 §8
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if cfg.ServerName != "" {
		opt.ServerName = cfg.ServerName
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, opt.Client)
	return &Channel{cfg: cfg, opt: opt, tokSrc: jc.TokenSource(ctx)}, nil
}

// Kind returns "fcm".
func (c *Channel) Kind() string { return "fcm" }

// Capabilities: title, body (≤ 240 runes, seed 003 §2), answer buttons
// drawn by the app (2), replace by tag, clear (dismiss), priority. No
// end-to-end encryption beyond FCM's transport.
func (c *Channel) Capabilities() channel.Capabilities {
	return channel.Capabilities{Title: true, Body: true, Click: true, Actions: 2, Replace: true, Clear: true,
		Priority: true, MaxTitle: 100, MaxBody: 240, MaxLabel: 40, Unit: channel.Runes}
}

// Agent is the pane a message is about ("host/pane"), the deep-link
// target and, with the server id, the tag.
func Agent(m channel.Message) string {
	if m.Pane == "" {
		return m.Tag
	}
	return m.Host + "/" + m.Pane
}

// Tag is the Android notification tag and collapse key:
// "<server_id>/<agent>".
func (c *Channel) Tag(agent string) string { return c.opt.ServerID + "/" + agent }

// Message is an FCM v1 message (the "message" of messages:send).
type Message struct {
	Token        string            `json:"token"`
	Notification *Notification     `json:"notification,omitempty"`
	Data         map[string]string `json:"data"`
	Android      Android           `json:"android"`
}

// Notification is the system-drawn half's title and body.
type Notification struct {
	Title string `json:"title"`
	Body  string `json:"body"`
}

// Android is the android config.
type Android struct {
	Priority     string               `json:"priority"` // "HIGH"
	CollapseKey  string               `json:"collapse_key"`
	TTL          string               `json:"ttl,omitempty"` // "600s"
	Notification *AndroidNotification `json:"notification,omitempty"`
}

// AndroidNotification is the os half's Android rendering.
type AndroidNotification struct {
	Tag                  string `json:"tag"`
	ChannelID            string `json:"channel_id"`
	NotificationPriority string `json:"notification_priority"`
	DefaultSound         bool   `json:"default_sound"`
}

// Alert returns the os and app halves of m for one device token.
func (c *Channel) Alert(m channel.Message, token string) (osHalf, appHalf Message) {
	agent := Agent(m)
	tag := c.Tag(agent)
	status := "blocked"
	if m.Kind == notification.KindFinished {
		status = "done"
	}
	data := map[string]string{
		"type": "alert", "agent": agent, "status": status, "kind": string(m.Kind),
		"server_id": c.opt.ServerID, "server_name": c.opt.ServerName, "agent_title": m.Name,
		"title": m.Title, "body": m.Body, "url": m.CardPath, "fingerprint": m.Fingerprint,
		"ts": strconv.FormatInt(m.Created.UnixMilli(), 10),
	}
	if m.Question != nil {
		data["question"] = m.Question.Prompt
		type opt struct {
			Index    int    `json:"index"`
			Label    string `json:"label"`
			Selected bool   `json:"selected"`
		}
		opts := make([]opt, len(m.Question.Options))
		for i, l := range m.Question.Options {
			opts[i] = opt{i, l, i == m.Question.Selected}
		}
		b, _ := json.Marshal(opts)
		data["options"] = string(b)
	}
	if len(m.Actions) > 0 {
		type act struct {
			Label       string `json:"label"`
			OptionIndex int    `json:"option_index"`
		}
		acts := make([]act, len(m.Actions))
		for i, a := range m.Actions {
			acts[i] = act{a.Label, a.OptionIndex}
		}
		b, _ := json.Marshal(acts)
		data["actions"], data["nonce"] = string(b), m.Nonce
	}
	for k, v := range data {
		if v == "" {
			delete(data, k)
		}
	}
	chanID, prio := ChannelBlocked, "PRIORITY_HIGH"
	if m.Kind == notification.KindFinished {
		chanID, prio = ChannelDone, "PRIORITY_DEFAULT"
	}
	if m.Silent {
		prio = "PRIORITY_DEFAULT"
	}
	android := Android{Priority: "HIGH", CollapseKey: tag}
	if ttl := m.Expires.Sub(c.opt.Now()); !m.Expires.IsZero() && ttl > 0 {
		android.TTL = strconv.Itoa(int(ttl.Round(time.Second)/time.Second)) + "s"
	}
	osData := map[string]string{"render": "os"}
	appData := map[string]string{"render": "app"}
	for k, v := range data {
		osData[k], appData[k] = v, v
	}
	osHalf = Message{Token: token, Notification: &Notification{Title: m.Title, Body: m.Body}, Data: osData, Android: android}
	osHalf.Android.Notification = &AndroidNotification{Tag: tag, ChannelID: chanID, NotificationPriority: prio, DefaultSound: !m.Silent}
	appHalf = Message{Token: token, Data: appData, Android: android}
	return osHalf, appHalf
}

// Dismiss returns the data-only message that makes the app cancel agent's
// notification (seed 003 §3): it never draws anything. Like every
// payload it names the server.
func (c *Channel) Dismiss(agent, token string) Message {
	data := map[string]string{"type": "dismiss", "agent": agent, "server_id": c.opt.ServerID, "server_name": c.opt.ServerName}
	if data["server_name"] == "" {
		delete(data, "server_name")
	}
	return Message{Token: token, Data: data,
		Android: Android{Priority: "HIGH", CollapseKey: c.Tag(agent)}}
}

// activeTokens lists the tokens not dropped; gone is true when every
// known token was dropped.
func (c *Channel) activeTokens(ctx context.Context) (active []string, gone bool, err error) {
	if c.opt.Tokens == nil {
		return c.cfg.Tokens, false, nil
	}
	c.ensured.Do(func() {
		for _, t := range c.cfg.Tokens {
			c.opt.Tokens.Ensure(ctx, t)
		}
	})
	all, err := c.opt.Tokens.Tokens(ctx)
	if err != nil {
		return nil, false, err
	}
	for _, t := range all {
		if t.Dropped.IsZero() {
			active = append(active, t.Token)
		}
	}
	return active, len(all) > 0 && len(active) == 0, nil
}

// Send sends the alert pair to every active token. Its Ref is the agent,
// for the dismiss.
func (c *Channel) Send(ctx context.Context, m channel.Message) channel.Result {
	tokens, gone, err := c.activeTokens(ctx)
	switch {
	case err != nil:
		return channel.Retry(fmt.Sprintf("read device tokens: %v", err), 0)
	case gone:
		return channel.Result{Status: channel.StatusGone, Detail: "every device token was unregistered (app uninstalled or data cleared): open the app so it registers again"}
	case len(tokens) == 0:
		return channel.Failed("no device token: the app registers one with POST /api/channels/<name>/tokens, or add token= to the channel URL")
	}
	var delivered, retry, failed []channel.Result
	for _, tok := range tokens {
		osMsg, appMsg := c.Alert(m, tok)
		res := c.post(ctx, osMsg)
		switch res.Status {
		case channel.StatusDelivered:
			delivered = append(delivered, res)
			c.post(ctx, appMsg) // best effort: the os half already shows it
		case channel.StatusRetry:
			retry = append(retry, res)
		case channel.StatusGone:
		default:
			failed = append(failed, res)
		}
	}
	switch {
	case len(delivered) > 0:
		return channel.Delivered(Agent(m))
	case len(retry) > 0:
		r := retry[0]
		for _, x := range retry {
			r.RetryAfter = max(r.RetryAfter, x.RetryAfter)
		}
		return r
	case len(failed) > 0:
		return failed[0]
	}
	return channel.Result{Status: channel.StatusGone, Detail: "every device token was unregistered: open the app so it registers again"}
}

// Clear sends the dismiss for agent ref to every active token.
func (c *Channel) Clear(ctx context.Context, ref string) channel.Result {
	tokens, _, err := c.activeTokens(ctx)
	if err != nil {
		return channel.Retry(fmt.Sprintf("read device tokens: %v", err), 0)
	}
	res := channel.Result{Status: channel.StatusSkipped, Detail: "no device token"}
	for _, tok := range tokens {
		if r := c.post(ctx, c.Dismiss(ref, tok)); res.Status != channel.StatusDelivered {
			res = r
		}
	}
	return res
}

// post sends one message; an UNREGISTERED answer drops its token.
func (c *Channel) post(ctx context.Context, msg Message) channel.Result {
	at, err := c.tokSrc.Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode/100 == 4 {
			why := strings.TrimSpace(re.ErrorCode + " " + re.ErrorDescription)
			var e struct {
				Error       string `json:"error"`
				Description string `json:"error_description"`
			}
			if json.Unmarshal(re.Body, &e) == nil && e.Error != "" {
				why = e.Error + ": " + e.Description
			}
			return channel.Failed(fmt.Sprintf("Google refused the service account key (%s): create a new key for it", channel.Clip(channel.CleanLine(why), 200, channel.Bytes)))
		}
		return channel.Retry(fmt.Sprintf("get an FCM access token: %v", err), 0)
	}
	b, err := json.Marshal(map[string]any{"message": msg})
	if err != nil {
		return channel.Failed(fmt.Sprintf("encode FCM message: %v", err))
	}
	target := c.opt.Endpoint + "/v1/projects/" + url.PathEscape(c.cfg.Project) + "/messages:send"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(b))
	if err != nil {
		return channel.Failed(fmt.Sprintf("fcm request: %v", err))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+at.AccessToken)
	resp, err := channel.Do(c.opt.Client, req, target)
	if err != nil {
		return channel.NetworkResult(fmt.Errorf("%s", channel.Scrub(err.Error(), at.AccessToken, msg.Token)))
	}
	if resp.Status/100 == 2 {
		return channel.Delivered("")
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
			Details []struct {
				Type      string `json:"@type"`
				ErrorCode string `json:"errorCode"`
			} `json:"details"`
		} `json:"error"`
	}
	json.Unmarshal(resp.Body, &e)
	code := e.Error.Status
	for _, d := range e.Error.Details {
		if strings.HasSuffix(d.Type, "google.firebase.fcm.v1.FcmError") && d.ErrorCode != "" {
			code = d.ErrorCode
		}
	}
	detail := channel.Scrub(fmt.Sprintf("fcm %s: %s", code, e.Error.Message), msg.Token, at.AccessToken)
	if code == "" {
		detail = "fcm: " + channel.Excerpt(resp.Body)
	}
	switch code {
	case "UNREGISTERED", "SENDER_ID_MISMATCH":
		why := detail + " (the app was uninstalled, or its token belongs to another project)"
		if c.opt.Tokens != nil {
			dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			c.opt.Tokens.Drop(dctx, msg.Token, why)
			cancel()
		}
		return channel.Result{Status: channel.StatusGone, Detail: why}
	case "INVALID_ARGUMENT":
		return channel.Failed(detail)
	case "THIRD_PARTY_AUTH_ERROR", "PERMISSION_DENIED", "UNAUTHENTICATED":
		return channel.Failed(detail + ": check the service account has the Firebase Cloud Messaging API Admin role in this project")
	}
	return channel.StatusResult(resp, c.opt.Now(), detail)
}
