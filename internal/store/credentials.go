package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Credential is one signed-in browser: the long-lived credential a pairing
// code became. Only the hash of its secret is stored.
type Credential struct {
	ID       int64     `json:"id"`
	Name     string    `json:"name"`
	Created  time.Time `json:"paired_at"`
	LastSeen time.Time `json:"last_seen_at,omitzero"`
	// DeviceID is the push device this browser registered, 0 for none.
	DeviceID int64 `json:"device_id,omitempty"`
}

// Why a pairing code was refused.
var (
	ErrPairingUnknown = errors.New("pairing code unknown")
	ErrPairingUsed    = errors.New("pairing code already used")
	ErrPairingExpired = errors.New("pairing code expired")
)

// PairingRetention is how long a used or expired pairing code's hash is
// kept, so that a second try says "already used" rather than "unknown".
const PairingRetention = 24 * time.Hour

const (
	sqlInsertPairing = `INSERT INTO pairings (code_hash, created_at, expires_at) VALUES (?, ?, ?)`
	sqlPrunePairings = `DELETE FROM pairings WHERE expires_at < ?`
	sqlUsePairing    = `UPDATE pairings SET used_at = ? WHERE code_hash = ? AND used_at = 0 AND expires_at > ?`
	sqlPairingState  = `SELECT used_at, expires_at FROM pairings WHERE code_hash = ?`
	sqlInsertCred    = `INSERT INTO credentials (token_hash, name, created_at, last_seen_at) VALUES (?, ?, ?, ?) RETURNING id`
	sqlCredColumns   = `id, name, created_at, last_seen_at, COALESCE(device_id, 0)`
	sqlCredByToken   = `SELECT ` + sqlCredColumns + ` FROM credentials WHERE token_hash = ?`
	sqlListCreds     = `SELECT ` + sqlCredColumns + ` FROM credentials ORDER BY id`
	sqlTouchCred     = `UPDATE credentials SET last_seen_at = ? WHERE id = ?`
	sqlCredDevice    = `UPDATE credentials SET device_id = ? WHERE id = ?`
	sqlCredName      = `UPDATE credentials SET name = ? WHERE id = ?`
	sqlCredDeviceID  = `SELECT COALESCE(device_id, 0) FROM credentials WHERE id = ?`
	sqlDeleteCred    = `DELETE FROM credentials WHERE id = ?`
	sqlAllCredDevs   = `SELECT device_id FROM credentials WHERE device_id IS NOT NULL`
	sqlDeleteCreds   = `DELETE FROM credentials`
)

// AddPairing stores a pairing code's hash, valid until expires, and drops
// codes that expired more than PairingRetention ago.
func (s *Store) AddPairing(ctx context.Context, codeHash []byte, expires time.Time) error {
	now := s.now()
	if _, err := s.db.ExecContext(ctx, sqlPrunePairings, now.Add(-PairingRetention).UnixNano()); err != nil {
		return fmt.Errorf("prune pairing codes: %w", err)
	}
	if _, err := s.db.ExecContext(ctx, sqlInsertPairing, codeHash, now.UnixNano(), expires.UnixNano()); err != nil {
		return fmt.Errorf("store pairing code: %w", err)
	}
	return nil
}

