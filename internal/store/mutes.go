package store

import (
	"context"
	"fmt"
	"time"
)

// Mute silences one pane until a time, or until its agent next finishes a
// turn, or both (whichever comes first).
type Mute struct {
	Host          string    `json:"host"`
	Pane          string    `json:"pane"`
	Until         time.Time `json:"until,omitzero"`
	UntilFinished bool      `json:"until_finished,omitempty"`
	Created       time.Time `json:"created_at"`
}

const (
	sqlUpsertMute = `INSERT INTO mutes (host, pane, until_at, until_finished, created_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (host, pane) DO UPDATE SET until_at = excluded.until_at,
			until_finished = excluded.until_finished, created_at = excluded.created_at`
	sqlListMutes  = `SELECT host, pane, until_at, until_finished, created_at FROM mutes ORDER BY created_at`
	sqlDeleteMute = `DELETE FROM mutes WHERE host = ? AND pane = ?`
)

// SetMute stores (or replaces) a pane's mute.
func (s *Store) SetMute(ctx context.Context, m Mute) error {
	if m.Created.IsZero() {
		m.Created = s.now()
	}
	var until int64
	if !m.Until.IsZero() {
		until = m.Until.UnixNano()
	}
	if _, err := s.db.ExecContext(ctx, sqlUpsertMute, m.Host, m.Pane, until, m.UntilFinished, m.Created.UnixNano()); err != nil {
		return fmt.Errorf("mute %s/%s: %w", m.Host, m.Pane, err)
	}
	return nil
}

// Mutes lists every stored mute, expired ones included (the caller decides).
func (s *Store) Mutes(ctx context.Context) ([]Mute, error) {
	rows, err := s.db.QueryContext(ctx, sqlListMutes)
	if err != nil {
		return nil, fmt.Errorf("read mutes: %w", err)
	}
	defer rows.Close()
	var out []Mute
	for rows.Next() {
		var m Mute
		var until, created int64
		if err := rows.Scan(&m.Host, &m.Pane, &until, &m.UntilFinished, &created); err != nil {
			return nil, fmt.Errorf("read mutes: %w", err)
		}
		m.Until, m.Created = fromNanos(until), fromNanos(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// DeleteMute removes a pane's mute; ErrNotFound when it had none.
func (s *Store) DeleteMute(ctx context.Context, host, pane string) error {
	res, err := s.db.ExecContext(ctx, sqlDeleteMute, host, pane)
	if err != nil {
		return fmt.Errorf("unmute %s/%s: %w", host, pane, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}
