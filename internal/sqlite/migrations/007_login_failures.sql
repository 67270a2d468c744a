-- Failed logins by key ("u:" and a lower-cased username, "c:" and a client
-- address) in fixed windows (showroom.LoginFailureStore), kept in the file
-- so that a restarted auth service still refuses a key that used up its
-- window. A row is written only when a login fails; rows whose window has
-- ended are deleted (window_start indexed for that).
CREATE TABLE login_failures (
	key TEXT PRIMARY KEY,
	window_start INTEGER NOT NULL,
	failures INTEGER NOT NULL
);
CREATE INDEX login_failures_window_start ON login_failures (window_start);
