-- A company's webhook: its default callback URL and the secrets that sign
-- deliveries (showroom.Webhook).
CREATE TABLE webhooks (
	company_id INTEGER PRIMARY KEY REFERENCES companies (id),
	url TEXT NOT NULL DEFAULT '',
	secret TEXT NOT NULL,
	secret_created_at INTEGER NOT NULL,
	previous_secret TEXT NOT NULL DEFAULT '',
	previous_expires_at INTEGER NOT NULL DEFAULT 0,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);

-- Where a job's record is POSTed when it finishes, and how that went.
ALTER TABLE jobs ADD COLUMN callback_url TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN webhook_status TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN webhook_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN webhook_status_code INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN webhook_error TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN webhook_attempted_at INTEGER NOT NULL DEFAULT 0;
