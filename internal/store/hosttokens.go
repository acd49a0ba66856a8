package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// HostToken is a per-host credential as stored: which host it speaks for,
// never its secret (only the secret's SHA-256 hash is kept).
type HostToken struct {
	Host     string    `json:"host"`
	Created  time.Time `json:"created_at"`
	LastUsed time.Time `json:"last_used_at,omitzero"`
}

const (
	sqlSetHostToken = `INSERT INTO host_tokens (host, token_hash, created_at) VALUES (?, ?, ?)
		ON CONFLICT (host) DO UPDATE SET token_hash = excluded.token_hash, created_at = excluded.created_at, last_used_at = 0`
	sqlHostByToken    = `SELECT host, created_at, last_used_at FROM host_tokens WHERE token_hash = ?`
	sqlTouchHostToken = `UPDATE host_tokens SET last_used_at = ? WHERE token_hash = ?`
	sqlListHostTokens = `SELECT host, created_at, last_used_at FROM host_tokens ORDER BY host`
	sqlDelHostToken   = `DELETE FROM host_tokens WHERE host = ?`
)

// SetHostToken stores the hash of host's credential, replacing the one it
// had: one live credential per host, so issuing a new one revokes the old.
func (s *Store) SetHostToken(ctx context.Context, host string, tokenHash []byte) error {
	if _, err := s.db.ExecContext(ctx, sqlSetHostToken, host, tokenHash, s.now().UnixNano()); err != nil {
		return fmt.Errorf("store host credential for %s: %w", host, err)
	}
	return nil
}

// HostByToken returns the host a credential's hash speaks for, and records
// its use; ErrNotFound when no host has it.
func (s *Store) HostByToken(ctx context.Context, tokenHash []byte) (HostToken, error) {
	var t HostToken
	var created, used int64
	err := s.db.QueryRowContext(ctx, sqlHostByToken, tokenHash).Scan(&t.Host, &created, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return HostToken{}, ErrNotFound
	}
	if err != nil {
		return HostToken{}, fmt.Errorf("look up host credential: %w", err)
	}
	t.Created = time.Unix(0, created).UTC()
	if used > 0 {
		t.LastUsed = time.Unix(0, used).UTC()
	}
	if _, err := s.db.ExecContext(ctx, sqlTouchHostToken, s.now().UnixNano(), tokenHash); err != nil {
		return t, fmt.Errorf("record host credential use: %w", err)
	}
	return t, nil
}

// HostTokens lists the hosts that have a credential.
func (s *Store) HostTokens(ctx context.Context) ([]HostToken, error) {
	rows, err := s.db.QueryContext(ctx, sqlListHostTokens)
	if err != nil {
		return nil, fmt.Errorf("list host credentials: %w", err)
	}
	defer rows.Close()
	var out []HostToken
	for rows.Next() {
		var t HostToken
		var created, used int64
		if err := rows.Scan(&t.Host, &created, &used); err != nil {
			return nil, fmt.Errorf("list host credentials: %w", err)
		}
		t.Created = time.Unix(0, created).UTC()
		if used > 0 {
			t.LastUsed = time.Unix(0, used).UTC()
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// DeleteHostToken revokes host's credential; ErrNotFound when it has none.
func (s *Store) DeleteHostToken(ctx context.Context, host string) error {
	r, err := s.db.ExecContext(ctx, sqlDelHostToken, host)
	if err != nil {
		return fmt.Errorf("revoke host credential for %s: %w", host, err)
	}
	if n, _ := r.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
