-- Credits: NULL is unlimited, the default.
ALTER TABLE companies ADD COLUMN credits BIGINT;

CREATE TABLE jobs (
	id TEXT PRIMARY KEY,
	company_id BIGINT NOT NULL REFERENCES companies (id),
	created_by TEXT NOT NULL,
	configuration TEXT NOT NULL,
	processors JSON NOT NULL, -- array, as accepted
	cost BIGINT NOT NULL,
	format TEXT NOT NULL DEFAULT '',
	quality INTEGER NOT NULL DEFAULT 0,
	status TEXT NOT NULL,
	attempts INTEGER NOT NULL DEFAULT 0,
	input_key TEXT NOT NULL,
	result_key TEXT NOT NULL DEFAULT '',
	result_type TEXT NOT NULL DEFAULT '',
	result_size BIGINT NOT NULL DEFAULT 0,
	error_code TEXT NOT NULL DEFAULT '',
	error_message TEXT NOT NULL DEFAULT '',
	timings JSON NOT NULL DEFAULT '[]', -- [{"name","ms"}]
	created_at TIMESTAMPTZ NOT NULL,
	started_at TIMESTAMPTZ,
	finished_at TIMESTAMPTZ
);
CREATE INDEX jobs_company_created ON jobs (company_id, created_at DESC, id DESC);
CREATE INDEX jobs_active ON jobs (status) WHERE status IN ('queued', 'running');
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;

-- One row per charged job: the primary key makes a charge happen once.
CREATE TABLE credit_charges (
	job_id TEXT PRIMARY KEY,
	company_id BIGINT NOT NULL REFERENCES companies (id),
	configuration TEXT NOT NULL,
	amount BIGINT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX credit_charges_company ON credit_charges (company_id, created_at DESC);
