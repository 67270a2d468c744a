-- The token buckets of the request rate limits (showroom.RateLimit), kept
-- here so that every api process on the database spends the same tokens.
-- One row per key; TakeRate updates it with one UPSERT. allowed is the
-- outcome of the row's last take, for that statement's RETURNING.
CREATE TABLE rate_buckets (
	key TEXT PRIMARY KEY,
	tokens DOUBLE PRECISION NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	allowed BOOLEAN NOT NULL
);
