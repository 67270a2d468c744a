package showroom

import (
	"context"
	"math"
	"time"
)

// RateLimit is a token bucket: Burst requests at once, the bucket refilled
// at PerMinute requests a minute. A bucket nobody used lately is full.
type RateLimit struct {
	// PerMinute is the sustained rate; 0 or less is no limit at all.
	PerMinute float64
	// Burst is the bucket's size, at least 1.
	Burst int
}

// Off reports whether l limits nothing.
func (l RateLimit) Off() bool { return l.PerMinute <= 0 }

// Capacity is the bucket's size: Burst, but at least one token, since a
// bucket that never holds a whole one would refuse everything.
func (l RateLimit) Capacity() float64 { return float64(max(l.Burst, 1)) }

// PerSecond is the refill rate.
func (l RateLimit) PerSecond() float64 { return l.PerMinute / 60 }

// Take spends a token of a bucket that held tokens elapsed ago (a bucket
// never seen holds the full Burst: pass fresh). It returns the tokens left
// and what the client is told. Every RateLimiter does its arithmetic here,
// so that they differ only in where the bucket is kept.
func (l RateLimit) Take(tokens float64, elapsed time.Duration, fresh bool) (left float64, q RateQuota) {
	if fresh {
		tokens = l.Capacity()
	} else {
		tokens = math.Min(l.Capacity(), tokens+max(elapsed.Seconds(), 0)*l.PerSecond())
	}
	allowed := tokens >= 1
	if allowed {
		tokens--
	}
	return tokens, l.Quota(tokens, allowed)
}

// Quota is what a client is told of a bucket holding tokens after a take
// that was allowed or not.
func (l RateLimit) Quota(tokens float64, allowed bool) RateQuota {
	q := RateQuota{
		Allowed:   allowed,
		Limit:     int(l.Capacity()),
		Remaining: max(int(math.Floor(tokens)), 0),
		Reset:     l.wait(l.Capacity() - tokens),
	}
	if !allowed {
		q.RetryAfter = l.wait(1 - tokens)
	}
	return q
}

// wait is how long the bucket takes to gain n tokens.
func (l RateLimit) wait(n float64) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(math.Ceil(n / l.PerSecond() * float64(time.Second)))
}

// RateQuota is a bucket's state after a take: whether the request may go
// on, and the fields of the RateLimit-* headers.
type RateQuota struct {
	Allowed bool
	// Limit is the bucket's size: requests allowed at once.
	Limit int
	// Remaining is the whole requests the bucket still allows now.
	Remaining int
	// Reset is how long until the bucket is full again.
	Reset time.Duration
	// RetryAfter is how long until the next request is allowed, when this
	// one was not.
	RetryAfter time.Duration
}

// RateLimiter keeps token buckets by key, where every process that shares
// them sees the same buckets: PostgreSQL's limiter holds for all api
// processes on the database, the embedded database's for its one process.
type RateLimiter interface {
	// TakeRate spends a token of key's bucket under limit if one is left,
	// as one atomic step however many callers take at once, and returns
	// what is left.
	TakeRate(ctx context.Context, key string, limit RateLimit) (RateQuota, error)
}
