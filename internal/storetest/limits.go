package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// RateLimits runs the conformance suite of showroom.RateLimiter on a fresh
// limiter from newStore.
func RateLimits(t *testing.T, newStore func(t *testing.T) showroom.RateLimiter) {
	t.Run("a burst, then refused; keys apart", func(t *testing.T) {
		s := newStore(t)
		limit := showroom.RateLimit{PerMinute: 1, Burst: 3} // a token a minute: no refill to speak of here
		for i, left := range []int{2, 1, 0} {
			q := mustTake(t, s, "a", limit)
			if !q.Allowed || q.Limit != 3 || q.Remaining != left || q.RetryAfter != 0 {
				t.Errorf("take %d: %+v, want allowed, limit 3, %d left, no Retry-After", i+1, q, left)
			}
			// The bucket lacks 3-left tokens, a minute each.
			if full := time.Duration(3-left) * time.Minute; q.Reset > full || q.Reset < full-10*time.Second {
				t.Errorf("take %d: reset in %v, want just under %v", i+1, q.Reset, full)
			}
		}
		q := mustTake(t, s, "a", limit)
		if q.Allowed || q.Remaining != 0 || q.RetryAfter <= 50*time.Second || q.RetryAfter > time.Minute ||
			q.Reset <= 170*time.Second || q.Reset > 3*time.Minute {
			t.Errorf("take over the burst: %+v, want refused, none left, the next token in under a minute, full in under 3", q)
		}
		if q := mustTake(t, s, "b", limit); !q.Allowed || q.Remaining != 2 {
			t.Errorf("another key's first take: %+v, want allowed with 2 left", q)
		}
	})

	t.Run("refill", func(t *testing.T) {
		s := newStore(t)
		limit := showroom.RateLimit{PerMinute: 60, Burst: 1}
		if q := mustTake(t, s, "a", limit); !q.Allowed {
			t.Fatalf("first take refused: %+v", q)
		}
		q := mustTake(t, s, "a", limit)
		if q.Allowed || q.RetryAfter <= 0 || q.RetryAfter > time.Second {
			t.Fatalf("second take at once: %+v, want refused with the next token within a second", q)
		}
		time.Sleep(q.RetryAfter + 100*time.Millisecond)
		if q := mustTake(t, s, "a", limit); !q.Allowed || q.Remaining != 0 {
			t.Errorf("take after Retry-After: %+v, want allowed", q)
		}
	})

	t.Run("no limit", func(t *testing.T) {
		s := newStore(t)
		for i := range 5 {
			if q := mustTake(t, s, "a", showroom.RateLimit{Burst: 1}); !q.Allowed {
				t.Fatalf("take %d without a rate refused: %+v", i+1, q)
			}
		}
	})

	t.Run("parallel takes spend each token once", func(t *testing.T) {
		s := newStore(t)
		parallelTakes(t, []showroom.RateLimiter{s}, 5, 24)
	})
}

// SharedRateLimits checks that limiters on one database, as the api
// processes of one deployment have, spend the same buckets: a client gets
// no more by spreading its requests over them. open returns another
// limiter on one and the same database each call.
func SharedRateLimits(t *testing.T, open func(t *testing.T) showroom.RateLimiter) {
	a, b := open(t), open(t)
	limit := showroom.RateLimit{PerMinute: 1, Burst: 3}
	for i, s := range []showroom.RateLimiter{a, b, a} {
		if q := mustTake(t, s, "acme", limit); !q.Allowed || q.Remaining != 2-i {
			t.Errorf("take %d, on limiter %d: %+v, want allowed with %d left", i+1, i%2+1, q, 2-i)
		}
	}
	if q := mustTake(t, b, "acme", limit); q.Allowed || q.RetryAfter <= 0 {
		t.Errorf("take over the burst on the other limiter: %+v, want refused with a Retry-After", q)
	}
	parallelTakes(t, []showroom.RateLimiter{a, b}, 5, 24)
}

