package store

import (
	"context"
	"fmt"
	"time"
)

// Device is one registered Web Push subscription: one browser (one origin)
// that receives notifications.
type Device struct {
	ID       int64     `json:"device_id"`
	Endpoint string    `json:"-"` // a capability URL: never shown or logged whole
	P256DH   []byte    `json:"-"` // 65-byte uncompressed P-256 point
	Auth     []byte    `json:"-"` // 16-byte auth secret
	Name     string    `json:"name"`
	Created  time.Time `json:"registered_at"`
	// LastOutcome is the last delivery's outcome ("delivered", "rejected",
	// "unauthorized", …) or "" before the first; LastDetail says why.
	LastOutcome   string    `json:"last_outcome"`
	LastDetail    string    `json:"last_detail,omitempty"`
	LastAttemptAt time.Time `json:"last_attempt_at,omitzero"`
	LastSuccessAt time.Time `json:"last_success_at,omitzero"`
}

const (
	sqlUpsertDevice = `INSERT INTO devices (endpoint, p256dh, auth, name, created_at)
		VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (endpoint) DO UPDATE SET
			p256dh = excluded.p256dh,
			auth   = excluded.auth,
			name   = CASE WHEN excluded.name <> '' THEN excluded.name ELSE devices.name END
		RETURNING id, (created_at = ?)`
	sqlListDevices = `SELECT id, endpoint, p256dh, auth, name, created_at,
		last_outcome, last_detail, last_attempt_at, last_success_at
		FROM devices ORDER BY id`
	sqlCountDevices          = `SELECT COUNT(*) FROM devices`
	sqlDeleteDeviceEndpoint  = `DELETE FROM devices WHERE endpoint = ?`
	sqlDeleteDeviceID        = `DELETE FROM devices WHERE id = ?`
	sqlRecordDeviceOutcome   = `UPDATE devices SET last_outcome = ?, last_detail = ?, last_attempt_at = ? WHERE id = ?`
	sqlRecordDeviceDelivered = `UPDATE devices SET last_outcome = ?, last_detail = '', last_attempt_at = ?, last_success_at = ? WHERE id = ?`
)

// UpsertDevice registers a subscription, keyed by endpoint: registering the
// same endpoint again updates its keys (and name, when name is non-empty)
// and returns the same id, never a second device. created reports whether
// the device is new.
func (s *Store) UpsertDevice(ctx context.Context, endpoint string, p256dh, auth []byte, name string) (id int64, created bool, err error) {
	now := s.now().UnixNano()
	err = s.db.QueryRowContext(ctx, sqlUpsertDevice, endpoint, p256dh, auth, name, now, now).Scan(&id, &created)
	if err != nil {
		return 0, false, fmt.Errorf("register device: %w", err)
	}
	return id, created, nil
}

// Devices lists every registered device, oldest first.
func (s *Store) Devices(ctx context.Context) ([]Device, error) {
	rows, err := s.db.QueryContext(ctx, sqlListDevices)
	if err != nil {
		return nil, fmt.Errorf("list devices: %w", err)
	}
	defer rows.Close()
	var out []Device
	for rows.Next() {
		var d Device
		var created, attempt, success int64
		if err := rows.Scan(&d.ID, &d.Endpoint, &d.P256DH, &d.Auth, &d.Name, &created,
			&d.LastOutcome, &d.LastDetail, &attempt, &success); err != nil {
			return nil, fmt.Errorf("list devices: %w", err)
		}
		d.Created = fromNanos(created)
		d.LastAttemptAt = fromNanos(attempt)
		d.LastSuccessAt = fromNanos(success)
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list devices: %w", err)
	}
	return out, nil
}

// CountDevices returns how many devices are registered.
func (s *Store) CountDevices(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, sqlCountDevices).Scan(&n); err != nil {
		return 0, fmt.Errorf("count devices: %w", err)
	}
	return n, nil
}

// DeleteDeviceByEndpoint removes the device with that endpoint; ErrNotFound
// when there is none.
func (s *Store) DeleteDeviceByEndpoint(ctx context.Context, endpoint string) error {
	return s.deleteOne(ctx, sqlDeleteDeviceEndpoint, endpoint)
}

// DeleteDevice removes the device with that id; ErrNotFound when there is
// none.
func (s *Store) DeleteDevice(ctx context.Context, id int64) error {
	return s.deleteOne(ctx, sqlDeleteDeviceID, id)
}

func (s *Store) deleteOne(ctx context.Context, query string, arg any) error {
	res, err := s.db.ExecContext(ctx, query, arg)
	if err != nil {
		return fmt.Errorf("remove device: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RecordOutcome stores a delivery attempt's outcome on the device. A
// "delivered" outcome also stamps the last success and clears the detail.
func (s *Store) RecordOutcome(ctx context.Context, id int64, outcome, detail string) error {
	now := s.now().UnixNano()
	var err error
	if outcome == OutcomeDelivered {
		_, err = s.db.ExecContext(ctx, sqlRecordDeviceDelivered, outcome, now, now, id)
	} else {
		_, err = s.db.ExecContext(ctx, sqlRecordDeviceOutcome, outcome, detail, now, id)
	}
	if err != nil {
		return fmt.Errorf("record outcome for device %d: %w", id, err)
	}
	return nil
}

// OutcomeDelivered is the outcome string of a delivery the push service took.
const OutcomeDelivered = "delivered"

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}
