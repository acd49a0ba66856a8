package store

import (
	"context"
	"fmt"
	"time"
)

// Pending is one notification waiting for one device's channel to confirm
// it. Rows are written before sending and removed once the channel
// answers, so a crash in between repeats at most that one send.
type Pending struct {
	ID           int64
	DeviceID     int64
	Created      time.Time
	Expires      time.Time // created + the notification's TTL
	Notification []byte    // the notification, JSON
}

const (
	sqlInsertOutbox = `INSERT INTO outbox (device_id, created_at, expires_at, notification) VALUES (?, ?, ?, ?)`
	sqlListOutbox   = `SELECT id, device_id, created_at, expires_at, notification FROM outbox ORDER BY id`
	sqlDeleteOutbox = `DELETE FROM outbox WHERE id = ?`
)

// AddPending records that a notification is about to be sent to a device
// and returns the row's id.
func (s *Store) AddPending(ctx context.Context, p Pending) (int64, error) {
	res, err := s.db.ExecContext(ctx, sqlInsertOutbox, p.DeviceID, p.Created.UnixNano(), p.Expires.UnixNano(), p.Notification)
	if err != nil {
		return 0, fmt.Errorf("record pending send: %w", err)
	}
	return res.LastInsertId()
}

// PendingSends lists every send not yet confirmed, oldest first.
func (s *Store) PendingSends(ctx context.Context) ([]Pending, error) {
	rows, err := s.db.QueryContext(ctx, sqlListOutbox)
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	defer rows.Close()
	var out []Pending
	for rows.Next() {
		var p Pending
		var c, e int64
		if err := rows.Scan(&p.ID, &p.DeviceID, &c, &e, &p.Notification); err != nil {
			return nil, fmt.Errorf("read outbox: %w", err)
		}
		p.Created, p.Expires = fromNanos(c), fromNanos(e)
		out = append(out, p)
	}
	return out, rows.Err()
}

// DonePending removes a send once its channel has answered.
func (s *Store) DonePending(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, sqlDeleteOutbox, id); err != nil {
		return fmt.Errorf("clear pending send %d: %w", id, err)
	}
	return nil
}
