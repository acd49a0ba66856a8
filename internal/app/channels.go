package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/channel/registry"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/pipeline"
	"github.com/attn-dev/attn/internal/reply"
	"github.com/attn-dev/attn/internal/route"
	"github.com/attn-dev/attn/internal/watch"
)

// SettingServerID is the settings key of this daemon's id, which FCM
// payloads carry so one phone can tell several machines apart.
const SettingServerID = "server_id"

// openChannels loads the configured channels (ntfy, Telegram, …). Their
// failures are reported through *engine once it is set; Telegram buttons
// answer through the reply service.
func (a *App) openChannels(ctx context.Context, host string, engine **pipeline.Engine) (*channel.Dispatcher, error) {
	id, err := a.store.GetOrCreateSetting(ctx, SettingServerID, func() ([]byte, error) {
		b := make([]byte, 8)
		rand.Read(b)
		return []byte(hex.EncodeToString(b)), nil
	})
	if err != nil {
		return nil, fmt.Errorf("server id: %w", err)
	}
	publicURL := ""
	if len(a.opt.PublicURLs) > 0 {
		publicURL = a.opt.PublicURLs[0]
	}
	log := a.opt.Log
	deps := registry.Deps{Store: a.store, PublicURL: publicURL, ServerID: string(id), ServerName: host,
		Answerer: replyAnswerer{a}, Log: log, Now: a.opt.Now}
	d := channel.NewDispatcher(a.store, channel.Options{
		PublicURL: publicURL, Decisions: a.store, LogContent: a.opt.LogContent, Parse: registry.Parse, Open: deps.Open,
		KindDefault: func(k string) bool { return route.KindEnabled(nil, notification.Kind(k)) },
		OnFailing: func(ctx context.Context, key, title, body string) {
			if e := *engine; e != nil {
				e.Error(ctx, key, title, body)
			}
		},
		Log: log, Now: a.opt.Now,
	})
	if err := d.Reload(ctx); err != nil {
		return nil, err
	}
	if n := d.Count(); n > 0 {
		log.Info("channels loaded", "count", n, "public_url", publicURL != "")
	}
	return d, nil
}

// replyAnswerer takes Telegram button presses through the reply service's
// gates (channel.Answerer).
type replyAnswerer struct{ a *App }

func (r replyAnswerer) Answer(ctx context.Context, nonce string, option int, surface string) (string, error) {
	if r.a.replies == nil {
		return "", channel.ErrAnswersOff
	}
	res := r.a.replies.Answer(ctx, reply.Request{Nonce: nonce, OptionIndex: option, Surface: surface, Device: surface})
	switch {
	case res.Outcome == reply.Applied && res.Option != "":
		return "applied: " + res.Option, nil
	case res.Detail != "":
		return res.Outcome + ": " + res.Detail, nil
	}
	return res.Outcome, nil
}

// deviceOrChannel counts devices and channels: the watcher watches while
// anything can be notified.
type deviceOrChannel struct {
	devices watch.DeviceCounter
	chans   *channel.Dispatcher
}

func (c deviceOrChannel) CountDevices(ctx context.Context) (int, error) {
	n, err := c.devices.CountDevices(ctx)
	return n + c.chans.Count(), err
}
