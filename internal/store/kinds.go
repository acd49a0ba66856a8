package store

import (
	"context"
	"fmt"
)

const (
	sqlSetKind    = `INSERT INTO device_kinds (device_id, kind, enabled) VALUES (?, ?, ?) ON CONFLICT (device_id, kind) DO UPDATE SET enabled = excluded.enabled`
	sqlResetKind  = `DELETE FROM device_kinds WHERE device_id = ? AND kind = ?`
	sqlListKinds  = `SELECT device_id, kind, enabled FROM device_kinds`
	sqlDeviceByID = `SELECT COUNT(*) FROM devices WHERE id = ?`
)

// SetDeviceKind stores a device's choice for one notification kind. Only
// choices that differ from the default are kept: pass isDefault to drop the
// row instead, so a kind whose default changes later follows it.
// ErrNotFound when the device does not exist.
func (s *Store) SetDeviceKind(ctx context.Context, deviceID int64, kind string, enabled, isDefault bool) error {
	var n int
	if err := s.db.QueryRowContext(ctx, sqlDeviceByID, deviceID).Scan(&n); err != nil {
		return fmt.Errorf("set kind: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	var err error
	if isDefault {
		_, err = s.db.ExecContext(ctx, sqlResetKind, deviceID, kind)
	} else {
		_, err = s.db.ExecContext(ctx, sqlSetKind, deviceID, kind, enabled)
	}
	if err != nil {
		return fmt.Errorf("set %s for device %d: %w", kind, deviceID, err)
	}
	return nil
}

// DeviceKinds returns every stored (changed) choice: device id → kind →
// enabled.
func (s *Store) DeviceKinds(ctx context.Context) (map[int64]map[string]bool, error) {
	rows, err := s.db.QueryContext(ctx, sqlListKinds)
	if err != nil {
		return nil, fmt.Errorf("read kind choices: %w", err)
	}
	defer rows.Close()
	out := map[int64]map[string]bool{}
	for rows.Next() {
		var id int64
		var kind string
		var on bool
		if err := rows.Scan(&id, &kind, &on); err != nil {
			return nil, fmt.Errorf("read kind choices: %w", err)
		}
		if out[id] == nil {
			out[id] = map[string]bool{}
		}
		out[id][kind] = on
	}
	return out, rows.Err()
}
