// Package route is the router: for each device it applies the device's
// kind choices and presence (DESIGN.md, "Devices, presence, choices"),
// then hands the notification to the in-app channel (a visible window) or
// to Web Push, and logs a decision for every device it does not send to.
// Configured channels (ntfy, Telegram, …; package channel) get it too, by
// their own kind choices.
package route

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/attn-dev/attn/internal/channel"
	"github.com/attn-dev/attn/internal/deliver"
	"github.com/attn-dev/attn/internal/inapp"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/presence"
	"github.com/attn-dev/attn/internal/store"
)

// DefaultKinds says which kinds may interrupt a device that chose nothing:
// blocked, asked, error and test on; finished off (DESIGN.md, "Finished").
var DefaultKinds = map[notification.Kind]bool{
	notification.KindBlocked:  true,
	notification.KindAsked:    true,
	notification.KindError:    true,
	notification.KindTest:     true,
	notification.KindFinished: false,
}

// KindEnabled resolves a device's choice for kind over the default.
func KindEnabled(choices map[string]bool, kind notification.Kind) bool {
	if on, ok := choices[string(kind)]; ok {
		return on
	}
	return DefaultKinds[kind]
}

// Devices reads the registry (implemented by *store.Store).
type Devices interface {
	Devices(ctx context.Context) ([]store.Device, error)
	DeviceKinds(ctx context.Context) (map[int64]map[string]bool, error)
}

// WebPush is the Web Push channel (implemented by *deliver.Deliverer).
type WebPush interface {
	DeliverTo(ctx context.Context, n notification.Notification, devs []store.Device) deliver.Report
	Enqueue(ctx context.Context, n notification.Notification, devs []store.Device) error
}

// Channels are the configured channels beyond Web Push — ntfy, Telegram,
// Pushover, … (implemented by *channel.Dispatcher). Deliver waits for
// every answer; Enqueue never blocks and returns the outcomes of the
// channels whose queue was full.
type Channels interface {
	Targets(ctx context.Context) ([]channel.Target, error)
	Deliver(ctx context.Context, n notification.Notification, targets []channel.Target) []deliver.DeviceOutcome
	Enqueue(ctx context.Context, n notification.Notification, targets []channel.Target) (queued int, refused []deliver.DeviceOutcome)
}

// Router routes notifications to devices.
type Router struct {
	Devices  Devices
	Presence *presence.Registry
	InApp    *inapp.Broker
	WebPush  WebPush
	// Channels, when set, also get every notification their kind choices
	// take (presence is a device's and does not gate them).
	Channels   Channels
	Decisions  deliver.DecisionLog
	LogContent bool
	Log        *slog.Logger
	Now        func() time.Time
}

