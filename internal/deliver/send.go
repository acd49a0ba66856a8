package deliver

import (
	"context"
	"fmt"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
	"github.com/attn-dev/attn/internal/webpush"
)

// toDevice sends one job with retries, records the outcome on the device
// and in the decision log, and clears the job's outbox row.
func (d *Deliverer) toDevice(ctx context.Context, j job) DeviceOutcome {
	n, dev := j.n, j.dev
	out := DeviceOutcome{DeviceID: dev.ID, Name: dev.Name, Channel: "webpush"}
	sub := webpush.Subscription{Endpoint: dev.Endpoint, P256DH: dev.P256DH, Auth: dev.Auth}
	limit := webpush.MaxPlaintext(d.opt.RecordSize)
	for attempt := 1; ; attempt++ {
		payload, err := n.Payload(limit)
		if err != nil {
			out.Outcome, out.Detail = webpush.Rejected.String(), err.Error()
			break
		}
		res, err := d.sender.Send(ctx, sub, webpush.Message{
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
			return d.record(j, out)
		case <-t.C:
		}
	}
	return d.record(j, out)
}

// record stores the outcome on the device (or removes a device whose
// subscription is gone, RFC 8030 §7.3: 404/410), logs the decision, and
// clears the outbox row: only now is the send recorded as done.
func (d *Deliverer) record(j job, out DeviceOutcome) DeviceOutcome {
	// Bookkeeping must land even when the request's context has ended.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	dev := j.dev
	switch out.Outcome {
	case webpush.Gone.String():
		out.Detail = "subscription expired or unsubscribed at the push service; device removed (" + out.Detail + ")"
		if err := d.devices.DeleteDevice(ctx, dev.ID); err != nil {
			d.log.Error("cannot remove gone device", "device", dev.ID, "err", err)
		} else {
			d.log.Info("device removed: push service says gone", "device", dev.ID, "name", dev.Name)
		}
	case webpush.Unauthorized.String():
		d.log.Error("push service refused attn's VAPID credentials: check --push-contact; the device must resubscribe if the VAPID key changed",
			"device", dev.ID, "detail", out.Detail)
		fallthrough
	default:
		if err := d.devices.RecordOutcome(ctx, dev.ID, out.Outcome, out.Detail); err != nil {
			d.log.Error("cannot record delivery outcome", "device", dev.ID, "err", err)
		}
	}
	d.donePending(j.pendingID)
	if d.opt.Decisions != nil {
		row := Decision(j.n, dev, "webpush")
		if out.Outcome == webpush.Delivered.String() {
			row.Outcome = store.DecisionSent
		} else {
			row.Outcome, row.Reason, row.Detail = store.DecisionFailed, out.Outcome, out.Detail
		}
		if !d.opt.LogContent {
			row.Content = ""
		}
		if err := d.opt.Decisions.AddDecision(ctx, row); err != nil {
			d.log.Error("cannot log decision", "err", err)
		}
	}
	if out.Outcome != webpush.Delivered.String() && out.Outcome != webpush.Gone.String() && d.opt.OnFailure != nil {
		d.opt.OnFailure(dev, out)
	}
	return out
}

// Decision returns a decision row for n on dev through channel, with the
// notification's text as Content (callers drop it unless content logging
// is on) and Outcome left for the caller.
func Decision(n notification.Notification, dev store.Device, channel string) store.Decision {
	return store.Decision{
		At: n.Created, Kind: string(n.Kind), Host: n.Host, Pane: n.Pane, Name: n.Name,
		Fingerprint: n.Fingerprint, Stage: channel, DeviceID: dev.ID, Device: dev.Name,
		Channel: channel, Silent: n.Kind == "blocked" && !n.Renotify, Age: n.Replaces,
		Content: n.Title + "\n" + n.Body,
	}
}
