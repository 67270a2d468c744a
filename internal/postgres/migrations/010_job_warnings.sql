-- What a person should check in a succeeded job's result:
-- [{"code","message"}], empty for a clean photo and for jobs from before.
ALTER TABLE jobs ADD COLUMN warnings JSON NOT NULL DEFAULT '[]';
