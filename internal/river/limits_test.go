package river_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
)

// waitStatus waits up to d for company c's job id to reach one of want and
// returns it; it fails t when the job does not.
func (f *fixture) waitStatus(t *testing.T, c *showroom.Company, id string, d time.Duration, want ...showroom.JobStatus) *showroom.Job {
	t.Helper()
	var got *showroom.Job
	for deadline := time.Now().Add(d); ; time.Sleep(5 * time.Millisecond) {
		got, _ = f.db.FindJob(context.Background(), c.ID, id)
		for _, s := range want {
			if got != nil && got.Status == s {
				return got
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s after %v: %+v, want %v", id, d, got, want)
		}
	}
}

// running counts company c's jobs among jobs that are running now.
func (f *fixture) running(c *showroom.Company, jobs []*showroom.Job) (n int) {
	for _, j := range jobs {
		if got, _ := f.db.FindJob(context.Background(), c.ID, j.ID); got != nil && got.Status == showroom.JobRunning {
			n++
		}
	}
	return n
}

// TestCompanyRunningCap: with two workers, a company that sends many slow
// jobs runs only as many at once as its cap allows, so that another
// company's photo starts, and finishes, while the first's are still
// running; the held-back jobs stay queued, untried, and all run in the
// end. When the cap allows every worker, a company alone uses them all.
func TestCompanyRunningCap(t *testing.T) { onBoth(t, testCompanyRunningCap) }

func testCompanyRunningCap(t *testing.T, on backend) {
	for _, tc := range []struct {
		name    string
		cap     int // river.Config.CompanyWorkers
		running int // acme's jobs running at once
	}{
		{"default: one worker kept for the others", 0, 1},
		{"a cap of both workers", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Workers = 2
			cfg.CompanyWorkers = tc.cap
			cfg.CompanyWait = 20 * time.Millisecond
			f := newFixture(t, on, cfg)
			var acme []*showroom.Job
			for range 5 {
				j, err := f.submit(t, "held", 0)
				if err != nil {
					t.Fatal(err)
				}
				acme = append(acme, j)
			}
			for deadline := time.Now().Add(10 * time.Second); f.running(f.co, acme) == 0; time.Sleep(5 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("none of acme's jobs started")
				}
			}
			// Long enough for a second worker to take a job, and for
			// held-back ones to be looked at again many times.
			time.Sleep(300 * time.Millisecond)
			if n := f.running(f.co, acme); n != tc.running {
				t.Fatalf("acme alone runs %d jobs at once, want %d", n, tc.running)
			}
			for _, j := range acme {
				if got, _ := f.db.FindJob(context.Background(), f.co.ID, j.ID); got.Status != showroom.JobRunning && (got.Status != showroom.JobQueued || got.Attempts != 0) {
					t.Errorf("acme's job beyond its cap: %s after %d attempts, want queued and untried", got.Status, got.Attempts)
				}
			}
			if tc.running == cfg.Workers {
				return // every worker is acme's: the others wait for one
			}
			beta := f.company(t, "beta")
			b, err := f.submitFor(beta, "ok", 0)
			if err != nil {
				t.Fatal(err)
			}
			// Before the cap, beta's photo waited for one of acme's held
			// jobs to end, here never.
			if got := f.waitStatus(t, beta, b.ID, 5*time.Second, showroom.JobSucceeded, showroom.JobFailed); got.Status != showroom.JobSucceeded {
				t.Fatalf("beta's job %+v", got)
			}
			if n := f.running(f.co, acme); n != tc.running {
				t.Errorf("acme runs %d jobs once beta's finished, want %d", n, tc.running)
			}
			f.release()
			for _, j := range acme {
				if got := f.wait(t, j.ID); got.Status != showroom.JobSucceeded || got.Attempts != 1 {
					t.Errorf("acme's job %s: %s after %d attempts, want succeeded after 1", j.ID, got.Status, got.Attempts)
				}
			}
		})
	}
}

// TestStartWhenReady: a queue told to start once its process is ready (a
// worker's model warmed up) takes no job before, says so to /readyz, and
// runs the job waiting for it once ready; stopped before, it never starts.
func TestStartWhenReady(t *testing.T) { onBoth(t, testStartWhenReady) }

