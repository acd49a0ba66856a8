package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Channel is one configured notification channel beyond Web Push: an
// ntfy topic, a Telegram chat, a Pushover user, a Gotify app, an FCM app,
// a webhook or the daemon's desktop. Its URL holds secrets (tokens,
// passwords): it is never shown, logged or put in an error; callers show
// the redacted form their channel package returns.
type Channel struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Kind    string    `json:"kind"` // "ntfy", "telegram", "pushover", "gotify", "fcm", "webhook", "desktop"
	URL     string    `json:"-"`
	Created time.Time `json:"created_at"`
	// Kinds holds the channel's changed kind choices (kind → on); a kind
	// absent here follows its default.
	Kinds map[string]bool `json:"-"`
	// LastOutcome is the last send's outcome ("delivered", "failed", …)
	// or "" before the first; LastDetail says why it failed.
	LastOutcome   string    `json:"last_outcome"`
	LastDetail    string    `json:"last_detail,omitempty"`
	LastAttemptAt time.Time `json:"last_attempt_at,omitzero"`
	LastSuccessAt time.Time `json:"last_success_at,omitzero"`
}

// ChannelRef remembers a message a channel showed for a blocking
// occurrence (fingerprint), so it can be cleared or edited when the wait
// clears: an ntfy sequence id, a Telegram chat:message id, a Pushover
// receipt, an FCM tag.
type ChannelRef struct {
	ChannelID   int64
	Fingerprint string
	Ref         string
	Created     time.Time
}

// ChannelToken is one device token of a channel that pushes to app
// installs (FCM). A dropped token (the push service said it is no longer
// registered) is kept, marked, and skipped until it is registered again.
type ChannelToken struct {
	Token   string    `json:"-"` // a capability: never shown whole
	Created time.Time `json:"created_at"`
	Dropped time.Time `json:"dropped_at,omitzero"`
	Detail  string    `json:"detail,omitempty"` // why it was dropped
}

// ErrExists is returned when a name is already taken.
var ErrExists = errors.New("already exists")

const (
	sqlChannelByName      = `SELECT id FROM channels WHERE name = ?`
	sqlInsertChannel      = `INSERT INTO channels (name, kind, url, created_at) VALUES (?, ?, ?, ?)`
	sqlListChannels       = `SELECT id, name, kind, url, created_at, last_outcome, last_detail, last_attempt_at, last_success_at FROM channels ORDER BY id`
	sqlListChannelKinds   = `SELECT channel_id, kind, enabled FROM channel_kinds`
	sqlDeleteChannel      = `DELETE FROM channels WHERE name = ?`
	sqlChannelExists      = `SELECT COUNT(*) FROM channels WHERE id = ?`
	sqlSetChannelKind     = `INSERT INTO channel_kinds (channel_id, kind, enabled) VALUES (?, ?, ?) ON CONFLICT (channel_id, kind) DO UPDATE SET enabled = excluded.enabled`
	sqlResetChannelKind   = `DELETE FROM channel_kinds WHERE channel_id = ? AND kind = ?`
	sqlChannelOutcome     = `UPDATE channels SET last_outcome = ?, last_detail = ?, last_attempt_at = ? WHERE id = ?`
	sqlChannelDelivered   = `UPDATE channels SET last_outcome = ?, last_detail = '', last_attempt_at = ?, last_success_at = ? WHERE id = ?`
	sqlGetChannelState    = `SELECT value FROM channel_state WHERE channel_id = ? AND key = ?`
	sqlSetChannelState    = `INSERT INTO channel_state (channel_id, key, value) VALUES (?, ?, ?) ON CONFLICT (channel_id, key) DO UPDATE SET value = excluded.value`
	sqlSupersedeRef       = `DELETE FROM channel_refs WHERE channel_id = ? AND ref = ? AND fingerprint <> ?`
	sqlInsertRef          = `INSERT INTO channel_refs (channel_id, fingerprint, ref, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (channel_id, fingerprint, ref) DO UPDATE SET created_at = excluded.created_at`
	sqlRefsByFingerprint  = `SELECT channel_id, fingerprint, ref, created_at FROM channel_refs WHERE fingerprint = ? ORDER BY created_at`
	sqlDeleteRefs         = `DELETE FROM channel_refs WHERE fingerprint = ?`
	sqlPruneRefs          = `DELETE FROM channel_refs WHERE created_at < ?`
	sqlListChannelTokens  = `SELECT token, created_at, dropped_at, detail FROM channel_tokens WHERE channel_id = ? ORDER BY created_at, token`
	sqlGetChannelToken    = `SELECT dropped_at FROM channel_tokens WHERE channel_id = ? AND token = ?`
	sqlUpsertChannelToken = `INSERT INTO channel_tokens (channel_id, token, created_at) VALUES (?, ?, ?) ON CONFLICT (channel_id, token) DO UPDATE SET dropped_at = 0, detail = ''`
	sqlEnsureChannelToken = `INSERT INTO channel_tokens (channel_id, token, created_at) VALUES (?, ?, ?) ON CONFLICT (channel_id, token) DO NOTHING`
	sqlDropChannelToken   = `UPDATE channel_tokens SET dropped_at = ?, detail = ? WHERE channel_id = ? AND token = ?`
)

