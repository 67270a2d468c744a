package storetest

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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

func noop(*sql.Tx) error { return nil }

// Jobs runs the conformance suite of showroom.JobStore.
func Jobs(t *testing.T, newStore func(t *testing.T) JobsStore) {
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
			if err := s.CreateJob(ctx, newJob(a, fmt.Sprintf("a%d", i), 1, now.Add(time.Duration(i)*time.Second)), 0, noop); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.CreateJob(ctx, newJob(b, "b0", 1, now), 0, noop); err != nil {
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
		if n, _ := s.CountActiveJobs(ctx); n != 6 {
			t.Errorf("CountActiveJobs = %d, want 6", n)
		}
	})

	t.Run("queue bound and enqueue in the same transaction", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		for i := range 2 {
			if err := s.CreateJob(ctx, newJob(a, fmt.Sprint(i), 0, now), 2, noop); err != nil {
				t.Fatal(err)
			}
		}
		wantCode(t, "full queue", showroom.EServiceOverloaded, s.CreateJob(ctx, newJob(a, "x", 0, now), 2, noop))
		boom := errors.New("enqueue failed")
		if err := s.CreateJob(ctx, newJob(a, "y", 0, now), 0, func(*sql.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("CreateJob = %v, want the enqueue error", err)
		}
		wantCode(t, "job of a failed enqueue", showroom.EJobNotFound, func() error { _, err := s.FindJob(ctx, a.ID, "y"); return err }())
	})

	t.Run("credits are checked up front and charged once", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		three := int64(3)
		if err := s.SetCredits(ctx, a.ID, &three); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "cost over balance", showroom.EInsufficientCredits, s.CreateJob(ctx, newJob(a, "big", 4, now), 0, noop))
		j := newJob(a, "j1", 2, now)
		if err := s.CreateJob(ctx, j, 0, noop); err != nil {
			t.Fatal(err)
		}
		if got, err := s.StartJob(ctx, "j1", now); err != nil || got.Status != showroom.JobRunning || got.Attempts != 1 {
			t.Fatalf("StartJob = %+v, %v", got, err)
		}
		j.ResultKey, j.ResultType, j.FinishedAt = "out/j1", "image/png", now
		j.Timings = []showroom.Timing{{Name: "decode", Duration: 1500 * time.Microsecond}}
		completions := 0
		for range 2 { // a retry after a crash calls it again
			if err := s.SucceedJob(ctx, j, func(*sql.Tx) error { completions++; return nil }); err != nil {
				t.Fatal(err)
			}
		}
		u, err := s.Usage(ctx, a.ID, 10)
		if err != nil || u.Unlimited || u.Balance != 1 || len(u.Charges) != 1 || u.Charges[0].Amount != 2 {
			t.Fatalf("Usage = %+v, %v; want balance 1 after one charge of 2", u, err)
		}
		if completions != 2 {
			t.Errorf("complete ran %d times, want every call (the queue's own row must complete)", completions)
		}
		got, _ := s.FindJob(ctx, a.ID, "j1")
		if got.Status != showroom.JobSucceeded || got.ResultKey != "out/j1" || len(got.Timings) != 1 || got.Timings[0].Duration != 1500*time.Microsecond {
			t.Errorf("succeeded job %+v", got)
		}
		if again, _ := s.StartJob(ctx, "j1", now); again.Status != showroom.JobSucceeded || again.Attempts != 1 {
			t.Errorf("StartJob of a finished job changed it: %+v", again)
		}
		// The balance fell below the cost while a job ran: no charge, failed.
		k := newJob(a, "j2", 1, now)
		if err := s.CreateJob(ctx, k, 0, noop); err != nil {
			t.Fatal(err)
		}
		zero := int64(0)
		s.SetCredits(ctx, a.ID, &zero)
		k.FinishedAt = now
		if err := s.SucceedJob(ctx, k, noop); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.FindJob(ctx, a.ID, "j2"); got.Status != showroom.JobFailed || got.Error == nil || got.Error.Code != showroom.EInsufficientCredits {
			t.Errorf("job after the balance fell: %+v", got)
		}
	})

	t.Run("unlimited credits and adjustments", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		j := newJob(a, "j", 5, now)
		if err := s.CreateJob(ctx, j, 0, noop); err != nil {
			t.Fatal(err)
		}
		j.FinishedAt = now
		if err := s.SucceedJob(ctx, j, noop); err != nil {
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

	t.Run("fail and retention", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		for _, id := range []string{"old", "new", "open"} {
			if err := s.CreateJob(ctx, newJob(a, id, 0, now), 0, noop); err != nil {
				t.Fatal(err)
			}
		}
		jerr := &showroom.JobError{Code: showroom.ENoCarDetected, Message: "no car"}
		if err := s.FailJob(ctx, "old", jerr, nil, now.Add(-48*time.Hour), noop); err != nil {
			t.Fatal(err)
		}
		if err := s.FailJob(ctx, "new", jerr, nil, now, noop); err != nil {
			t.Fatal(err)
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
