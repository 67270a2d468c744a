CREATE TABLE companies (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE users (
	id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	username TEXT NOT NULL UNIQUE,
	password_hash TEXT NOT NULL,
	company_id BIGINT NOT NULL REFERENCES companies (id),
	systems TEXT[] NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE signing_keys (
	id TEXT PRIMARY KEY,
	private_key BYTEA NOT NULL, -- Ed25519 seed
	created_at TIMESTAMPTZ NOT NULL,
	retired_at TIMESTAMPTZ -- NULL while the key is current
);

CREATE TABLE refresh_tokens (
	id TEXT PRIMARY KEY,
	user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
	created_at TIMESTAMPTZ NOT NULL,
	expires_at TIMESTAMPTZ NOT NULL,
	revoked_at TIMESTAMPTZ
);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
