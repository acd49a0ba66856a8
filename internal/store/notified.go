package store

import (
	"context"
	"fmt"
	"time"
)

// Announced is one row of the notified-set: a fingerprint already announced
// for a pane, and when.
type Announced struct {
	Fingerprint string
	Host, Pane  string
	At          time.Time
}

const (
	sqlInsertNotified = `INSERT INTO notified (fingerprint, host, pane, announced_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (fingerprint) DO NOTHING`
	sqlListNotified   = `SELECT fingerprint, host, pane, announced_at FROM notified ORDER BY announced_at`
	sqlDeleteNotified = `DELETE FROM notified WHERE fingerprint = ?`
)

// MarkNotified adds a fingerprint to the notified-set. It reports false
// when the fingerprint was already there (someone announced it first).
func (s *Store) MarkNotified(ctx context.Context, a Announced) (bool, error) {
	res, err := s.db.ExecContext(ctx, sqlInsertNotified, a.Fingerprint, a.Host, a.Pane, a.At.UnixNano())
	if err != nil {
		return false, fmt.Errorf("mark %s/%s notified: %w", a.Host, a.Pane, err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// Notified returns the whole notified-set, oldest first.
func (s *Store) Notified(ctx context.Context) ([]Announced, error) {
	rows, err := s.db.QueryContext(ctx, sqlListNotified)
	if err != nil {
		return nil, fmt.Errorf("read notified-set: %w", err)
	}
	defer rows.Close()
	var out []Announced
	for rows.Next() {
		var a Announced
		var at int64
		if err := rows.Scan(&a.Fingerprint, &a.Host, &a.Pane, &at); err != nil {
			return nil, fmt.Errorf("read notified-set: %w", err)
		}
		a.At = fromNanos(at)
		out = append(out, a)
	}
	return out, rows.Err()
}

// ForgetNotified removes a fingerprint from the notified-set (its wait
// cleared). Forgetting an absent fingerprint is not an error.
func (s *Store) ForgetNotified(ctx context.Context, fingerprint string) error {
	if _, err := s.db.ExecContext(ctx, sqlDeleteNotified, fingerprint); err != nil {
		return fmt.Errorf("forget notified fingerprint: %w", err)
	}
	return nil
}