// RedeemPairing uses a pairing code, once, and turns it into a credential
// whose secret hashes to tokenHash, in one transaction: of two browsers
// racing with one code, exactly one is signed in. It returns
// ErrPairingUnknown, ErrPairingUsed or ErrPairingExpired when the code
// cannot be used.
func (s *Store) RedeemPairing(ctx context.Context, codeHash, tokenHash []byte, name string) (Credential, error) {
	now := s.now()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Credential{}, fmt.Errorf("redeem pairing code: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, sqlUsePairing, now.UnixNano(), codeHash, now.UnixNano())
	if err != nil {
		return Credential{}, fmt.Errorf("redeem pairing code: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		var used, expires int64
		err := tx.QueryRowContext(ctx, sqlPairingState, codeHash).Scan(&used, &expires)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return Credential{}, ErrPairingUnknown
		case err != nil:
			return Credential{}, fmt.Errorf("redeem pairing code: %w", err)
		case used != 0:
			return Credential{}, ErrPairingUsed
		default:
			return Credential{}, ErrPairingExpired
		}
	}
	c := Credential{Name: name, Created: now.UTC(), LastSeen: now.UTC()}
	if err := tx.QueryRowContext(ctx, sqlInsertCred, tokenHash, name, now.UnixNano(), now.UnixNano()).Scan(&c.ID); err != nil {
		return Credential{}, fmt.Errorf("create credential: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Credential{}, fmt.Errorf("redeem pairing code: %w", err)
	}
	return c, nil
}

func scanCredential(row interface{ Scan(...any) error }) (Credential, error) {
	var c Credential
	var created, seen int64
	if err := row.Scan(&c.ID, &c.Name, &created, &seen, &c.DeviceID); err != nil {
		return Credential{}, err
	}
	c.Created, c.LastSeen = fromNanos(created), fromNanos(seen)
	return c, nil
}

// CredentialByToken returns the credential whose secret hashes to
// tokenHash; ErrNotFound when there is none (never paired, or revoked).
func (s *Store) CredentialByToken(ctx context.Context, tokenHash []byte) (Credential, error) {
	c, err := scanCredential(s.db.QueryRowContext(ctx, sqlCredByToken, tokenHash))
	if errors.Is(err, sql.ErrNoRows) {
		return Credential{}, ErrNotFound
	}
	if err != nil {
		return Credential{}, fmt.Errorf("look up credential: %w", err)
	}
	return c, nil
}

// Credentials lists every signed-in browser, oldest first.
func (s *Store) Credentials(ctx context.Context) ([]Credential, error) {
	rows, err := s.db.QueryContext(ctx, sqlListCreds)
	if err != nil {
		return nil, fmt.Errorf("list credentials: %w", err)
	}
	defer rows.Close()
	out := []Credential{}
	for rows.Next() {
		c, err := scanCredential(rows)
		if err != nil {
			return nil, fmt.Errorf("list credentials: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list credentials: %w", err)
	}
	return out, nil
}

// TouchCredential records that the credential was just used.
func (s *Store) TouchCredential(ctx context.Context, id int64) error {
	if _, err := s.db.ExecContext(ctx, sqlTouchCred, s.now().UnixNano(), id); err != nil {
		return fmt.Errorf("record credential use: %w", err)
	}
	return nil
}

// SetCredentialDevice links the credential to the push device its browser
// registered (0 unlinks); ErrNotFound when either does not exist.
func (s *Store) SetCredentialDevice(ctx context.Context, id, deviceID int64) error {
	var dev any
	if deviceID != 0 {
		dev = deviceID
	}
	res, err := s.db.ExecContext(ctx, sqlCredDevice, dev, id)
	if err != nil {
		if isForeignKey(err) {
			return ErrNotFound
		}
		return fmt.Errorf("link credential to device: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RenameCredential sets the credential's name; ErrNotFound when it does
// not exist.
func (s *Store) RenameCredential(ctx context.Context, id int64, name string) error {
	res, err := s.db.ExecContext(ctx, sqlCredName, name, id)
	if err != nil {
		return fmt.Errorf("rename credential: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// RevokeCredential signs one browser out and removes the push device it
// registered, in one transaction; ErrNotFound when there is no such
// credential.
func (s *Store) RevokeCredential(ctx context.Context, id int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("revoke credential: %w", err)
	}
	defer tx.Rollback()
	var dev int64
	if err := tx.QueryRowContext(ctx, sqlCredDeviceID, id).Scan(&dev); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return fmt.Errorf("revoke credential: %w", err)
	}
	if _, err := tx.ExecContext(ctx, sqlDeleteCred, id); err != nil {
		return fmt.Errorf("revoke credential: %w", err)
	}
	if dev != 0 {
		if _, err := tx.ExecContext(ctx, sqlDeleteDeviceID, dev); err != nil {
			return fmt.Errorf("revoke credential: remove its device: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("revoke credential: %w", err)
	}
	return nil
}

// RevokeAllCredentials signs every browser out and removes the push
// devices they registered, in one transaction. It returns how many
// credentials were revoked.
func (s *Store) RevokeAllCredentials(ctx context.Context) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("revoke credentials: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, sqlAllCredDevs)
	if err != nil {
		return 0, fmt.Errorf("revoke credentials: %w", err)
	}
	var devs []int64
	for rows.Next() {
		var d int64
		if err := rows.Scan(&d); err != nil {
			rows.Close()
			return 0, fmt.Errorf("revoke credentials: %w", err)
		}
		devs = append(devs, d)
	}
	rows.Close()
	res, err := tx.ExecContext(ctx, sqlDeleteCreds)
	if err != nil {
		return 0, fmt.Errorf("revoke credentials: %w", err)
	}
	n, _ := res.RowsAffected()
	for _, d := range devs {
		if _, err := tx.ExecContext(ctx, sqlDeleteDeviceID, d); err != nil {
			return 0, fmt.Errorf("revoke credentials: remove device %d: %w", d, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("revoke credentials: %w", err)
	}
	return int(n), nil
}

// isForeignKey reports whether err is SQLite's foreign key violation.
func isForeignKey(err error) bool {
	return err != nil && strings.Contains(err.Error(), "FOREIGN KEY constraint failed")
}
