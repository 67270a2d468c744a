package sqlite

import (
	"context"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.RateLimiter = (*DB)(nil)

// rateBuckets are the token buckets of the rate limits, in memory: the
// embedded database serves one process, so memory is shared by everyone
// who takes, and a take costs no write to the file. Buckets that have
// refilled are forgotten, so the map holds only keys busy lately.
type rateBuckets struct {
	mu      sync.Mutex
	buckets map[string]*rateBucket
	swept   time.Time
}

type rateBucket struct {
	tokens float64
	at     time.Time
	limit  showroom.RateLimit
}

// TakeRate implements showroom.RateLimiter.
func (db *DB) TakeRate(_ context.Context, key string, limit showroom.RateLimit) (showroom.RateQuota, error) {
	if limit.Off() {
		return showroom.RateQuota{Allowed: true}, nil
	}
	return db.rates.take(key, limit, time.Now()), nil
}

// sweepEvery is how often take forgets full buckets.
const sweepEvery = time.Minute

func (r *rateBuckets) take(key string, limit showroom.RateLimit, now time.Time) showroom.RateQuota {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.swept) > sweepEvery {
		for k, b := range r.buckets {
			if b.tokens+now.Sub(b.at).Seconds()*b.limit.PerSecond() >= b.limit.Capacity() {
				delete(r.buckets, k)
			}
		}
		r.swept = now
	}
	if r.buckets == nil {
		r.buckets = map[string]*rateBucket{}
	}
	b, seen := r.buckets[key]
	if !seen {
		b = &rateBucket{}
		r.buckets[key] = b
	}
	var q showroom.RateQuota
	b.tokens, q = limit.Take(b.tokens, now.Sub(b.at), !seen)
	b.at, b.limit = now, limit
	return q
}
