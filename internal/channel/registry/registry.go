// Package registry maps channel URLs to channels: Parse checks a URL and
// names its kind (ntfy, telegram, pushover, gotify, fcm, webhook,
// desktop) with its secrets redacted; Deps.Open builds the live channel
// from a stored configuration with the collaborators it needs (its state
// and tokens in the store, attn's public URL and server identity, the
// answer entry point). The URL forms follow shoutrrr's where it has one.
package registry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/desktop"
	"github.com/attn-dev/attn/internal/channel/fcm"
	"github.com/attn-dev/attn/internal/channel/gotify"
	"github.com/attn-dev/attn/internal/channel/ntfy"
	"github.com/attn-dev/attn/internal/channel/pushover"
	"github.com/attn-dev/attn/internal/channel/telegram"
	"github.com/attn-dev/attn/internal/channel/webhook"
	"github.com/attn-dev/attn/internal/store"
)

// Forms lists every channel URL form, for help and errors.
var Forms = []string{ntfy.Usage, telegram.Usage, pushover.Usage, gotify.Usage, fcm.Usage, webhook.Usage, desktop.Usage}

// Parse checks raw and returns the channel kind and the URL with its
// secrets replaced by "***". The error says what to write; it never
// repeats the URL (it may hold a token).
func Parse(raw string) (kind, redacted string, err error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", "", fmt.Errorf("not a URL (%v): channel URLs look like %s", err, strings.Join(Forms, ", "))
	}
	switch u.Scheme {
	case "ntfy":
		_, err = ntfy.Parse(u)
		return "ntfy", ntfy.Redact(u), err
	case "telegram":
		_, err = telegram.Parse(u)
		return "telegram", telegram.Redact(u), err
	case "pushover":
		_, err = pushover.Parse(u)
		return "pushover", pushover.Redact(u), err
	case "gotify":
		_, err = gotify.Parse(u)
		return "gotify", gotify.Redact(u), err
	case "fcm":
		_, err = fcm.Parse(u)
		return "fcm", fcm.Redact(u), err
	case "https", "http":
		_, err = webhook.Parse(u)
		return "webhook", webhook.Redact(u), err
	case "desktop":
		_, err = desktop.Parse(u)
		return "desktop", desktop.Redact(u), err
	case "":
		return "", "", fmt.Errorf("no scheme: channel URLs look like %s", strings.Join(Forms, ", "))
	}
	return "", "", fmt.Errorf("unknown scheme %q: channel URLs look like %s", u.Scheme, strings.Join(Forms, ", "))
}

// Store is the per-channel persistence channels use (implemented by
// *store.Store).
type Store interface {
	ChannelState(ctx context.Context, id int64, key string) (string, error)
	SetChannelState(ctx context.Context, id int64, key, value string) error
	ChannelTokens(ctx context.Context, id int64) ([]store.ChannelToken, error)
	EnsureChannelToken(ctx context.Context, id int64, token string) error
	DropChannelToken(ctx context.Context, id int64, token, detail string) error
}

// Deps are what channels are opened with.
type Deps struct {
	Store Store
	// PublicURL is attn's public base URL ("" when unset).
	PublicURL string
	// ServerID and ServerName name this daemon in FCM payloads.
	ServerID, ServerName string
	// Answerer takes answers from Telegram buttons; nil: "answers are not
	// enabled".
	Answerer channel.Answerer
	Log      *slog.Logger
	Now      func() time.Time
	// Client, when set, sends every channel's requests (tests).
	Client *http.Client
	// TelegramAPI, PushoverAPI and FCMEndpoint override the services'
	// base URLs (tests).
	TelegramAPI, PushoverAPI, FCMEndpoint string
}

// Open builds the live channel for a stored configuration.
func (d Deps) Open(c store.Channel) (channel.Channel, error) {
	u, err := url.Parse(c.URL)
	if err != nil {
		return nil, errors.New("the stored URL is unreadable: remove the channel and add it again")
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var st channel.State
	if d.Store != nil && c.ID != 0 {
		st = state{d.Store, c.ID}
	}
	switch c.Kind {
	case "ntfy":
		cfg, err := ntfy.Parse(u)
		if err != nil {
			return nil, err
		}
		return ntfy.New(cfg, ntfy.Options{Client: d.Client, State: st, Now: now}), nil
	case "telegram":
		cfg, err := telegram.Parse(u)
		if err != nil {
			return nil, err
		}
		return telegram.New(cfg, telegram.Options{APIBase: d.TelegramAPI, Client: d.Client, State: st, Answerer: d.Answerer,
			Log: log.With("channel", c.Name), Now: now}), nil
	case "pushover":
		cfg, err := pushover.Parse(u)
		if err != nil {
			return nil, err
		}
		return pushover.New(cfg, pushover.Options{APIBase: d.PushoverAPI, Client: d.Client, Now: now}), nil
	case "gotify":
		cfg, err := gotify.Parse(u)
		if err != nil {
			return nil, err
		}
		return gotify.New(cfg, gotify.Options{Client: d.Client, Now: now}), nil
	case "fcm":
		cfg, err := fcm.Parse(u)
		if err != nil {
			return nil, err
		}
		var toks fcm.Tokens
		if d.Store != nil && c.ID != 0 {
			toks = tokens{d.Store, c.ID}
		}
		return fcm.Open(cfg, fcm.Options{Endpoint: d.FCMEndpoint, Client: d.Client, Tokens: toks,
			ServerID: d.ServerID, ServerName: d.ServerName, Now: now})
	case "webhook":
		cfg, err := webhook.Parse(u)
		if err != nil {
			return nil, err
		}
		return webhook.New(cfg, webhook.Options{Client: d.Client, Now: now}), nil
	case "desktop":
		cfg, err := desktop.Parse(u)
		if err != nil {
			return nil, err
		}
		return desktop.New(cfg, desktop.Options{}), nil
	}
	return nil, fmt.Errorf("unknown channel kind %q: remove the channel", c.Kind)
}

// state binds the store's channel state to one channel.
type state struct {
	st Store
	id int64
}

func (s state) Get(ctx context.Context, key string) (string, error) {
	return s.st.ChannelState(ctx, s.id, key)
}
func (s state) Set(ctx context.Context, key, value string) error {
	return s.st.SetChannelState(ctx, s.id, key, value)
}

// tokens binds the store's device tokens to one channel.
type tokens struct {
	st Store
	id int64
}

func (t tokens) Tokens(ctx context.Context) ([]store.ChannelToken, error) {
	return t.st.ChannelTokens(ctx, t.id)
}
func (t tokens) Ensure(ctx context.Context, token string) error {
	return t.st.EnsureChannelToken(ctx, t.id, token)
}
func (t tokens) Drop(ctx context.Context, token, detail string) error {
	return t.st.DropChannelToken(ctx, t.id, token, detail)
}
