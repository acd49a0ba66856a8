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
	// 2: the decision log, pane mutes, per-device kind choices, the outbox.
	`CREATE TABLE decisions (
		id          INTEGER PRIMARY KEY,
		at          INTEGER NOT NULL,
		kind        TEXT NOT NULL,
		host        TEXT NOT NULL DEFAULT '',
		pane        TEXT NOT NULL DEFAULT '',
		name        TEXT NOT NULL DEFAULT '',
		fingerprint TEXT NOT NULL DEFAULT '',
		stage       TEXT NOT NULL,
		outcome     TEXT NOT NULL,
		reason      TEXT NOT NULL DEFAULT '',
		device_id   INTEGER NOT NULL DEFAULT 0,
		device      TEXT NOT NULL DEFAULT '',
		channel     TEXT NOT NULL DEFAULT '',
		silent      INTEGER NOT NULL DEFAULT 0,
		age_ms      INTEGER NOT NULL DEFAULT 0,
		detail      TEXT NOT NULL DEFAULT '',
		content     TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX decisions_pane ON decisions (host, pane, at);
	CREATE TABLE mutes (
		host           TEXT NOT NULL,
		pane           TEXT NOT NULL,
		until_at       INTEGER NOT NULL DEFAULT 0,
		until_finished INTEGER NOT NULL DEFAULT 0,
		created_at     INTEGER NOT NULL,
		PRIMARY KEY (host, pane)
	);
	CREATE TABLE device_kinds (
		device_id INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
		kind      TEXT NOT NULL,
		enabled   INTEGER NOT NULL,
		PRIMARY KEY (device_id, kind)
	);
	CREATE TABLE outbox (
		id           INTEGER PRIMARY KEY,
		device_id    INTEGER NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
		created_at   INTEGER NOT NULL,
		expires_at   INTEGER NOT NULL,
		notification BLOB NOT NULL
	);`,
	// 3: reply nonces, per-pane input generations, the answer audit log.
	`CREATE TABLE nonces (
		nonce       TEXT PRIMARY KEY,
		fingerprint TEXT NOT NULL,
		host        TEXT NOT NULL,
		pane        TEXT NOT NULL,
		incarnation TEXT NOT NULL,
		options     TEXT NOT NULL,
		generation  INTEGER NOT NULL,
		created_at  INTEGER NOT NULL,
		expires_at  INTEGER NOT NULL,
		used_at     INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX nonces_fingerprint ON nonces (fingerprint);
	CREATE TABLE input_generations (
		host       TEXT NOT NULL,
		pane       TEXT NOT NULL,
		generation INTEGER NOT NULL,
		typed      INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (host, pane)
	);
	CREATE TABLE audit (
		id           INTEGER PRIMARY KEY,
		at           INTEGER NOT NULL,
		surface      TEXT NOT NULL,
		device       TEXT NOT NULL DEFAULT '',
		host         TEXT NOT NULL DEFAULT '',
		pane         TEXT NOT NULL DEFAULT '',
		option_index INTEGER NOT NULL DEFAULT -1,
		option_label TEXT NOT NULL DEFAULT '',
		outcome      TEXT NOT NULL,
		gate         TEXT NOT NULL DEFAULT '',
		detail       TEXT NOT NULL DEFAULT ''
	);`,
	// 4: browser sign-in: one-time pairing codes and the long-lived
	// credentials they become (only hashes of either are kept).
	`CREATE TABLE pairings (
		code_hash  BLOB PRIMARY KEY,
		created_at INTEGER NOT NULL,
		expires_at INTEGER NOT NULL,
		used_at    INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE credentials (
		id           INTEGER PRIMARY KEY,
		token_hash   BLOB NOT NULL UNIQUE,
		name         TEXT NOT NULL DEFAULT '',
		created_at   INTEGER NOT NULL,
		last_seen_at INTEGER NOT NULL DEFAULT 0,
		device_id    INTEGER REFERENCES devices (id) ON DELETE SET NULL
	);`,
	// 5: channels beyond Web Push (ntfy, Telegram, Pushover, Gotify, FCM,
	// webhook, desktop): their URLs, kind choices, persisted state (the
	// Telegram update offset), shown-message references for clearing, and
	// FCM device tokens.
	`CREATE TABLE channels (
		id              INTEGER PRIMARY KEY,
		name            TEXT NOT NULL UNIQUE,
		kind            TEXT NOT NULL,
		url             TEXT NOT NULL,
		created_at      INTEGER NOT NULL,
		last_outcome    TEXT NOT NULL DEFAULT '',
		last_detail     TEXT NOT NULL DEFAULT '',
		last_attempt_at INTEGER NOT NULL DEFAULT 0,
		last_success_at INTEGER NOT NULL DEFAULT 0
	);
	CREATE TABLE channel_kinds (
		channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
		kind       TEXT NOT NULL,
		enabled    INTEGER NOT NULL,
		PRIMARY KEY (channel_id, kind)
	);
	CREATE TABLE channel_state (
		channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
		key        TEXT NOT NULL,
		value      TEXT NOT NULL,
		PRIMARY KEY (channel_id, key)
	);
	CREATE TABLE channel_refs (
		channel_id  INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
		fingerprint TEXT NOT NULL,
		ref         TEXT NOT NULL,
		created_at  INTEGER NOT NULL,
		PRIMARY KEY (channel_id, fingerprint, ref)
	);
	CREATE INDEX channel_refs_fingerprint ON channel_refs (fingerprint);
	CREATE TABLE channel_tokens (
		channel_id INTEGER NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
		token      TEXT NOT NULL,
		created_at INTEGER NOT NULL,
		dropped_at INTEGER NOT NULL DEFAULT 0,
		detail     TEXT NOT NULL DEFAULT '',
		PRIMARY KEY (channel_id, token)
	);`,
	// 6: per-host credentials (`attn host token HOST`): a remote host's
	// hooks and MCP calls reach the daemon with one; only its SHA-256
	// hash is kept, and it can only speak for its own host.
	`CREATE TABLE host_tokens (
		host         TEXT PRIMARY KEY,
		token_hash   BLOB NOT NULL UNIQUE,
		created_at   INTEGER NOT NULL,
		last_used_at INTEGER NOT NULL DEFAULT 0
	);`,
}