// Route sends n to every device that takes it. With wait it returns after
// Web Push answered for every device; without, it queues the sends.
func (r *Router) Route(ctx context.Context, n notification.Notification, wait bool) deliver.Report {
	devs, err := r.Devices.Devices(ctx)
	if err != nil {
		return deliver.Report{Transports: []string{}, Devices: []deliver.DeviceOutcome{}, Detail: fmt.Sprintf("cannot read devices: %v", err)}
	}
	choices, err := r.Devices.DeviceKinds(ctx)
	if err != nil {
		return deliver.Report{Transports: []string{}, Devices: []deliver.DeviceOutcome{}, Detail: fmt.Sprintf("cannot read kind choices: %v", err)}
	}
	var targets []channel.Target
	if r.Channels != nil {
		if targets, err = r.Channels.Targets(ctx); err != nil {
			r.Log.Warn("cannot read channels; sending to devices only", "err", err)
		}
	}
	if len(devs) == 0 && len(targets) == 0 {
		r.decide(ctx, n, store.Device{}, "", store.DecisionSuppressed, "no-device", "no device is registered")
		return deliver.Summarize(nil)
	}
	now := r.Now()
	var outcomes []deliver.DeviceOutcome
	// Channels first, by their own kind choices: queued (or, with wait,
	// sent concurrently with Web Push below).
	var take []channel.Target
	for _, t := range targets {
		if n.Kind != notification.KindTest && !KindEnabled(t.Kinds, n.Kind) {
			outcomes = append(outcomes, deliver.DeviceOutcome{Name: t.Name, Channel: t.Kind, Outcome: store.DecisionSuppressed, Detail: "kind-off"})
			r.decide(ctx, n, store.Device{Name: t.Name}, t.Kind, store.DecisionSuppressed, "kind-off", string(n.Kind)+" is off for this channel")
			continue
		}
		take = append(take, t)
	}
	var chOut []deliver.DeviceOutcome
	chDone, chQueued := make(chan struct{}), false
	switch {
	case len(take) > 0 && wait:
		go func() { defer close(chDone); chOut = r.Channels.Deliver(ctx, n, take) }()
	case len(take) > 0:
		q, refused := r.Channels.Enqueue(ctx, n, take)
		outcomes, chQueued = append(outcomes, refused...), q > 0
		close(chDone)
	default:
		close(chDone)
	}
	var push []store.Device
	pane := n.Host + "/" + n.Pane
	for _, dev := range devs {
		o := deliver.DeviceOutcome{DeviceID: dev.ID, Name: dev.Name}
		if n.Kind != notification.KindTest && !KindEnabled(choices[dev.ID], n.Kind) {
			o.Outcome, o.Detail = store.DecisionSuppressed, "kind-off"
			r.decide(ctx, n, dev, "", store.DecisionSuppressed, "kind-off", string(n.Kind)+" is off for this device")
			outcomes = append(outcomes, o)
			continue
		}
		if p, ok := r.Presence.Get(dev.ID, now); ok && p.Visible {
			if n.Pane != "" && p.Focused == pane && (n.Kind == notification.KindBlocked || n.Kind == notification.KindFinished) {
				o.Outcome, o.Detail = store.DecisionSuppressed, "focused"
				r.decide(ctx, n, dev, "inapp", store.DecisionSuppressed, "focused", "its window is showing this pane")
				outcomes = append(outcomes, o)
				continue
			}
			if r.InApp.Publish(dev.ID, n) {
				o.Channel, o.Outcome = "inapp", "delivered"
				r.decide(ctx, n, dev, "inapp", store.DecisionSent, "", "shown in the open window instead of a push")
				outcomes = append(outcomes, o)
				continue
			}
			// Visible, but no window is listening: push, never miss.
		}
		push = append(push, dev)
	}
	if len(push) > 0 {
		if wait {
			outcomes = append(outcomes, r.WebPush.DeliverTo(ctx, n, push).Devices...)
		} else if err := r.WebPush.Enqueue(ctx, n, push); err != nil {
			rep := deliver.Summarize(outcomes)
			// Retried only when no channel took it either (no duplicates).
			rep.QueueFull, rep.Queued = errors.Is(err, deliver.ErrQueueFull) && !chQueued, chQueued
			r.Log.Warn("cannot queue notification; will retry", "kind", n.Kind, "pane", pane, "err", err)
			return rep
		} else {
			rep := deliver.Summarize(outcomes)
			rep.Queued = true
			return rep
		}
	}
	<-chDone
	rep := deliver.Summarize(append(outcomes, chOut...))
	// Every channel's queue was full and nothing else took it: retried.
	rep.Queued, rep.QueueFull = chQueued, !wait && len(take) > 0 && !chQueued && !rep.Sent
	return rep
}

func (r *Router) decide(ctx context.Context, n notification.Notification, dev store.Device, channel, outcome, reason, detail string) {
	if r.Decisions == nil {
		return
	}
	row := deliver.Decision(n, dev, channel)
	row.Stage, row.Outcome, row.Reason, row.Detail = "route", outcome, reason, detail
	if n.Created.IsZero() {
		row.At = r.Now()
	}
	if !r.LogContent {
		row.Content = ""
	}
	if err := r.Decisions.AddDecision(ctx, row); err != nil {
		r.Log.Error("cannot log decision", "err", err)
	}
}
