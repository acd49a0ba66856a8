package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Nonce is a one-shot answer token, bound to one blocking occurrence (its
// fingerprint, pane and incarnation), the option indices it may answer,
// and the pane's input generation when it was minted.
type Nonce struct {
	Nonce       string
	Fingerprint string
	Host, Pane  string
	Incarnation string
	Options     []int
	Generation  int64
	Created     time.Time
	Expires     time.Time
}

// ErrNonceUsed means the nonce was already consumed; ErrNonceUnknown that
// no such live nonce exists (never minted, expired, or its wait cleared).
var (
	ErrNonceUsed    = errors.New("nonce already used")
	ErrNonceUnknown = errors.New("nonce unknown or expired")
)

const (
	sqlInsertNonce = `INSERT INTO nonces (nonce, fingerprint, host, pane, incarnation, options, generation, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	sqlConsumeNonce = `UPDATE nonces SET used_at = ? WHERE nonce = ? AND used_at = 0 AND expires_at > ?
		RETURNING fingerprint, host, pane, incarnation, options, generation, created_at, expires_at`
	sqlNonceState = `SELECT used_at FROM nonces WHERE nonce = ? AND expires_at > ?`
	sqlLiveNonce  = `SELECT nonce, incarnation, options, generation, created_at, expires_at FROM nonces
		WHERE fingerprint = ? AND used_at = 0 AND expires_at > ? ORDER BY created_at DESC LIMIT 1`
	sqlForgetNonces = `DELETE FROM nonces WHERE fingerprint = ? AND used_at = 0`
	sqlPruneNonces  = `DELETE FROM nonces WHERE expires_at <= ?`
	sqlBumpGen      = `INSERT INTO input_generations (host, pane, generation) VALUES (?, ?, 1)
		ON CONFLICT (host, pane) DO UPDATE SET generation = generation + 1 RETURNING generation`
	sqlGetGen   = `SELECT generation, typed FROM input_generations WHERE host = ? AND pane = ?`
	sqlMarkType = `UPDATE input_generations SET typed = MAX(typed, ?) WHERE host = ? AND pane = ?`
)

// AddNonce stores a minted nonce.
func (s *Store) AddNonce(ctx context.Context, n Nonce) error {
	opts, _ := json.Marshal(n.Options)
	_, err := s.db.ExecContext(ctx, sqlInsertNonce, n.Nonce, n.Fingerprint, n.Host, n.Pane, n.Incarnation,
		string(opts), n.Generation, n.Created.UnixNano(), n.Expires.UnixNano())
	if err != nil {
		return fmt.Errorf("store nonce: %w", err)
	}
	return nil
}

// ConsumeNonce marks the nonce used and returns it, atomically: of two
// callers racing for one nonce exactly one gets it. ErrNonceUsed or
// ErrNonceUnknown otherwise.
func (s *Store) ConsumeNonce(ctx context.Context, nonce string, now time.Time) (Nonce, error) {
	n := Nonce{Nonce: nonce}
	var opts string
	var created, expires int64
	err := s.db.QueryRowContext(ctx, sqlConsumeNonce, now.UnixNano(), nonce, now.UnixNano()).Scan(
		&n.Fingerprint, &n.Host, &n.Pane, &n.Incarnation, &opts, &n.Generation, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		var used int64
		if s.db.QueryRowContext(ctx, sqlNonceState, nonce, now.UnixNano()).Scan(&used) == nil && used != 0 {
			return n, ErrNonceUsed
		}
		return n, ErrNonceUnknown
	}
	if err != nil {
		return n, fmt.Errorf("consume nonce: %w", err)
	}
	if err := json.Unmarshal([]byte(opts), &n.Options); err != nil {
		return n, fmt.Errorf("consume nonce: options: %w", err)
	}
	n.Created, n.Expires = fromNanos(created), fromNanos(expires)
	return n, nil
}

// LiveNonce returns the newest unused, unexpired nonce for a fingerprint;
// ErrNonceUnknown when there is none.
func (s *Store) LiveNonce(ctx context.Context, fingerprint string, now time.Time) (Nonce, error) {
	n := Nonce{Fingerprint: fingerprint}
	var opts string
	var created, expires int64
	err := s.db.QueryRowContext(ctx, sqlLiveNonce, fingerprint, now.UnixNano()).Scan(
		&n.Nonce, &n.Incarnation, &opts, &n.Generation, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return n, ErrNonceUnknown
	}
	if err != nil {
		return n, fmt.Errorf("read nonce: %w", err)
	}
	json.Unmarshal([]byte(opts), &n.Options)
	n.Created, n.Expires = fromNanos(created), fromNanos(expires)
	return n, nil
}

// ForgetNonces deletes the unused nonces of a fingerprint: its wait
// cleared. Used ones stay until they expire, so a replay is told it was
// already used.
func (s *Store) ForgetNonces(ctx context.Context, fingerprint string) error {
	if _, err := s.db.ExecContext(ctx, sqlForgetNonces, fingerprint); err != nil {
		return fmt.Errorf("forget nonces: %w", err)
	}
	return nil
}

// PruneNonces deletes expired nonces.
func (s *Store) PruneNonces(ctx context.Context, now time.Time) error {
	if _, err := s.db.ExecContext(ctx, sqlPruneNonces, now.UnixNano()); err != nil {
		return fmt.Errorf("prune nonces: %w", err)
	}
	return nil
}

// BumpGeneration adds one to a pane's input generation and returns it.
func (s *Store) BumpGeneration(ctx context.Context, host, pane string) (int64, error) {
	var g int64
	if err := s.db.QueryRowContext(ctx, sqlBumpGen, host, pane).Scan(&g); err != nil {
		return 0, fmt.Errorf("bump input generation: %w", err)
	}
	return g, nil
}

// Generation returns a pane's input generation (0 before any input), and
// the generation of the last attempt that typed into it.
func (s *Store) Generation(ctx context.Context, host, pane string) (gen, typed int64, err error) {
	err = s.db.QueryRowContext(ctx, sqlGetGen, host, pane).Scan(&gen, &typed)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("read input generation: %w", err)
	}
	return gen, typed, nil
}

// MarkTyped records that the attempt with generation gen typed into the
// pane.
func (s *Store) MarkTyped(ctx context.Context, host, pane string, gen int64) error {
	if _, err := s.db.ExecContext(ctx, sqlMarkType, gen, host, pane); err != nil {
		return fmt.Errorf("record typed input: %w", err)
	}
	return nil
}
