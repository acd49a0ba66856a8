package deliver

import (
	"context"
	"fmt"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/webpush"
)

// toDevice sends n to one device with retries and records the outcome.
func (d *Deliverer) toDevice(ctx context.Context, n notification.Notification, dev store.Device) DeviceOutcome {
	out := DeviceOutcome{DeviceID: dev.ID, Name: dev.Name}
	sub := webpush.Subscription{Endpoint: dev.Endpoint, P256DH: dev.P256DH, Auth: dev.Auth}
	limit := webpush.MaxPlaintext(d.opt.RecordSize)
	var res webpush.Result
	var err error
	for attempt := 1; ; attempt++ {
		var payload []byte
		payload, err = n.Payload(limit)
		if err != nil {
			out.Outcome, out.Detail = webpush.Rejected.String(), err.Error()
			break
		}
		res, err = d.sender.Send(ctx, sub, webpush.Message{
			Payload: payload, TTL: n.TTL, Urgency: n.Urgency, Topic: n.Topic(),
		})
		out.Outcome, out.Detail = res.Outcome.String(), res.Detail
		if err != nil && res.Detail == "" {
			out.Detail = err.Error()
		}
		if attempt >= d.opt.Attempts {
			break
		}
		if res.Outcome == webpush.TooLarge && limit > 1024 {
			limit /= 2 // the service wants less than RFC 8291 promises: retry smaller
			continue
		}
		if res.Outcome != webpush.RetryLater {
			break
		}
		wait := res.RetryAfter
		if wait <= 0 {
			wait = time.Second << (attempt - 1)
		}
		wait = min(wait, d.opt.MaxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			out.Detail = fmt.Sprintf("%s (gave up: %v)", out.Detail, ctx.Err())
			return d.record(dev, out)
		case <-t.C:
		}
	}
	return d.record(dev, out)
}

// record stores the outcome on the device, or removes a device whose
// subscription is gone (RFC 8030 §6.2: 404/410).
func (d *Deliverer) record(dev store.Device, out DeviceOutcome) DeviceOutcome {
	// Bookkeeping must land even when the request's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out.Outcome == webpush.Gone.String() {
		out.Detail = "subscription expired or unsubscribed at the push service; device removed (" + out.Detail + ")"
		if err := d.devices.DeleteDevice(ctx, dev.ID); err != nil {
			d.log.Error("cannot remove gone device", "device", dev.ID, "err", err)
		} else {
			d.log.Info("device removed: push service says gone", "device", dev.ID, "name", dev.Name)
		}
		return out
	}
	if out.Outcome == webpush.Unauthorized.String() {
		d.log.Error("push service refused attn's VAPID credentials: check --push-contact; the device must resubscribe if the VAPID key changed",
			"device", dev.ID, "detail", out.Detail)
	}
	if err := d.devices.RecordOutcome(ctx, dev.ID, out.Outcome, out.Detail); err != nil {
		d.log.Error("cannot record delivery outcome", "device", dev.ID, "err", err)
	}
	return out
}