func testStartWhenReady(t *testing.T, on backend) {
	ctx := context.Background()
	f := newFixtureWith(t, on, testConfig(), fixtureOptions{unstarted: true})
	ready := make(chan struct{})
	f.q.StartWhen(ctx, ready)
	j, err := f.submit(t, "ok", 0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // many polls of a started queue
	if got, _ := f.db.FindJob(ctx, f.co.ID, j.ID); got.Status != showroom.JobQueued || got.Attempts != 0 || f.calls.Load() != 0 {
		t.Fatalf("job before ready: %s after %d attempts, %d runs; want queued, untried", got.Status, got.Attempts, f.calls.Load())
	}
	if err := f.q.Working(ctx); err == nil {
		t.Error("Working before ready is nil")
	}
	close(ready)
	if got := f.wait(t, j.ID); got.Status != showroom.JobSucceeded || got.Attempts != 1 {
		t.Fatalf("job after ready: %+v", got)
	}
	if err := f.q.Working(ctx); err != nil {
		t.Errorf("Working after ready: %v", err)
	}

	// Stopped before ready: nothing starts after.
	g := newFixtureWith(t, on, testConfig(), fixtureOptions{unstarted: true})
	ready2 := make(chan struct{})
	g.q.StartWhen(ctx, ready2)
	if err := g.q.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	close(ready2)
	k, err := g.submit(t, "ok", 0)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if got, _ := g.db.FindJob(ctx, g.co.ID, k.ID); got.Status != showroom.JobQueued || g.calls.Load() != 0 {
		t.Errorf("a queue stopped before ready ran a job: %s, %d runs", got.Status, g.calls.Load())
	}
}

// flakyBlobs is a blob store that is down while down is set: the photo a
// job reads and the result it writes fail as an unreachable S3 does;
// submissions still store photos. missing makes photos absent instead.
type flakyBlobs struct {
	river.Blobs
	down, missing atomic.Bool
	failed        atomic.Int32 // reads and writes refused
}

var errUnreachable = errors.New(`operation error S3: GetObject, dial tcp 127.0.0.1:9: connect: connection refused`)

func (b *flakyBlobs) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if b.missing.Load() {
		b.failed.Add(1)
		return nil, blob.ErrNotFound
	}
	if b.down.Load() {
		b.failed.Add(1)
		return nil, errUnreachable
	}
	return b.Blobs.Get(ctx, key)
}

func (b *flakyBlobs) Put(ctx context.Context, key string, r io.Reader) error {
	if b.down.Load() && strings.HasSuffix(key, "/result") {
		b.failed.Add(1)
		return errUnreachable
	}
	return b.Blobs.Put(ctx, key, r)
}

func (b *flakyBlobs) Reachable(context.Context) error {
	if b.down.Load() {
		return errUnreachable
	}
	return nil
}

// TestStorageOutage: a job whose blob store is down when it reads its
// photo or writes its result waits for the store with a growing backoff,
// its attempts untouched, and succeeds once the store is back; an outage
// longer than the storage retry fails it as an internal error; a photo
// that is not there fails it at once.
func TestStorageOutage(t *testing.T) { onBoth(t, testStorageOutage) }

func testStorageOutage(t *testing.T, on backend) {
	for _, tc := range []struct {
		name      string
		config    string        // the configuration: "ok" runs through, "held" until released
		retry     time.Duration // river.Config.StorageRetry
		outage    time.Duration // how long the store stays down; 0: missing photo
		status    showroom.JobStatus
		attempts  int
		minFailed int32 // reads and writes refused, at least
		maxFailed int32 // and at most
	}{
		{"reading the photo, back in time", "ok", 10 * time.Second, 600 * time.Millisecond, showroom.JobSucceeded, 1, 2, 12},
		{"writing the result, back in time", "held", 10 * time.Second, 600 * time.Millisecond, showroom.JobSucceeded, 1, 1, 12},
		{"down past the storage retry", "ok", 300 * time.Millisecond, time.Hour, showroom.JobFailed, 3, 5, 1000},
		{"the photo missing", "ok", 10 * time.Second, 0, showroom.JobFailed, 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.MaxAttempts = 3
			cfg.StorageBackoff = 20 * time.Millisecond // 20, 40, 80, 160, 320, 320... ms
			cfg.StorageRetry = tc.retry
			fb := &flakyBlobs{}
			f := newFixtureWith(t, on, cfg, fixtureOptions{blobs: func(b river.Blobs) river.Blobs { fb.Blobs = b; return fb }})
			if tc.config == "ok" {
				fb.down.Store(tc.outage > 0)
				fb.missing.Store(tc.outage == 0)
			}
			j, err := f.submit(t, tc.config, 0)
			if err != nil {
				t.Fatal(err)
			}
			if tc.config == "held" {
				f.waitRunning(t, j.ID)
				fb.down.Store(true)
				f.release()
			}
			if tc.outage > 0 && tc.outage < time.Minute {
				time.Sleep(tc.outage)
				if got, _ := f.db.FindJob(context.Background(), f.co.ID, j.ID); got.Status == showroom.JobFailed || got.Attempts > 1 {
					t.Fatalf("job while the store is down: %s after %d attempts; want it waiting, its attempts untouched", got.Status, got.Attempts)
				}
				fb.down.Store(false)
			}
			got := f.wait(t, j.ID)
			if got.Status != tc.status || got.Attempts != tc.attempts {
				t.Fatalf("job: %s after %d attempts (error %+v), want %s after %d", got.Status, got.Attempts, got.Error, tc.status, tc.attempts)
			}
			if tc.status == showroom.JobFailed && (got.Error == nil || got.Error.Code != showroom.EInternal) {
				t.Errorf("failed with %+v, want INTERNAL", got.Error)
			}
			if n := fb.failed.Load(); n < tc.minFailed || n > tc.maxFailed {
				t.Errorf("the store refused %d reads and writes, want %d to %d", n, tc.minFailed, tc.maxFailed)
			}
		})
	}
}