// parallelTakes takes n tokens at once from a fresh bucket of burst
// tokens, spread over limiters, and checks that exactly burst were
// allowed, each leaving a different count.
func parallelTakes(t *testing.T, limiters []showroom.RateLimiter, burst, n int) {
	t.Helper()
	limit := showroom.RateLimit{PerMinute: 1, Burst: burst}
	var allowed atomic.Int64
	var mu sync.Mutex
	left := map[int]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, err := limiters[i%len(limiters)].TakeRate(context.Background(), "burst", limit)
			if err != nil {
				t.Error(err)
				return
			}
			if q.Allowed {
				allowed.Add(1)
				mu.Lock()
				left[q.Remaining]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != int64(burst) || len(left) != burst {
		t.Errorf("%d parallel takes on %d limiter(s): %d allowed, leaving %v; want %d, each leaving a different count",
			n, len(limiters), allowed.Load(), left, burst)
	}
}

func mustTake(t *testing.T, s showroom.RateLimiter, key string, limit showroom.RateLimit) showroom.RateQuota {
	t.Helper()
	q, err := s.TakeRate(context.Background(), key, limit)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// SharedJobs checks that job stores on one database, as the api and
// worker processes of one deployment have, keep the queue's limits and
// the credits together: the queue's bound and a company's share hold for
// submissions spread over the stores, and a job finished through both at
// once (a rescued job run by two workers) is recorded, charged and
// reported finished once. open returns another store on one and the same
// database each call.
func SharedJobs(t *testing.T, open func(t *testing.T) JobsStore) {
	ctx := context.Background()
	a, b := open(t), open(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	newJob := func(c *showroom.Company, id string, cost int64) *showroom.Job {
		return &showroom.Job{ID: id, CompanyID: c.ID, CreatedBy: "alice", Configuration: "cfg",
			Processors: []byte(`[{"processorName":"DetectCarMaskProcessor"}]`), Cost: cost, InputKey: "in/" + id, CreatedAt: now}
	}
	x, y := mustCompany(t, a, "x"), mustCompany(t, a, "y")

	t.Run("the queue's bound and a company's share", func(t *testing.T) {
		limits := showroom.Admission{MaxQueued: 6, CompanyShare: 4}
		stores := []JobsStore{a, b}
		var mu sync.Mutex
		admitted := map[int64][]int{} // priorities by company
		var wg sync.WaitGroup
		for i := range 32 {
			c := []*showroom.Company{x, y}[i/2%2] // x, x, y, y, ...: each company on both stores
			wg.Add(1)
			go func() {
				defer wg.Done()
				j := newJob(c, fmt.Sprint("q", i), 0)
				err := stores[i%2].CreateJob(ctx, j, limits)
				if err != nil && showroom.ErrorCode(err) != showroom.EServiceOverloaded {
					t.Errorf("job %d: %v", i, err)
				}
				if err == nil {
					mu.Lock()
					admitted[c.ID] = append(admitted[c.ID], j.Priority)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if nx, ny := len(admitted[x.ID]), len(admitted[y.ID]); nx+ny != 6 || nx > 4 || ny > 4 {
			t.Errorf("admitted %d of x's and %d of y's through two stores; want 6 in all, at most 4 each", nx, ny)
		}
		for _, c := range []*showroom.Company{x, y} { // the fair order's places, one job each
			got := slices.Sorted(slices.Values(admitted[c.ID]))
			for i, p := range got {
				if p != showroom.JobPriority(i, 0) {
					t.Errorf("company %s: priorities %v through two stores; two jobs took the same place", c.Name, got)
					break
				}
			}
		}
		for _, s := range stores {
			if all, _, err := s.CountActiveJobs(ctx, 0); err != nil || all != 6 {
				t.Errorf("CountActiveJobs = %d, %v; want the 6 admitted, seen by each store", all, err)
			}
			wantCode(t, "a job over the bound", showroom.EServiceOverloaded, s.CreateJob(ctx, newJob(y, "over", 0), limits))
		}
		// A job finished through one store gives its place back to the other.
		list, err := a.ListJobs(ctx, x.ID, "", 10)
		if err != nil || len(list) == 0 {
			t.Fatalf("x's jobs: %v, %v", ids(list), err)
		}
		if _, err := a.FailJob(ctx, list[0].ID, &showroom.JobError{Code: showroom.ECancelled, Message: "gone"}, nil, now); err != nil {
			t.Fatal(err)
		}
		if err := b.CreateJob(ctx, newJob(x, "after", 0), limits); err != nil {
			t.Errorf("x's job after one of x's finished through the other store: %v", err)
		}
	})

	t.Run("finished once through two stores", func(t *testing.T) {
		ten := int64(10)
		if err := a.SetCredits(ctx, y.ID, &ten); err != nil {
			t.Fatal(err)
		}
		j := newJob(y, "twice", 3)
		if err := a.CreateJob(ctx, j, unbounded); err != nil {
			t.Fatal(err)
		}
		for _, s := range []JobsStore{a, b} { // started by both workers: the rescued run and the slow one
			if _, err := s.StartJob(ctx, j.ID, now, 0); err != nil {
				t.Fatal(err)
			}
		}
		var finished atomic.Int64
		var wg sync.WaitGroup
		for _, s := range []JobsStore{a, b, a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				run := *j
				run.ResultKey, run.ResultType, run.FinishedAt = "out/twice", "image/png", now
				done, err := s.SucceedJob(ctx, &run)
				if err != nil {
					t.Error(err)
				}
				if done {
					finished.Add(1)
				}
			}()
		}
		wg.Wait()
		if finished.Load() != 1 {
			t.Errorf("%d SucceedJob calls reported finishing the job, want exactly 1", finished.Load())
		}
		u, err := b.Usage(ctx, y.ID, 10)
		if err != nil || u.Balance != 7 || len(u.Charges) != 1 {
			t.Errorf("usage after the job finished four times: %+v, %v; want one charge of 3, balance 7", u, err)
		}
		if got, err := b.FindJob(ctx, y.ID, j.ID); err != nil || got.Status != showroom.JobSucceeded || got.Attempts != 2 {
			t.Errorf("job %+v, %v; want succeeded after 2 attempts", got, err)
		}
	})
}