// AddChannel stores a new channel and returns its id. ErrExists when the
// name is taken.
func (s *Store) AddChannel(ctx context.Context, name, kind, rawURL string) (int64, error) {
	var id int64
	switch err := s.db.QueryRowContext(ctx, sqlChannelByName, name).Scan(&id); {
	case err == nil:
		return 0, fmt.Errorf("channel %q: %w", name, ErrExists)
	case !errors.Is(err, sql.ErrNoRows):
		return 0, fmt.Errorf("add channel: %w", err)
	}
	res, err := s.db.ExecContext(ctx, sqlInsertChannel, name, kind, rawURL, s.now().UnixNano())
	if err != nil {
		return 0, fmt.Errorf("add channel %q: %w", name, err)
	}
	return res.LastInsertId()
}

// Channels lists every channel, oldest first, each with its changed kind
// choices.
func (s *Store) Channels(ctx context.Context) ([]Channel, error) {
	kinds := map[int64]map[string]bool{}
	krows, err := s.db.QueryContext(ctx, sqlListChannelKinds)
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	for krows.Next() {
		var id int64
		var kind string
		var on bool
		if err := krows.Scan(&id, &kind, &on); err != nil {
			krows.Close()
			return nil, fmt.Errorf("list channels: %w", err)
		}
		if kinds[id] == nil {
			kinds[id] = map[string]bool{}
		}
		kinds[id][kind] = on
	}
	krows.Close()
	rows, err := s.db.QueryContext(ctx, sqlListChannels)
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	defer rows.Close()
	var out []Channel
	for rows.Next() {
		var c Channel
		var created, attempt, success int64
		if err := rows.Scan(&c.ID, &c.Name, &c.Kind, &c.URL, &created, &c.LastOutcome, &c.LastDetail, &attempt, &success); err != nil {
			return nil, fmt.Errorf("list channels: %w", err)
		}
		c.Created, c.LastAttemptAt, c.LastSuccessAt = fromNanos(created), fromNanos(attempt), fromNanos(success)
		c.Kinds = kinds[c.ID]
		if c.Kinds == nil {
			c.Kinds = map[string]bool{}
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RemoveChannel deletes a channel with its choices, state, message
// references and tokens. ErrNotFound when there is none by that name.
func (s *Store) RemoveChannel(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, sqlDeleteChannel, name)
	if err != nil {
		return fmt.Errorf("remove channel %q: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetChannelKind stores a channel's choice for one kind; with isDefault
// the row is dropped instead so the kind follows its default. ErrNotFound
// when the channel does not exist.
func (s *Store) SetChannelKind(ctx context.Context, id int64, kind string, enabled, isDefault bool) error {
	var n int
	if err := s.db.QueryRowContext(ctx, sqlChannelExists, id).Scan(&n); err != nil {
		return fmt.Errorf("set kind: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	var err error
	if isDefault {
		_, err = s.db.ExecContext(ctx, sqlResetChannelKind, id, kind)
	} else {
		_, err = s.db.ExecContext(ctx, sqlSetChannelKind, id, kind, enabled)
	}
	if err != nil {
		return fmt.Errorf("set %s for channel %d: %w", kind, id, err)
	}
	return nil
}

// RecordChannelOutcome stores a send's outcome on the channel; a
// "delivered" outcome also stamps the last success and clears the detail.
func (s *Store) RecordChannelOutcome(ctx context.Context, id int64, outcome, detail string) error {
	now := s.now().UnixNano()
	var err error
	if outcome == OutcomeDelivered {
		_, err = s.db.ExecContext(ctx, sqlChannelDelivered, outcome, now, now, id)
	} else {
		_, err = s.db.ExecContext(ctx, sqlChannelOutcome, outcome, detail, now, id)
	}
	if err != nil {
		return fmt.Errorf("record outcome for channel %d: %w", id, err)
	}
	return nil
}

// ChannelState returns a channel's persisted state value for key (e.g.
// the Telegram update offset), "" when unset.
func (s *Store) ChannelState(ctx context.Context, id int64, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, sqlGetChannelState, id, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read channel %d state %s: %w", id, key, err)
	}
	return v, nil
}

// SetChannelState stores a channel's state value for key.
func (s *Store) SetChannelState(ctx context.Context, id int64, key, value string) error {
	if _, err := s.db.ExecContext(ctx, sqlSetChannelState, id, key, value); err != nil {
		return fmt.Errorf("store channel %d state %s: %w", id, key, err)
	}
	return nil
}

// SaveChannelRef remembers a shown message for its fingerprint. A row of
// another fingerprint with the same channel and ref (a notification the
// new one replaced in place: same ntfy sequence id, same FCM tag) is
// dropped, so clearing the older wait never clears the newer one.
func (s *Store) SaveChannelRef(ctx context.Context, r ChannelRef) error {
	if r.Created.IsZero() {
		r.Created = s.now()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save channel ref: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, sqlSupersedeRef, r.ChannelID, r.Ref, r.Fingerprint); err != nil {
		return fmt.Errorf("save channel ref: %w", err)
	}
	if _, err := tx.ExecContext(ctx, sqlInsertRef, r.ChannelID, r.Fingerprint, r.Ref, r.Created.UnixNano()); err != nil {
		return fmt.Errorf("save channel ref: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("save channel ref: %w", err)
	}
	return nil
}

// TakeChannelRefs returns and forgets every message reference kept for a
// fingerprint, oldest first.
func (s *Store) TakeChannelRefs(ctx context.Context, fingerprint string) ([]ChannelRef, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("take channel refs: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, sqlRefsByFingerprint, fingerprint)
	if err != nil {
		return nil, fmt.Errorf("take channel refs: %w", err)
	}
	var out []ChannelRef
	for rows.Next() {
		var r ChannelRef
		var at int64
		if err := rows.Scan(&r.ChannelID, &r.Fingerprint, &r.Ref, &at); err != nil {
			rows.Close()
			return nil, fmt.Errorf("take channel refs: %w", err)
		}
		r.Created = fromNanos(at)
		out = append(out, r)
	}
	rows.Close()
	if len(out) == 0 {
		return nil, nil
	}
	if _, err := tx.ExecContext(ctx, sqlDeleteRefs, fingerprint); err != nil {
		return nil, fmt.Errorf("take channel refs: %w", err)
	}
	return out, tx.Commit()
}

// PruneChannelRefs forgets references older than before (their messages
// have long expired on the devices).
func (s *Store) PruneChannelRefs(ctx context.Context, before time.Time) error {
	if _, err := s.db.ExecContext(ctx, sqlPruneRefs, before.UnixNano()); err != nil {
		return fmt.Errorf("prune channel refs: %w", err)
	}
	return nil
}

// ChannelTokens lists a channel's device tokens, dropped ones included.
func (s *Store) ChannelTokens(ctx context.Context, id int64) ([]ChannelToken, error) {
	rows, err := s.db.QueryContext(ctx, sqlListChannelTokens, id)
	if err != nil {
		return nil, fmt.Errorf("list channel tokens: %w", err)
	}
	defer rows.Close()
	var out []ChannelToken
	for rows.Next() {
		var t ChannelToken
		var created, dropped int64
		if err := rows.Scan(&t.Token, &created, &dropped, &t.Detail); err != nil {
			return nil, fmt.Errorf("list channel tokens: %w", err)
		}
		t.Created, t.Dropped = fromNanos(created), fromNanos(dropped)
		out = append(out, t)
	}
	return out, rows.Err()
}

// AddChannelToken registers a device token on a channel. Registering a
// dropped token again revives it (revived is true); registering a live
// one changes nothing.
func (s *Store) AddChannelToken(ctx context.Context, id int64, token string) (revived bool, err error) {
	var dropped int64
	switch err := s.db.QueryRowContext(ctx, sqlGetChannelToken, id, token).Scan(&dropped); {
	case err == nil:
		revived = dropped != 0
	case !errors.Is(err, sql.ErrNoRows):
		return false, fmt.Errorf("register channel token: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, sqlUpsertChannelToken, id, token, s.now().UnixNano()); err != nil {
		return false, fmt.Errorf("register channel token: %w", err)
	}
	return revived, nil
}

// EnsureChannelToken registers a token unless it is known: a dropped
// token stays dropped (tokens named in a channel URL are ensured at every
// start; only a new registration revives one).
func (s *Store) EnsureChannelToken(ctx context.Context, id int64, token string) error {
	if _, err := s.db.ExecContext(ctx, sqlEnsureChannelToken, id, token, s.now().UnixNano()); err != nil {
		return fmt.Errorf("register channel token: %w", err)
	}
	return nil
}

// DropChannelToken marks a token as no longer registered, with why.
func (s *Store) DropChannelToken(ctx context.Context, id int64, token, detail string) error {
	if _, err := s.db.ExecContext(ctx, sqlDropChannelToken, s.now().UnixNano(), detail, id, token); err != nil {
		return fmt.Errorf("drop channel token: %w", err)
	}
	return nil
}
