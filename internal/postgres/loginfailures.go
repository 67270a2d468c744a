package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.LoginFailureStore = (*DB)(nil)

// LoginFailures implements showroom.LoginFailureStore.
func (db *DB) LoginFailures(ctx context.Context, key string, now time.Time, window time.Duration) (int, time.Time, error) {
	var n int
	var start time.Time
	err := db.pool.QueryRow(ctx, `SELECT failures, window_start FROM login_failures WHERE key = $1 AND window_start > $2`,
		key, now.Add(-window)).Scan(&n, &start)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, time.Time{}, nil
	} else if err != nil {
		return 0, time.Time{}, err
	}
	return n, start.UTC(), nil
}

// addLoginFailure counts a failure in one statement: the row lock it takes
// makes concurrent adds, from any process, wait their turn, and each CASE
// reads the row as it was.
const addLoginFailure = `INSERT INTO login_failures AS f (key, window_start, failures) VALUES ($1, $2, 1)
	ON CONFLICT (key) DO UPDATE SET
		failures = CASE WHEN f.window_start > $3 THEN f.failures + 1 ELSE 1 END,
		window_start = CASE WHEN f.window_start > $3 THEN f.window_start ELSE $2 END`

// AddLoginFailure implements showroom.LoginFailureStore.
func (db *DB) AddLoginFailure(ctx context.Context, key string, now time.Time, window time.Duration) error {
	_, err := db.pool.Exec(ctx, addLoginFailure, key, now, now.Add(-window))
	return err
}

// ClearLoginFailures implements showroom.LoginFailureStore.
func (db *DB) ClearLoginFailures(ctx context.Context, key string) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM login_failures WHERE key = $1`, key)
	return err
}

// DeleteLoginFailuresBefore implements showroom.LoginFailureStore.
func (db *DB) DeleteLoginFailuresBefore(ctx context.Context, t time.Time) error {
	_, err := db.pool.Exec(ctx, `DELETE FROM login_failures WHERE window_start < $1`, t)
	return err
}
