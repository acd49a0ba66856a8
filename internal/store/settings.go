package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

const (
	sqlGetSetting    = `SELECT value FROM settings WHERE key = ?`
	sqlInsertSetting = `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`
)

// SettingVAPIDPrivate is the settings key of the VAPID private key.
const SettingVAPIDPrivate = "vapid_private_key"

// GetOrCreateSetting returns the value stored under key. When there is none
// it stores create()'s value and returns it. A value once stored is never
// replaced (first writer wins), which is what a VAPID key needs: every
// subscription is pinned to it (RFC 8292 §2).
func (s *Store) GetOrCreateSetting(ctx context.Context, key string, create func() ([]byte, error)) ([]byte, error) {
	var v []byte
	err := s.db.QueryRowContext(ctx, sqlGetSetting, key).Scan(&v)
	if err == nil {
		return v, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read setting %s: %w", key, err)
	}
	nv, err := create()
	if err != nil {
		return nil, fmt.Errorf("create setting %s: %w", key, err)
	}
	if _, err := s.db.ExecContext(ctx, sqlInsertSetting, key, nv); err != nil {
		return nil, fmt.Errorf("store setting %s: %w", key, err)
	}
	if err := s.db.QueryRowContext(ctx, sqlGetSetting, key).Scan(&v); err != nil {
		return nil, fmt.Errorf("read back setting %s: %w", key, err)
	}
	return v, nil
}
