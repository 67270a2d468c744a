package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// JobsStore is what the job conformance suite needs: jobs, and companies to
// own them.
type JobsStore interface {
	showroom.JobStore
	showroom.AuthStore
}

// unbounded admits every job.
var unbounded = showroom.Admission{}

// Jobs runs the conformance suite of showroom.JobStore. breakQueue makes
// s's job queue refuse every insert from now on (dropping the queue's table
// does), so that the suite sees that a job which could not be enqueued is
// not stored either.
func Jobs(t *testing.T, newStore func(t *testing.T) JobsStore, breakQueue func(t *testing.T, s JobsStore)) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	newJob := func(c *showroom.Company, id string, cost int64, at time.Time) *showroom.Job {
		return &showroom.Job{ID: id, CompanyID: c.ID, CreatedBy: "alice", Configuration: "cfg",
			Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"}]`), Cost: cost,
			InputKey: "in/" + id, CreatedAt: at}
	}

	t.Run("create, find, list", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		for i := range 5 {
			if err := s.CreateJob(ctx, newJob(a, fmt.Sprintf("a%d", i), 1, now.Add(time.Duration(i)*time.Second)), unbounded); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateJob(ctx, newJob(b, "b0", 1, now), unbounded); err != nil {
			t.Fatal(err)
		}
		j, err := s.FindJob(ctx, a.ID, "a1")
		if err != nil || j.Status != showroom.JobQueued || j.Company != "a" || string(j.Processors) == "" || j.InputKey != "in/a1" {
			t.Fatalf("FindJob = %+v, %v", j, err)
		}
		wantCode(t, "other company's job", showroom.EJobNotFound, func() error { _, err := s.FindJob(ctx, b.ID, "a1"); return err }())
		page1, err := s.ListJobs(ctx, a.ID, "", 3)
		if err != nil || len(page1) != 3 || page1[0].ID != "a4" || page1[2].ID != "a2" {
			t.Fatalf("first page %v, %v", ids(page1), err)
		}
		page2, err := s.ListJobs(ctx, a.ID, page1[2].ID, 3)
		if err != nil || len(page2) != 2 || page2[0].ID != "a1" || page2[1].ID != "a0" {
			t.Fatalf("second page %v, %v", ids(page2), err)
		}
		wantCode(t, "cursor of another company", showroom.EJobNotFound, func() error { _, err := s.ListJobs(ctx, b.ID, "a1", 3); return err }())
		if all, own, err := s.CountActiveJobs(ctx, b.ID); all != 6 || own != 1 || err != nil {
			t.Errorf("CountActiveJobs = %d, %d, %v; want 6 in all, 1 of b's", all, own, err)
		}
	})

	t.Run("queue bound and enqueue in the same transaction", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		for i := range 2 {
			if err := s.CreateJob(ctx, newJob(a, fmt.Sprint(i), 0, now), showroom.Admission{MaxQueued: 2}); err != nil {
				t.Fatal(err)
			}
		}
		wantCode(t, "full queue", showroom.EServiceOverloaded, s.CreateJob(ctx, newJob(a, "x", 0, now), showroom.Admission{MaxQueued: 2}))
		if _, err := s.FailJob(ctx, "0", &showroom.JobError{Code: showroom.ECancelled, Message: "gone"}, nil, now); err != nil {
			t.Fatal(err)
		}
		breakQueue(t, s)
		if err := s.CreateJob(ctx, newJob(a, "y", 0, now), showroom.Admission{MaxQueued: 2}); err == nil {
			t.Fatal("CreateJob succeeded with a job queue that refuses inserts")
		}
		wantCode(t, "job of a failed enqueue", showroom.EJobNotFound, func() error { _, err := s.FindJob(ctx, a.ID, "y"); return err }())
	})

	t.Run("a company's share and the whole queue", func(t *testing.T) {
		s := newStore(t)
		a, b, c := mustCompany(t, s, "a"), mustCompany(t, s, "b"), mustCompany(t, s, "c")
		limits := showroom.Admission{MaxQueued: 5, CompanyShare: 3}
		for i := range 3 {
			if err := s.CreateJob(ctx, newJob(a, fmt.Sprint("a", i), 0, now), limits); err != nil {
				t.Fatal(err)
			}
		}
		err := s.CreateJob(ctx, newJob(a, "a3", 0, now), limits)
		wantCode(t, "over a's share", showroom.EServiceOverloaded, err)
		if e := (*showroom.Error)(nil); !errors.As(err, &e) || !strings.Contains(e.Message, "share") || e.RetryAfter <= 0 {
			t.Errorf("over the share: %v; want a message about the company's share and a Retry-After", err)
		}
		for i := range 2 { // another company is admitted while a is refused
			if err := s.CreateJob(ctx, newJob(b, fmt.Sprint("b", i), 0, now), limits); err != nil {
				t.Fatalf("b's job %d while a has its share: %v", i, err)
			}
		}
		err = s.CreateJob(ctx, newJob(c, "c0", 0, now), limits)
		wantCode(t, "full queue", showroom.EServiceOverloaded, err)
		if e := (*showroom.Error)(nil); !errors.As(err, &e) || strings.Contains(e.Message, "share") {
			t.Errorf("full queue: %v; want the queue-full message", err)
		}
		if all, own, _ := s.CountActiveJobs(ctx, a.ID); all != 5 || own != 3 {
			t.Errorf("CountActiveJobs = %d, %d; want 5 in all, 3 of a's", all, own)
		}
		// A finished job gives its place back.
		if _, err := s.FailJob(ctx, "a0", &showroom.JobError{Code: showroom.ECancelled, Message: "gone"}, nil, now); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateJob(ctx, newJob(a, "a4", 0, now), limits); err != nil {
			t.Errorf("a's job after one finished: %v", err)
		}
	})

	t.Run("fair priorities", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		create := func(c *showroom.Company, id string) int {
			t.Helper()
			j := newJob(c, id, 0, now)
			if err := s.CreateJob(ctx, j, unbounded); err != nil {
				t.Fatal(err)
			}
			if got, err := s.FindJob(ctx, c.ID, id); err != nil || got.Priority != j.Priority {
				t.Fatalf("job %s stored with priority %+v, %v; CreateJob set %d", id, got, err, j.Priority)
			}
			return j.Priority
		}
		for i, want := range []int{1, 2, 3, 4, 4, 4} {
			if got := create(a, fmt.Sprint("a", i)); got != want {
				t.Errorf("a's job %d: priority %d, want %d", i, got, want)
			}
		}
		if got := create(b, "b0"); got != 1 {
			t.Errorf("b's first job behind a's backlog: priority %d, want 1", got)
		}
		gone := &showroom.JobError{Code: showroom.ECancelled, Message: "gone"}
		finish := func(ids ...string) {
			t.Helper()
			for _, id := range ids {
				if _, err := s.FailJob(ctx, id, gone, nil, now); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Two of a's jobs still wait at 4: a new one goes behind them, not
		// before, though a has fewer jobs ahead now.
		finish("a0", "a1", "a2", "a3")
		if got := create(a, "a6"); got != 4 {
			t.Errorf("a's job behind its own backlog: priority %d, want 4", got)
		}
		// A running job is ahead of a new one too.
		finish("a4", "a5")
		if j, err := s.StartJob(ctx, "a6", now, 0); err != nil || j.Status != showroom.JobRunning {
			t.Fatalf("StartJob = %+v, %v", j, err)
		}
		if got := create(a, "a7"); got != 2 {
			t.Errorf("a's job behind one running: priority %d, want 2", got)
		}
		finish("a6", "a7")
		if got := create(a, "a8"); got != 1 {
			t.Errorf("a's job once its backlog is gone: priority %d, want 1", got)
		}
	})

	t.Run("admission is atomic under a parallel burst", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		limits := showroom.Admission{MaxQueued: 6, CompanyShare: 4}
		const perCompany = 16
		var mu sync.Mutex
		admitted := map[int64][]int{} // priorities by company
		var wg sync.WaitGroup
		for i := range 2 * perCompany {
			c := a
			if i%2 == 1 {
				c = b
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				j := newJob(c, fmt.Sprint("burst", i), 0, now)
				err := s.CreateJob(ctx, j, limits)
				if err != nil && showroom.ErrorCode(err) != showroom.EServiceOverloaded {
					t.Errorf("job %d: %v", i, err)
					return
				}
				if err == nil {
					mu.Lock()
					admitted[c.ID] = append(admitted[c.ID], j.Priority)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		na, nb := len(admitted[a.ID]), len(admitted[b.ID])
		if na+nb != 6 || na > 4 || nb > 4 {
			t.Errorf("admitted %d of a's and %d of b's; want 6 in all, at most 4 each", na, nb)
		}
		for _, c := range []*showroom.Company{a, b} {
			got := slices.Sorted(slices.Values(admitted[c.ID]))
			for i, p := range got {
				if want := showroom.JobPriority(i, 0); p != want {
					t.Errorf("company %s: priorities %v, want 1, 2, 3, 4 up to its count: two jobs took the same place", c.Name, got)
					break
				}
			}
		}
		if all, _, _ := s.CountActiveJobs(ctx, 0); all != 6 {
			t.Errorf("CountActiveJobs = %d after the burst, want 6", all)
		}
	})

	t.Run("credits are checked up front and charged once", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		three := int64(3)
		if err := s.SetCredits(ctx, a.ID, &three); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "cost over balance", showroom.EInsufficientCredits, s.CreateJob(ctx, newJob(a, "big", 4, now), unbounded))
		j := newJob(a, "j1", 2, now)
		if err := s.CreateJob(ctx, j, unbounded); err != nil {
			t.Fatal(err)
		}
		if got, err := s.StartJob(ctx, "j1", now, 0); err != nil || got.Status != showroom.JobRunning || got.Attempts != 1 {
			t.Fatalf("StartJob = %+v, %v", got, err)
		} else if got.Warnings == nil || len(got.Warnings) != 0 {
			t.Errorf("running job's warnings %#v, want an empty list", got.Warnings)
		}
		j.ResultKey, j.ResultType, j.FinishedAt = "out/j1", "image/png", now
		j.Timings = []showroom.Timing{{Name: "decode", Duration: 1500 * time.Microsecond}}
		warned := []showroom.Warning{{Code: showroom.WarnCarCutByFrame, Message: "the car runs along the photo's left edge"},
			{Code: showroom.WarnTilted, Message: "the photo is tilted"}}
		j.Warnings = warned
		for i, want := range []bool{true, false} { // a retry after a crash calls it again
			if finished, err := s.SucceedJob(ctx, j); err != nil || finished != want {
				t.Fatalf("SucceedJob call %d: finished %v, %v; want %v", i+1, finished, err, want)
			}
		}
		u, err := s.Usage(ctx, a.ID, 10)
		if err != nil || u.Unlimited || u.Balance != 1 || len(u.Charges) != 1 || u.Charges[0].Amount != 2 {
			t.Fatalf("Usage = %+v, %v; want balance 1 after one charge of 2", u, err)
		}
		got, _ := s.FindJob(ctx, a.ID, "j1")
		if got.Status != showroom.JobSucceeded || got.ResultKey != "out/j1" || len(got.Timings) != 1 || got.Timings[0].Duration != 1500*time.Microsecond {
			t.Errorf("succeeded job %+v", got)
		}
		if !reflect.DeepEqual(got.Warnings, warned) {
			t.Errorf("succeeded job's warnings %+v, want %+v", got.Warnings, warned)
		}
		if again, _ := s.StartJob(ctx, "j1", now, 0); again.Status != showroom.JobSucceeded || again.Attempts != 1 {
			t.Errorf("StartJob of a finished job changed it: %+v", again)
		}
		// The balance fell below the cost while a job ran: no charge, failed.
		k := newJob(a, "j2", 1, now)
		if err := s.CreateJob(ctx, k, unbounded); err != nil {
			t.Fatal(err)
		}
		zero := int64(0)
		s.SetCredits(ctx, a.ID, &zero)
		k.FinishedAt = now
		if finished, err := s.SucceedJob(ctx, k); err != nil || !finished {
			t.Fatalf("SucceedJob with the balance short: finished %v, %v; want the job finished (failed)", finished, err)
		}
		if finished, err := s.SucceedJob(ctx, k); err != nil || finished {
			t.Errorf("SucceedJob of a job failed for credits: finished %v, %v; want nothing done", finished, err)
		}
		if got, _ := s.FindJob(ctx, a.ID, "j2"); got.Status != showroom.JobFailed || got.Error == nil || got.Error.Code != showroom.EInsufficientCredits {
			t.Errorf("job after the balance fell: %+v", got)
		}
	})

	t.Run("unlimited credits and adjustments", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		j := newJob(a, "j", 5, now)
		if err := s.CreateJob(ctx, j, unbounded); err != nil {
			t.Fatal(err)
		}
		j.FinishedAt = now
		if _, err := s.SucceedJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		u, _ := s.Usage(ctx, a.ID, 10)
		if !u.Unlimited || len(u.Charges) != 1 {
			t.Errorf("unlimited usage %+v: want still unlimited with the charge recorded", u)
		}
		wantCode(t, "add to unlimited", showroom.EConflict, s.AddCredits(ctx, a.ID, 5))
		ten := int64(10)
		s.SetCredits(ctx, a.ID, &ten)
		if err := s.AddCredits(ctx, a.ID, 5); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "below zero", showroom.EConflict, s.AddCredits(ctx, a.ID, -16))
		if u, _ := s.Usage(ctx, a.ID, 10); u.Unlimited || u.Balance != 15 {
			t.Errorf("balance %+v, want 15", u)
		}
		s.SetCredits(ctx, a.ID, nil)
		if u, _ := s.Usage(ctx, a.ID, 10); !u.Unlimited {
			t.Errorf("SetCredits(nil) did not restore unlimited")
		}
	})

	t.Run("a company's running cap", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		for _, id := range []string{"a1", "a2", "a3"} {
			if err := s.CreateJob(ctx, newJob(a, id, 0, now), unbounded); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateJob(ctx, newJob(b, "b1", 0, now), unbounded); err != nil {
			t.Fatal(err)
		}
		start := func(id string, want showroom.JobStatus, attempts int) {
			t.Helper()
			j, err := s.StartJob(ctx, id, now, 2)
			if err != nil || j.Status != want || j.Attempts != attempts {
				t.Fatalf("StartJob(%s) with a cap of 2 = %+v, %v; want %s after %d attempts", id, j, err, want, attempts)
			}
		}
		start("a1", showroom.JobRunning, 1)
		start("a2", showroom.JobRunning, 1)
		start("a3", showroom.JobQueued, 0)  // a runs 2: a3 waits, no attempt counted
		start("b1", showroom.JobRunning, 1) // another company's is not held back
		start("a2", showroom.JobRunning, 2) // a retry of a running job is not capped
		if _, err := s.FailJob(ctx, "a1", &showroom.JobError{Code: showroom.ENoCarDetected, Message: "no car"}, nil, now); err != nil {
			t.Fatal(err)
		}
		start("a3", showroom.JobRunning, 1) // a1 finished: a's cap has room
		// A run that could not begin goes back to the queue, its attempt
		// uncounted, and frees its place under the cap.
		if err := s.RequeueJob(ctx, "a3"); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.FindJob(ctx, a.ID, "a3"); got.Status != showroom.JobQueued || got.Attempts != 0 || !got.StartedAt.IsZero() {
			t.Errorf("requeued job %+v, want queued, no attempt, not started", got)
		}
		start("a3", showroom.JobRunning, 1)
		if err := s.RequeueJob(ctx, "a1"); err != nil { // failed: stays so
			t.Fatal(err)
		}
		if got, _ := s.FindJob(ctx, a.ID, "a1"); got.Status != showroom.JobFailed {
			t.Errorf("RequeueJob of a failed job made it %s", got.Status)
		}
	})

	t.Run("the running cap holds under parallel starts", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		const jobs, cap = 8, 3
		for i := range jobs {
			if err := s.CreateJob(ctx, newJob(a, fmt.Sprint("p", i), 0, now), unbounded); err != nil {
				t.Fatal(err)
			}
		}
		var started sync.WaitGroup
		var mu sync.Mutex
		running := 0
		for i := range jobs {
			started.Add(1)
			go func() {
				defer started.Done()
				j, err := s.StartJob(ctx, fmt.Sprint("p", i), now, cap)
				if err != nil {
					t.Error(err)
					return
				}
				if j.Status == showroom.JobRunning {
					mu.Lock()
					running++
					mu.Unlock()
				}
			}()
		}
		started.Wait()
		if running != cap {
			t.Errorf("%d of a's jobs started at once with a cap of %d", running, cap)
		}
	})

	t.Run("fail and retention", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		for _, id := range []string{"old", "new", "open"} {
			if err := s.CreateJob(ctx, newJob(a, id, 0, now), unbounded); err != nil {
				t.Fatal(err)
			}
		}
		jerr := &showroom.JobError{Code: showroom.ENoCarDetected, Message: "no car"}
		if _, err := s.FailJob(ctx, "old", jerr, nil, now.Add(-48*time.Hour)); err != nil {
			t.Fatal(err)
		}
		// Only the call that finishes a job says so: a second run's
		// failure, or a failure after success, changes and counts nothing.
		for i, want := range []bool{true, false} {
			if finished, err := s.FailJob(ctx, "new", jerr, nil, now); err != nil || finished != want {
				t.Fatalf("FailJob call %d: finished %v, %v; want %v", i+1, finished, err, want)
			}
		}
		if finished, err := s.FailJob(ctx, "nothing", jerr, nil, now); err != nil || finished {
			t.Errorf("FailJob of no job: finished %v, %v; want false, nil", finished, err)
		}
		if finished, err := s.SucceedJob(ctx, newJob(a, "new", 0, now)); err != nil || finished {
			t.Errorf("SucceedJob of a failed job: finished %v, %v; want nothing done", finished, err)
		}
		got, _ := s.FindJob(ctx, a.ID, "old")
		if got.Status != showroom.JobFailed || got.Error == nil || got.Error.Code != showroom.ENoCarDetected {
			t.Errorf("failed job %+v", got)
		}
		keys, err := s.DeleteJobsFinishedBefore(ctx, now.Add(-24*time.Hour), 100)
		if err != nil || len(keys) != 1 || keys[0] != "in/old" {
			t.Fatalf("DeleteJobsFinishedBefore = %v, %v", keys, err)
		}
		for id, want := range map[string]string{"old": showroom.EJobNotFound, "new": "", "open": ""} {
			_, err := s.FindJob(ctx, a.ID, id)
			wantCode(t, "after retention "+id, want, err)
		}
	})
}

func ids(jobs []*showroom.Job) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		out[i] = j.ID
	}
	return out
}
