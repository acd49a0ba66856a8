// Package deliver is the Web Push channel: it sends a notification to the
// devices the router chose, acts on each push service's answer (DESIGN.md,
// "Delivery": 404/410 remove the device, 413 retries smaller,
// 429/5xx/network retry with bounded backoff honoring Retry-After,
// everything else is recorded on the device), keeps an outbox so a crash
// repeats at most one send and never sends late, and logs a decision per
// device. Queued sends run off the watcher's path on a bounded pool.
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

// Outbox persists sends until their channel answers (implemented by
// *store.Store).
type Outbox interface {
	AddPending(ctx context.Context, p store.Pending) (int64, error)
	DonePending(ctx context.Context, id int64) error
	PendingSends(ctx context.Context) ([]store.Pending, error)
}

// DecisionLog records decisions (implemented by *store.Store).
type DecisionLog interface {
	AddDecision(ctx context.Context, d store.Decision) error
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
	// Concurrency bounds sends in flight for one waited-for notification
	// (default 16).
	Concurrency int
	// QueueSize bounds queued sends (one per device), default 256.
	QueueSize int
	// Outbox, when set, keeps every send until its channel answers.
	Outbox Outbox
	// Decisions, when set, gets one row per device and send.
	Decisions DecisionLog
	// LogContent keeps notification text in decision rows.
	LogContent bool
	// OnFailure is called after a device's send failed for good (not gone):
	// the caller may raise an error notification.
	OnFailure func(dev store.Device, out DeviceOutcome)
	// Now is the clock for bookkeeping; nil means time.Now.
	Now func() time.Time
}

// Deliverer sends notifications over Web Push.
type Deliverer struct {
	sender  PushSender
	devices Devices
	log     *slog.Logger
	opt     Options
	queue   chan job
}

// job is one notification for one device.
type job struct {
	n         notification.Notification
	dev       store.Device
	pendingID int64
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
		opt.QueueSize = 256
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Deliverer{sender: sender, devices: devices, log: log, opt: opt, queue: make(chan job, opt.QueueSize)}
}

// DeviceOutcome is what happened to one notification on one device.
type DeviceOutcome struct {
	DeviceID int64  `json:"device_id"`
	Name     string `json:"name"`
	Channel  string `json:"channel"`
	Outcome  string `json:"outcome"` // "delivered", "gone", "suppressed", … (webpush.Outcome names)
	Detail   string `json:"detail,omitempty"`
}

// Report is the result of routing one notification.
type Report struct {
	// Sent is true when at least one device or channel took it.
	Sent bool `json:"sent"`
	// Transports lists the channels that took it ("webpush", "inapp").
	Transports []string        `json:"transports"`
	Devices    []DeviceOutcome `json:"devices"`
	// Detail says why nothing was sent, or which devices failed.
	Detail string `json:"detail"`
	// Queued is true when sends were queued, not waited for.
	Queued bool `json:"queued,omitempty"`
	// QueueFull is true when the queue had no room: nothing was queued.
	QueueFull bool `json:"-"`
}

// ErrQueueFull is returned by Enqueue when the queue has no room.
var ErrQueueFull = errors.New("delivery queue full")

// Enqueue queues n for each device without waiting. It never blocks: when
// the queue cannot take them all it takes none and returns ErrQueueFull.
func (d *Deliverer) Enqueue(ctx context.Context, n notification.Notification, devs []store.Device) error {
	if len(d.queue)+len(devs) > cap(d.queue) {
		return ErrQueueFull
	}
	for _, dev := range devs {
		j := job{n: n, dev: dev}
		j.pendingID = d.addPending(ctx, n, dev)
		select {
		case d.queue <- j:
		default:
			d.donePending(j.pendingID)
			return ErrQueueFull
		}
	}
	return nil
}

// Run serves the queue with workers until ctx ends, then waits for sends
// in flight to finish.
func (d *Deliverer) Run(ctx context.Context, workers int) {
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-d.queue:
					d.toDevice(ctx, j)
				}
			}
		})
	}
	wg.Wait()
}

// Deliver sends n to every registered device and waits for every answer.
func (d *Deliverer) Deliver(ctx context.Context, n notification.Notification) Report {
	devs, err := d.devices.Devices(ctx)
	if err != nil {
		return Report{Transports: []string{}, Devices: []DeviceOutcome{}, Detail: fmt.Sprintf("cannot read devices: %v", err)}
	}
	if len(devs) == 0 {
		return Report{Transports: []string{}, Devices: []DeviceOutcome{}, Detail: NoDevice}
	}
	return d.DeliverTo(ctx, n, devs)
}

// NoDevice is the detail of a notification with no device to go to.
const NoDevice = "no device is registered: register one with POST /api/push/subscribe (see the README)"

// DeliverTo sends n to devs concurrently (bounded by Options.Concurrency)
// and waits for every answer.
func (d *Deliverer) DeliverTo(ctx context.Context, n notification.Notification, devs []store.Device) Report {
	outcomes := make([]DeviceOutcome, len(devs))
	sem := make(chan struct{}, d.opt.Concurrency)
	var wg sync.WaitGroup
	for i, dev := range devs {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			outcomes[i] = d.toDevice(ctx, job{n: n, dev: dev, pendingID: d.addPending(ctx, n, dev)})
		})
	}
	wg.Wait()
	return Summarize(outcomes)
}

// Summarize folds per-device outcomes into a Report.
func Summarize(outcomes []DeviceOutcome) Report {
	r := Report{Transports: []string{}, Devices: outcomes}
	var failed []string
	for _, o := range outcomes {
		switch o.Outcome {
		case webpush.Delivered.String():
			r.Sent = true
			if !containsString(r.Transports, o.Channel) {
				r.Transports = append(r.Transports, o.Channel)
			}
		case store.DecisionSuppressed:
		default:
			failed = append(failed, fmt.Sprintf("%s: %s", deviceLabel(o), o.Detail))
		}
	}
	switch {
	case len(outcomes) == 0:
		r.Detail = NoDevice
	case !r.Sent && len(failed) > 0:
		r.Detail = "every device failed: " + strings.Join(failed, "; ")
	case !r.Sent:
		r.Detail = "no device takes this kind of notification now (see `attn why`)"
	case len(failed) > 0:
		r.Detail = "some devices failed: " + strings.Join(failed, "; ")
	}
	return r
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func deviceLabel(o DeviceOutcome) string {
	if o.DeviceID == 0 && o.Channel != "" {
		return fmt.Sprintf("channel %s (%s)", o.Name, o.Channel)
	}
	if o.Name != "" {
		return fmt.Sprintf("device %d (%s)", o.DeviceID, o.Name)
	}
	return fmt.Sprintf("device %d", o.DeviceID)
}
