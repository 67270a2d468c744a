-- Credits: NULL is unlimited, the default.
ALTER TABLE companies ADD COLUMN credits INTEGER;

CREATE TABLE jobs (
	id TEXT PRIMARY KEY,
	company_id INTEGER NOT NULL REFERENCES companies (id),
	created_by TEXT NOT NULL,
	configuration TEXT NOT NULL,
	processors TEXT NOT NULL, -- JSON array, as accepted
	cost INTEGER NOT NULL,
	format TEXT NOT NULL DEFAULT '',
	quality INTEGER NOT NULL DEFAULT 0,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	input_key TEXT NOT NULL,
	result_key TEXT NOT NULL DEFAULT '',
	result_type TEXT NOT NULL DEFAULT '',
	result_size INTEGER NOT NULL DEFAULT 0,
	error_code TEXT NOT NULL DEFAULT '',
	error_message TEXT NOT NULL DEFAULT '',
	timings TEXT NOT NULL DEFAULT '[]', -- JSON [{"name","ms"}]
	created_at INTEGER NOT NULL,
	started_at INTEGER NOT NULL DEFAULT 0,
	finished_at INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX jobs_company_created ON jobs (company_id, created_at DESC, id DESC);
CREATE INDEX jobs_active ON jobs (status) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at != 0;

-- One row per charged job: the primary key makes a charge happen once.
CREATE TABLE credit_charges (
	job_id TEXT PRIMARY KEY,
	company_id INTEGER NOT NULL REFERENCES companies (id),
	configuration TEXT NOT NULL,
	amount INTEGER NOT NULL,
	created_at INTEGER NOT NULL
);
CREATE INDEX credit_charges_company ON credit_charges (company_id, created_at DESC);
