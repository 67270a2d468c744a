-- Failed logins by key ("u:" and a lower-cased username, "c:" and a client
-- address) in fixed windows (showroom.LoginFailureStore), shared by every
-- auth process on the database and kept across their restarts. A row is
-- written only when a login fails; rows whose window has ended are deleted
-- (window_start indexed for that). Not UNLOGGED, unlike rate_buckets: a
-- crash of the server must not hand a guesser a fresh window, and failures
-- are few (each costs the guesser a password check).
CREATE TABLE login_failures (
	key TEXT PRIMARY KEY,
	window_start TIMESTAMPTZ NOT NULL,
	failures INTEGER NOT NULL
);
CREATE INDEX login_failures_window_start ON login_failures (window_start);
