package sqlite

import (
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// TestRateBucketsForgetIdleKeys: a bucket that has refilled is dropped at
// the next sweep, so the map holds only keys busy lately, and a key that
// comes back starts full, as it would have been.
func TestRateBucketsForgetIdleKeys(t *testing.T) {
	var r rateBuckets
	limit := showroom.RateLimit{PerMinute: 60, Burst: 2}
	t0 := time.Unix(1000, 0)
	r.take("idle", limit, t0)
	r.take("busy", limit, t0)
	r.take("busy", limit, t0)
	later := t0.Add(sweepEvery + time.Second)
	r.take("other", limit, later)
	if _, ok := r.buckets["idle"]; ok {
		t.Error("a refilled bucket was kept past the sweep")
	}
	if q := r.take("idle", limit, later); !q.Allowed || q.Remaining != 1 {
		t.Errorf("a forgotten key's first take: %+v, want allowed with 1 left of 2", q)
	}
}
