package store

const (
	sqlCreateMigrations = `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`
	sqlMaxMigration    = `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`
	sqlInsertMigration = `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`
)

// migrations are applied in order; migration i+1 is migrations[i]. Never
// edit one that has shipped: add a new one.
var migrations = []string{
	// 1: settings, devices, notified-set.
	`CREATE TABLE settings (
		key   TEXT PRIMARY KEY,
		value BLOB NOT NULL
	);
	CREATE TABLE devices (
		id              INTEGER PRIMARY KEY,
		endpoint        TEXT NOT NULL UNIQUE,
		p256dh          BLOB NOT NULL,
		auth            BLOB NOT NULL,
		name            TEXT NOT NULL DEFAULT '',
		created_at      INTEGER NOT NULL,
		last_outcome    TEXT NOT NULL DEFAULT '',
		last_detail     TEXT NOT NULL DEFAULT '',
		last_attempt_at INTEGER NOT NULL DEFAULT 0,
		last_success_at INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE notified (
		fingerprint  TEXT PRIMARY KEY,
		host         TEXT NOT NULL,
		pane         TEXT NOT NULL,
		announced_at INTEGER NOT NULL
	);
	CREATE INDEX notified_pane ON notified (host, pane);`,
}
