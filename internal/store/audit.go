package store

import (
	"context"
	"fmt"
	"time"
)

// AuditEntry is one answer attempt: which surface (push action, card,
// ntfy, telegram), which device, when, which pane and option, the outcome,
// and the gate that refused it.
type AuditEntry struct {
	ID          int64     `json:"id"`
	At          time.Time `json:"at"`
	Surface     string    `json:"surface"`
	Device      string    `json:"device,omitempty"`
	Host        string    `json:"host,omitempty"`
	Pane        string    `json:"pane,omitempty"`
	OptionIndex int       `json:"option_index"`
	OptionLabel string    `json:"option,omitempty"`
	Outcome     string    `json:"outcome"` // "applied", "not-applied", "refused", "error"
	Gate        string    `json:"gate,omitempty"`
	Detail      string    `json:"detail,omitempty"`
}

const (
	sqlInsertAudit = `INSERT INTO audit (at, surface, device, host, pane, option_index, option_label, outcome, gate, detail)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlListAudit = `SELECT id, at, surface, device, host, pane, option_index, option_label, outcome, gate, detail
		FROM audit ORDER BY id DESC LIMIT ?`
)

// AddAudit appends an answer attempt to the audit log.
func (s *Store) AddAudit(ctx context.Context, e AuditEntry) error {
	if e.At.IsZero() {
		e.At = s.now()
	}
	_, err := s.db.ExecContext(ctx, sqlInsertAudit, e.At.UnixNano(), e.Surface, e.Device, e.Host, e.Pane,
		e.OptionIndex, e.OptionLabel, e.Outcome, e.Gate, e.Detail)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// Audit returns up to limit entries, newest first.
func (s *Store) Audit(ctx context.Context, limit int) ([]AuditEntry, error) {
	rows, err := s.db.QueryContext(ctx, sqlListAudit, limit)
	if err != nil {
		return nil, fmt.Errorf("read audit: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at int64
		if err := rows.Scan(&e.ID, &at, &e.Surface, &e.Device, &e.Host, &e.Pane, &e.OptionIndex, &e.OptionLabel,
			&e.Outcome, &e.Gate, &e.Detail); err != nil {
			return nil, fmt.Errorf("read audit: %w", err)
		}
		e.At = fromNanos(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
