package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.LoginFailureStore = (*DB)(nil)

// LoginFailures implements showroom.LoginFailureStore.
func (db *DB) LoginFailures(ctx context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error) {
	var n int
	var start int64
	err := db.queryRow(ctx, `SELECT failures, window_start FROM login_failures WHERE key = ? AND window_start > ?`,
		key, now.Add(-window).UnixMilli()).Scan(&n, &start)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, time.Time{}, nil
	} else if err != nil {
		return 0, time.Time{}, unavailable(err)
	}
	return n, time.UnixMilli(start).UTC(), nil
}

// addLoginFailure counts a failure in one statement, so that two processes
// adding at once both count: each CASE reads the row as it was.
const addLoginFailure = `INSERT INTO login_failures AS f (key, window_start, failures) VALUES (?1, ?2, 1)
	ON CONFLICT (key) DO UPDATE SET
		failures = CASE WHEN f.window_start > ?3 THEN f.failures + 1 ELSE 1 END,
		window_start = CASE WHEN f.window_start > ?3 THEN f.window_start ELSE ?2 END`

// AddLoginFailure implements showroom.LoginFailureStore.
func (db *DB) AddLoginFailure(ctx context.Context, key string, now time.Time, window time.Duration) error {
	_, err := db.db.ExecContext(ctx, addLoginFailure, key, now.UnixMilli(), now.Add(-window).UnixMilli())
	return err
}

// ClearLoginFailures implements showroom.LoginFailureStore.
func (db *DB) ClearLoginFailures(ctx context.Context, key string) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM login_failures WHERE key = ?`, key)
	return err
}

// DeleteLoginFailuresBefore implements showroom.LoginFailureStore.
func (db *DB) DeleteLoginFailuresBefore(ctx context.Context, t time.Time) error {
	_, err := db.db.ExecContext(ctx, `DELETE FROM login_failures WHERE window_start < ?`, t.UnixMilli())
	return err
}
