// Package store is attn's embedded persistence: one SQLite file (mode
// 0600, WAL) holding the VAPID keypair, the registered devices and the
// notified-set. SQL lives in named constants; the schema evolves through
// numbered migrations, each applied in its own transaction.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver, no cgo
)

// FileName is the store's file name inside the state directory.
const FileName = "attn.db"

// Store is an open attn database. It is safe for concurrent use.
type Store struct {
	db  *sql.DB
	now func() time.Time
}

// Open opens (creating if needed) the store in dir, makes dir 0700 and the
// database file 0600, turns on WAL, and applies pending migrations. now
// stamps rows; nil means time.Now. Errors name the path and what to check.
func Open(ctx context.Context, dir string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create state directory %s (set --state-dir to a writable place): %w", dir, err)
	}
	path := filepath.Join(dir, FileName)
	// Create the file ourselves first so SQLite never makes it world-readable.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open store %s (check its owner and permissions): %w", path, err)
	}
	f.Close()
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("restrict store %s to its owner: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// One writer at a time is SQLite's rule; one connection keeps it simple
	// and the load here is a few rows a second at most.
	db.SetMaxOpenConns(1)
	s := &Store{db: db, now: now}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, sqlCreateMigrations); err != nil {
		return fmt.Errorf("create migrations table: %w", err)
	}
	var applied int
	if err := s.db.QueryRowContext(ctx, sqlMaxMigration).Scan(&applied); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if applied > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this attn knows (%d): upgrade attn or use another --state-dir", applied, len(migrations))
	}
	for i := applied; i < len(migrations); i++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if _, err := tx.ExecContext(ctx, sqlInsertMigration, i+1, s.now().Unix()); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: record: %w", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: commit: %w", i+1, err)
		}
	}
	return nil
}
