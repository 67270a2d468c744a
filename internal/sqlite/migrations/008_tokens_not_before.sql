-- Access tokens of a user issued before this time (Unix ms; 0: none) are
-- refused: set when the user is created (so that a new user of a deleted
-- one's name does not inherit its tokens) and when the password changes.
ALTER TABLE users ADD COLUMN tokens_not_before INTEGER NOT NULL DEFAULT 0;
