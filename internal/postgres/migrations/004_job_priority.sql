-- A job's place in the fair order between companies (showroom.JobPriority).
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
-- Admission counts one company's queued and running jobs.
CREATE INDEX jobs_company_active ON jobs (company_id, status) WHERE status IN ('queued', 'running');
