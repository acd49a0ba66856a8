// Package deliver fans a notification out to every registered device over
// Web Push, acts on each push service's answer (DESIGN.md, "Delivery":
// 404/410 remove the device, 413 retries smaller, 429/5xx/network retry
// with bounded backoff honoring Retry-After, everything else is recorded
// on the device), and runs blocked sends off the watcher's path through a
// bounded queue.
package deliver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/webpush"
)

// PushSender sends one Web Push message (implemented by *webpush.Sender).
type PushSender interface {
	Send(ctx context.Context, sub webpush.Subscription, msg webpush.Message) (webpush.Result, error)
}

// Devices is the device registry (implemented by *store.Store).
type Devices interface {
	Devices(ctx context.Context) ([]store.Device, error)
	DeleteDevice(ctx context.Context, id int64) error
	RecordOutcome(ctx context.Context, id int64, outcome, detail string) error
}

// Options configure a Deliverer. Zero values take the documented defaults.
type Options struct {
	// RecordSize is the aes128gcm record size, 4096 by default (RFC 8291 §4:
	// every push service must accept it; some relays want less).
	RecordSize int
	// Attempts bounds tries per device for retryable answers (default 3).
	Attempts int
	// MaxBackoff caps one wait between tries, Retry-After included (default 30s).
	MaxBackoff time.Duration
	// Concurrency bounds sends in flight per notification (default 16).
	Concurrency int
	// QueueSize bounds notifications waiting for a worker (default 64).
	QueueSize int
}

// Deliverer sends notifications to every device.
type Deliverer struct {
	sender  PushSender
	devices Devices
	log     *slog.Logger
	opt     Options
	queue   chan notification.Notification
	wg      sync.WaitGroup
}

// New returns a Deliverer; call Run to serve its queue.
func New(sender PushSender, devices Devices, log *slog.Logger, opt Options) *Deliverer {
	if opt.RecordSize == 0 {
		opt.RecordSize = 4096
	}
	if opt.Attempts == 0 {
		opt.Attempts = 3
	}
	if opt.MaxBackoff == 0 {
		opt.MaxBackoff = 30 * time.Second
	}
	if opt.Concurrency == 0 {
		opt.Concurrency = 16
	}
	if opt.QueueSize == 0 {
		opt.QueueSize = 64
	}
	return &Deliverer{sender: sender, devices: devices, log: log, opt: opt,
		queue: make(chan notification.Notification, opt.QueueSize)}
}

// DeviceOutcome is what happened to one notification on one device.
type DeviceOutcome struct {
	DeviceID int64  `json:"device_id"`
	Name     string `json:"name"`
	Outcome  string `json:"outcome"` // a webpush.Outcome's String()
	Detail   string `json:"detail,omitempty"`
}

// Report is the result of delivering one notification.
type Report struct {
	// Sent is true when at least one device's push service took it.
	Sent bool `json:"sent"`
	// Transports lists the channels that took it ("webpush").
	Transports []string        `json:"transports"`
	Devices    []DeviceOutcome `json:"devices"`
	// Detail says why nothing was sent, or which devices failed.
	Detail string `json:"detail"`
}

// ErrQueueFull is returned by Enqueue when the queue has no room.
var ErrQueueFull = errors.New("delivery queue full")

// Enqueue hands n to the background workers without waiting. It never
// blocks: a full queue returns ErrQueueFull and the caller decides.
func (d *Deliverer) Enqueue(n notification.Notification) error {
	select {
	case d.queue <- n:
		return nil
	default:
		return ErrQueueFull
	}
}

// Run serves the queue with workers until ctx ends, then waits for sends
// in flight to finish.
func (d *Deliverer) Run(ctx context.Context, workers int) {
	for range max(workers, 1) {
		d.wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case n := <-d.queue:
					r := d.Deliver(ctx, n)
					d.log.Info("delivered", "kind", n.Kind, "pane", n.Host+"/"+n.Pane,
						"sent", r.Sent, "devices", len(r.Devices), "detail", r.Detail)
				}
			}
		})
	}
	d.wg.Wait()
}

// Deliver sends n to every registered device concurrently (bounded by
// Options.Concurrency) and waits for every answer.
func (d *Deliverer) Deliver(ctx context.Context, n notification.Notification) Report {
	devs, err := d.devices.Devices(ctx)
	if err != nil {
		return Report{Transports: []string{}, Devices: []DeviceOutcome{}, Detail: fmt.Sprintf("cannot read devices: %v", err)}
	}
	if len(devs) == 0 {
		return Report{Transports: []string{}, Devices: []DeviceOutcome{},
			Detail: "no device is registered: register one with POST /api/push/subscribe (see the README)"}
	}
	outcomes := make([]DeviceOutcome, len(devs))
	sem := make(chan struct{}, d.opt.Concurrency)
	var wg sync.WaitGroup
	for i, dev := range devs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			outcomes[i] = d.toDevice(ctx, n, dev)
		})
	}
	wg.Wait()
	r := Report{Transports: []string{}, Devices: outcomes}
	var failed []string
	for _, o := range outcomes {
		if o.Outcome == webpush.Delivered.String() {
			r.Sent = true
		} else {
			failed = append(failed, fmt.Sprintf("%s: %s", deviceLabel(o), o.Detail))
		}
	}
	if r.Sent {
		r.Transports = append(r.Transports, "webpush")
	}
	switch {
	case !r.Sent:
		r.Detail = "every device failed: " + strings.Join(failed, "; ")
	case len(failed) > 0:
		r.Detail = "some devices failed: " + strings.Join(failed, "; ")
	}
	return r
}

func deviceLabel(o DeviceOutcome) string {
	if o.Name != "" {
		return fmt.Sprintf("device %d (%s)", o.DeviceID, o.Name)
	}
	return fmt.Sprintf("device %d", o.DeviceID)
}
