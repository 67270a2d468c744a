-- Content: images a company uploaded. The bytes are in the blob store under
-- blob_key; a row is written only after its blob is stored.
CREATE TABLE content (
	company_id BIGINT NOT NULL REFERENCES companies (id),
	name TEXT NOT NULL, -- case-sensitive, [A-Za-z0-9]{1,64}
	type TEXT NOT NULL,
	media_type TEXT NOT NULL,
	width INTEGER NOT NULL,
	height INTEGER NOT NULL,
	size BIGINT NOT NULL,
	sha256 TEXT NOT NULL,
	blob_key TEXT NOT NULL,
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	created_by TEXT NOT NULL,
	updated_by TEXT NOT NULL,
	PRIMARY KEY (company_id, name)
);

-- Configurations of companies; predefined ones live in code. JSON columns
-- are json, not jsonb: they give back the text as accepted.
CREATE TABLE configurations (
	company_id BIGINT NOT NULL REFERENCES companies (id),
	name TEXT NOT NULL,
	type TEXT NOT NULL,
	processors JSON NOT NULL, -- array, as accepted
	cost INTEGER NOT NULL,
	ui JSON NOT NULL, -- thumbnail and nameDescriptions
	created_at TIMESTAMPTZ NOT NULL,
	updated_at TIMESTAMPTZ NOT NULL,
	created_by TEXT NOT NULL,
	updated_by TEXT NOT NULL,
	PRIMARY KEY (company_id, name)
);

-- Which content a configuration uses: content in use cannot be deleted, and
-- the foreign key keeps that true even if a check is ever missed.
CREATE TABLE configuration_content (
	company_id BIGINT NOT NULL,
	configuration TEXT NOT NULL,
	content TEXT NOT NULL,
	PRIMARY KEY (company_id, configuration, content),
	FOREIGN KEY (company_id, configuration) REFERENCES configurations (company_id, name) ON DELETE CASCADE,
	FOREIGN KEY (company_id, content) REFERENCES content (company_id, name)
);
CREATE INDEX configuration_content_content ON configuration_content (company_id, content);
