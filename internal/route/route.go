// Package route is the router: for each device it applies the device's
// kind choices and presence (DESIGN.md, "Devices, presence, choices"),
// then hands the notification to the in-app channel (a visible window) or
// to Web Push, and logs a decision for every device it does not send to.
package route

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

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

// Router routes notifications to devices.
type Router struct {
	Devices    Devices
	Presence   *presence.Registry
	InApp      *inapp.Broker
	WebPush    WebPush
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
	if len(devs) == 0 {
		r.decide(ctx, n, store.Device{}, "", store.DecisionSuppressed, "no-device", "no device is registered")
		return deliver.Summarize(nil)
	}
	now := r.Now()
	var outcomes []deliver.DeviceOutcome
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
			rep.QueueFull = errors.Is(err, deliver.ErrQueueFull)
			r.Log.Warn("cannot queue notification; will retry", "kind", n.Kind, "pane", pane, "err", err)
			return rep
		} else {
			rep := deliver.Summarize(outcomes)
			rep.Queued = true
			return rep
		}
	}
	return deliver.Summarize(outcomes)
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
