package postgres

import (
	"context"
	"fmt"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.RateLimiter = (*DB)(nil)

// refilled is a bucket's tokens now, before this take: what it held plus
// the refill since, up to the burst. The database's clock is the one
// clock every api process shares; a take that waited for another's row
// lock may start before that take's time, hence greatest.
const refilled = `least($2::float8, b.tokens + greatest(extract(epoch FROM now() - b.updated_at)::float8, 0) * $3::float8)`

// takeRate spends a token in one statement: the row lock it takes makes
// concurrent takes, from any process, wait their turn. A key never seen
// starts full, less this take. Every SET expression reads the row as it
// was, so refilled is the same in each.
const takeRate = `INSERT INTO rate_buckets AS b (key, tokens, updated_at, allowed) VALUES ($1, $2::float8 - 1, now(), true)
	ON CONFLICT (key) DO UPDATE SET
		tokens = ` + refilled + ` - CASE WHEN ` + refilled + ` >= 1 THEN 1 ELSE 0 END,
		allowed = ` + refilled + ` >= 1,
		updated_at = greatest(b.updated_at, now())
	RETURNING tokens, allowed`

// TakeRate implements showroom.RateLimiter: the bucket is a row of
// rate_buckets, shared by every process on the database.
func (db *DB) TakeRate(ctx context.Context, key string, limit showroom.RateLimit) (showroom.RateQuota, error) {
	if limit.Off() {
		return showroom.RateQuota{Allowed: true}, nil
	}
	var tokens float64
	var allowed bool
	if err := db.pool.QueryRow(ctx, takeRate, key, limit.Capacity(), limit.PerSecond()).Scan(&tokens, &allowed); err != nil {
		return showroom.RateQuota{}, fmt.Errorf("rate limit: %w", err)
	}
	return limit.Quota(tokens, allowed), nil
}
