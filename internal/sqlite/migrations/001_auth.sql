CREATE TABLE companies (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL
);

CREATE TABLE users (
	id INTEGER PRIMARY KEY,
	username TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	company_id INTEGER NOT NULL REFERENCES companies (id),
	systems TEXT NOT NULL, -- space-separated system names
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);

CREATE TABLE signing_keys (
	id TEXT PRIMARY KEY,
	private_key BLOB NOT NULL, -- Ed25519 seed
	created_at INTEGER NOT NULL,
	retired_at INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE refresh_tokens (
	id TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	revoked_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
