-- Counts changes to a company's configurations, in the transaction that
-- makes them: a process that keeps a company's list compares it to know
-- the list is still current, whichever process wrote (DB.ListConfigurations).
ALTER TABLE companies ADD COLUMN configurations_version BIGINT NOT NULL DEFAULT 0;
