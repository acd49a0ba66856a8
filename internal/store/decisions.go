package store

import (
	"context"
	"fmt"
	"time"
)

// Decision is one row of the decision log: what attn decided about one
// notification, for one device and channel where it got that far. It is
// the answer to "why did / didn't I get a notification?".
type Decision struct {
	ID          int64     `json:"id"`
	At          time.Time `json:"at"`
	Kind        string    `json:"kind"`
	Host        string    `json:"host,omitempty"`
	Pane        string    `json:"pane,omitempty"`
	Name        string    `json:"name,omitempty"` // the agent's display name
	Fingerprint string    `json:"fingerprint,omitempty"`
	// Stage is the pipeline stage or part that decided ("settle", "ceiling",
	// "route", "webpush", …).
	Stage string `json:"stage"`
	// Outcome is "sent", "suppressed" or "failed".
	Outcome string `json:"outcome"`
	// Reason is a stable code for a suppression or failure ("answered-at-terminal",
	// "ceiling", "kind-off", …).
	Reason   string `json:"reason,omitempty"`
	DeviceID int64  `json:"device_id,omitempty"`
	Device   string `json:"device,omitempty"` // the device's name when it was decided
	Channel  string `json:"channel,omitempty"`
	Silent   bool   `json:"silent,omitempty"` // sent without alerting (a replacement)
	// Age is a duration the reason refers to: how long the wait lasted
	// before it cleared, how long ago the replaced notification was shown.
	Age    time.Duration `json:"age_ms,omitempty"`
	Detail string        `json:"detail,omitempty"`
	// Content is the notification's text, kept only when content logging
	// is on.
	Content string `json:"content,omitempty"`
}

// Decision outcomes.
const (
	DecisionSent       = "sent"
	DecisionSuppressed = "suppressed"
	DecisionFailed     = "failed"
)

const (
	sqlInsertDecision = `INSERT INTO decisions (at, kind, host, pane, name, fingerprint, stage, outcome, reason,
		device_id, device, channel, silent, age_ms, detail, content) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlDecisionsAll = `SELECT id, at, kind, host, pane, name, fingerprint, stage, outcome, reason, device_id, device,
		channel, silent, age_ms, detail, content FROM decisions ORDER BY id DESC LIMIT ?`
	sqlDecisionsPane = `SELECT id, at, kind, host, pane, name, fingerprint, stage, outcome, reason, device_id, device,
		channel, silent, age_ms, detail, content FROM decisions WHERE host = ? AND pane = ? ORDER BY id DESC LIMIT ?`
	sqlPruneDecisions = `DELETE FROM decisions WHERE at < ?`
)

// AddDecision appends a row to the decision log; a zero At is stamped now.
func (s *Store) AddDecision(ctx context.Context, d Decision) error {
	if d.At.IsZero() {
		d.At = s.now()
	}
	_, err := s.db.ExecContext(ctx, sqlInsertDecision, d.At.UnixNano(), d.Kind, d.Host, d.Pane, d.Name, d.Fingerprint,
		d.Stage, d.Outcome, d.Reason, d.DeviceID, d.Device, d.Channel, d.Silent, d.Age.Milliseconds(), d.Detail, d.Content)
	if err != nil {
		return fmt.Errorf("log decision: %w", err)
	}
	return nil
}

// Decisions returns up to limit rows, newest first; for one pane when host
// and pane are set, else for all.
func (s *Store) Decisions(ctx context.Context, host, pane string, limit int) ([]Decision, error) {
	q, args := sqlDecisionsAll, []any{limit}
	if pane != "" {
		q, args = sqlDecisionsPane, []any{host, pane, limit}
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read decisions: %w", err)
	}
	defer rows.Close()
	var out []Decision
	for rows.Next() {
		var d Decision
		var at, age int64
		if err := rows.Scan(&d.ID, &at, &d.Kind, &d.Host, &d.Pane, &d.Name, &d.Fingerprint, &d.Stage, &d.Outcome,
			&d.Reason, &d.DeviceID, &d.Device, &d.Channel, &d.Silent, &age, &d.Detail, &d.Content); err != nil {
			return nil, fmt.Errorf("read decisions: %w", err)
		}
		d.At, d.Age = fromNanos(at), time.Duration(age)*time.Millisecond
		out = append(out, d)
	}
	return out, rows.Err()
}

// PruneDecisions removes rows older than before.
func (s *Store) PruneDecisions(ctx context.Context, before time.Time) error {
	if _, err := s.db.ExecContext(ctx, sqlPruneDecisions, before.UnixNano()); err != nil {
		return fmt.Errorf("prune decisions: %w", err)
	}
	return nil
}
