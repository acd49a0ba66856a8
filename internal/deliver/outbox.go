package deliver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/store"
)

// addPending writes the outbox row for a send; 0 when there is no outbox
// or it cannot be written (the send goes ahead: losing bookkeeping must not
// lose the notification).
func (d *Deliverer) addPending(ctx context.Context, n notification.Notification, dev store.Device) int64 {
	if d.opt.Outbox == nil {
		return 0
	}
	b, err := json.Marshal(n)
	if err != nil {
		d.log.Error("cannot encode notification for the outbox", "err", err)
		return 0
	}
	created := n.Created
	if created.IsZero() {
		created = d.opt.Now()
	}
	id, err := d.opt.Outbox.AddPending(ctx, store.Pending{DeviceID: dev.ID, Created: created,
		Expires: created.Add(n.TTL), Notification: b})
	if err != nil {
		d.log.Error("cannot record pending send", "device", dev.ID, "err", err)
		return 0
	}
	return id
}

func (d *Deliverer) donePending(id int64) {
	if id == 0 || d.opt.Outbox == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.opt.Outbox.DonePending(ctx, id); err != nil {
		d.log.Error("cannot clear pending send", "id", id, "err", err)
	}
}

// Recover re-queues the sends a crash left unconfirmed, and drops those
// whose notification is older than its TTL (never sent late), logging a
// decision for each. Call it once at start, before Run.
func (d *Deliverer) Recover(ctx context.Context) (resent, dropped int, err error) {
	if d.opt.Outbox == nil {
		return 0, 0, nil
	}
	rows, err := d.opt.Outbox.PendingSends(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("recover outbox: %w", err)
	}
	if len(rows) == 0 {
		return 0, 0, nil
	}
	devs, err := d.devices.Devices(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("recover outbox: %w", err)
	}
	byID := map[int64]store.Device{}
	for _, dev := range devs {
		byID[dev.ID] = dev
	}
	now := d.opt.Now()
	for _, p := range rows {
		var n notification.Notification
		dev, known := byID[p.DeviceID]
		unreadable := json.Unmarshal(p.Notification, &n) != nil
		if unreadable || !known || !now.Before(p.Expires) {
			d.donePending(p.ID)
			dropped++
			if known && d.opt.Decisions != nil {
				row := Decision(n, dev, "webpush")
				row.At, row.Outcome, row.Reason = now, store.DecisionSuppressed, "expired-at-restart"
				row.Detail = fmt.Sprintf("older than its %s TTL when attn restarted", n.TTL)
				if unreadable {
					row.Reason, row.Detail = "unreadable", "an unsent notification in the store could not be read"
				}
				row.Content = ""
				d.opt.Decisions.AddDecision(ctx, row)
			}
			continue
		}
		select {
		case d.queue <- job{n: n, dev: dev, pendingID: p.ID}:
			resent++
		default:
			d.donePending(p.ID)
			dropped++
		}
	}
	return resent, dropped, nil
}
