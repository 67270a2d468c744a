package river

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/showroom"
)

// processWorker runs one job: the photo through its configuration.
type processWorker struct {
	river.WorkerDefaults[processArgs]
	q *Queue
}

// NextRetry says when a job is due again. One whose attempt failed here
// waits River's backoff. One whose process died, which River's rescuer
// finds only after --rescue-after, goes back to its place in line: due
// since it was first queued, so it runs before the jobs queued after it
// (River takes the most urgent priority first, then the earliest due), and
// its client does not wait the whole line again.
func (w *processWorker) NextRetry(rj *river.Job[processArgs]) time.Time {
	if _, ok := w.q.erred.LoadAndDelete(rj.ID); ok {
		return time.Time{} // the queue's retry policy
	}
	return rj.CreatedAt
}

func (w *processWorker) Work(ctx context.Context, rj *river.Job[processArgs]) (err error) {
	q := w.q
	defer func() {
		var cancel *river.JobCancelError
		var snooze *river.JobSnoozeError
		if err != nil && !errors.As(err, &cancel) && !errors.As(err, &snooze) {
			q.erred.Store(rj.ID, struct{}{}) // River retries it: see NextRetry
		}
	}()
	j, err := q.store.StartJob(ctx, rj.Args.JobID, time.Now(), q.companyWorkers())
	if showroom.ErrorCode(err) == showroom.EJobNotFound {
		return river.JobCancel(err) // removed by retention while queued
	} else if err != nil {
		return err
	}
	if j.Status == showroom.JobQueued {
		// Its company runs as many jobs as it may: the job waits, untried
		// (River does not count a snooze as an attempt), and this worker
		// looks at the next one, maybe another company's.
		return river.JobSnooze(q.cfg.CompanyWait)
	}
	if j.Status != showroom.JobRunning {
		return nil // finished by an earlier attempt, or cancelled while queued
	}
	if rj.Attempt > q.cfg.MaxAttempts {
		// The last run never reported back: its process crashed or was
		// stopped. The attempt after the last is for recording that.
		return w.record(ctx, j, &showroom.JobError{Code: showroom.EInternal, Message: "the photo could not be processed"}, 0,
			fmt.Errorf("its last attempt of %d did not finish (%d errors recorded)", q.cfg.MaxAttempts, len(rj.Errors)))
	}
	ctx, cancel := context.WithCancel(ctx)
	q.mu.Lock()
	q.cancels[j.ID] = cancel
	q.mu.Unlock()
	q.running.Add(1)
	defer func() {
		q.running.Add(-1)
		q.mu.Lock()
		delete(q.cancels, j.ID)
		q.mu.Unlock()
		cancel()
		q.notify(j.ID)
	}()

	start := time.Now()
	// The run acts for the job's company, as a request acts for its
	// token's: whoever it calls (the content it loads) reads the company
	// here rather than looking it up by name.
	ctx = showroom.NewContextWithCompany(ctx, &showroom.Company{ID: j.CompanyID, Name: j.Company})
	out, err := q.execute(ctx, j)
	if err != nil {
		if q.storageDown(ctx, err) {
			return w.waitForStorage(ctx, rj, j, err, time.Since(start))
		}
		return w.fail(ctx, rj, j, err, time.Since(start))
	}
	j.ResultKey = "jobs/" + j.ID + "/result"
	j.ResultType = out.MediaType
	j.ResultSize = int64(len(out.Image))
	j.Timings = out.Timings
	j.Warnings = out.Warnings
	j.FinishedAt = time.Now().UTC().Truncate(time.Millisecond)
	// The result's key is the job's own: a retry after a crash overwrites the
	// same blob, and only the transaction below makes it visible.
	if err := q.blobs.Put(ctx, j.ResultKey, bytes.NewReader(out.Image)); err != nil {
		if ctx.Err() == nil {
			err = &storageError{fmt.Errorf("store result: %w", err)}
		}
		return w.waitForStorage(ctx, rj, j, err, time.Since(start))
	}
	river.MetadataSet(ctx, outageKey, nil)
	// River marks its row completed when Work returns. A crash before that
	// runs the job again, and StartJob then finds it finished: recorded and
	// charged once.
	finished, err := q.store.SucceedJob(ctx, j)
	if err != nil {
		return err
	}
	if !finished {
		// Another run of the job (a rescued one, while this slow one went
		// on) recorded it first, and counted it.
		return nil
	}
	if fin, err := q.store.FindJob(context.WithoutCancel(ctx), 0, j.ID); err == nil {
		if fin.Status == showroom.JobSucceeded && q.observe.Charged != nil && j.Cost > 0 {
			q.observe.Charged(j.Company, j.Cost)
		}
		if fin.Status == showroom.JobSucceeded && q.observe.Warned != nil {
			for _, w := range fin.Warnings {
				q.observe.Warned(w.Code)
			}
		}
		q.finished(fin, time.Since(start))
	}
	return nil
}

func (q *Queue) execute(ctx context.Context, j *showroom.Job) (*Output, error) {
	r, err := q.blobs.Get(ctx, j.InputKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, errMissingPhoto
	} else if err != nil {
		return nil, &storageError{fmt.Errorf("read photo: %w", err)}
	}
	photo, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, &storageError{fmt.Errorf("read photo: %w", err)}
	}
	return q.run(ctx, j, photo)
}

// errMissingPhoto is a job whose photo is not in the blob store: no retry
// brings it back.
var errMissingPhoto = errors.New("the job's photo is not in the blob store")

// storageError is a blob store that did not answer a job's read or write.
type storageError struct{ err error }

func (e *storageError) Error() string { return e.err.Error() }
func (e *storageError) Unwrap() error { return e.err }

// storageDown reports whether a run's err comes from a blob store that is
// away: a read or write of the job's own blobs that failed, or an internal
// failure of the run (loading a company's content, say) while the store
// does not answer.
func (q *Queue) storageDown(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false // cancelled or timed out: fail says what follows
	}
	var se *storageError
	if errors.As(err, &se) || showroom.ErrorCode(err) == showroom.EUnavailable {
		return true
	}
	r, ok := q.blobs.(interface{ Reachable(context.Context) error })
	if !ok || showroom.ErrorCode(err) != showroom.EInternal || errors.Is(err, errMissingPhoto) {
		return false
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return r.Reachable(rctx) != nil
}

// outageKey is the River metadata of a job waiting out its blob store:
// since when, and how many waits so far.
const outageKey = "showroom_storage_outage"

type outage struct {
	Since time.Time `json:"since"`
	Waits int       `json:"waits"`
}

// waitForStorage puts a job whose blob store did not answer back in the
// queue, its attempt uncounted, to be tried again after a growing wait
// (Config.StorageBackoff): an outage of the store is not the photo's
// failure, and the job must not use up its attempts in the seconds of
// River's first backoffs. Once it has waited Config.StorageRetry, the
// attempt fails as any internal error does.
func (w *processWorker) waitForStorage(ctx context.Context, rj *river.Job[processArgs], j *showroom.Job, err error, d time.Duration) error {
	q := w.q
	var md struct {
		Outage outage `json:"showroom_storage_outage"` // outageKey
	}
	json.Unmarshal(rj.Metadata, &md)
	o := md.Outage
	now := time.Now()
	if o.Since.IsZero() {
		o.Since = now
	}
	if ctx.Err() != nil || now.Sub(o.Since) >= q.cfg.StorageRetry {
		river.MetadataSet(ctx, outageKey, nil)
		return w.fail(ctx, rj, j, err, d)
	}
	wait := q.cfg.StorageBackoff << min(o.Waits, 4)
	o.Waits++
	river.MetadataSet(ctx, outageKey, o)
	if rerr := q.store.RequeueJob(context.WithoutCancel(ctx), j.ID); rerr != nil {
		// Left running, the job is still tried again after the wait;
		// only its record counts one more attempt.
		q.log.WarnContext(ctx, "job not put back in the queue", "job_id", j.ID, "err", rerr)
	}
	q.log.WarnContext(ctx, "blob store unavailable; job waits for it", "job_id", j.ID, "company", j.Company,
		"wait", wait, "outage_s", int(now.Sub(o.Since).Seconds()), "err", err)
	return river.JobSnooze(wait)
}

// fail records why a run failed. A client's mistake (a photo without a car,
// content since deleted) fails the job at once; an internal error is
// retried until the attempts run out.
func (w *processWorker) fail(ctx context.Context, rj *river.Job[processArgs], j *showroom.Job, err error, d time.Duration) error {
	q := w.q
	code := showroom.ErrorCode(err)
	var jerr *showroom.JobError
	var e *showroom.Error
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		// Cancelled: by Cancel (the row says so already), by Stop, or by
		// the timeout; River retries the last two.
		if fin, ferr := q.store.FindJob(context.WithoutCancel(ctx), 0, j.ID); ferr == nil && fin.Status == showroom.JobFailed {
			return river.JobCancel(err)
		}
		return err
	case code != showroom.EInternal && errors.As(err, &e):
		jerr = &showroom.JobError{Code: e.Code, Message: e.Message}
	case errors.Is(err, errMissingPhoto):
		jerr = &showroom.JobError{Code: showroom.EInternal, Message: "the photo could not be processed"}
	case rj.Attempt >= q.cfg.MaxAttempts:
		jerr = &showroom.JobError{Code: showroom.EInternal, Message: "the photo could not be processed"}
	default:
		q.log.WarnContext(ctx, "job attempt failed; will retry", "job_id", j.ID, "company", j.Company, "attempt", rj.Attempt, "err", err)
		return err
	}
	return w.record(ctx, j, jerr, d, err)
}

// record fails j for good with jerr, after a run of d that ended in err,
// and tells River not to try again. It logs the failure once: at ERROR when
// the service failed, at WARN when the photo or the company's content did
// (no car found, content deleted), which is the client's to fix but may
// still be asked about.
func (w *processWorker) record(ctx context.Context, j *showroom.Job, jerr *showroom.JobError, d time.Duration, err error) error {
	now := time.Now().UTC().Truncate(time.Millisecond)
	finished, ferr := w.q.store.FailJob(context.WithoutCancel(ctx), j.ID, jerr, nil, now)
	if ferr != nil {
		return ferr
	}
	if finished { // not when another run of the job had finished it
		level := slog.LevelWarn
		if jerr.Code == showroom.EInternal {
			level = slog.LevelError
		}
		w.q.log.Log(ctx, level, "job failed", "job_id", j.ID, "company", j.Company, "configuration", j.Configuration,
			"error_code", jerr.Code, "err", err)
		j.Status = showroom.JobFailed
		w.q.finished(j, d)
	}
	return river.JobCancel(err)
}

func (q *Queue) finished(j *showroom.Job, d time.Duration) {
	if q.observe.JobFinished != nil {
		q.observe.JobFinished(j.Configuration, j.Status, d)
	}
}

// waiter returns a channel closed when job id finishes in this process.
func (q *Queue) waiter(id string) chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	ch, ok := q.waiters[id]
	if !ok {
		ch = make(chan struct{})
		q.waiters[id] = ch
	}
	return ch
}

func (q *Queue) notify(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if ch, ok := q.waiters[id]; ok {
		close(ch)
		delete(q.waiters, id)
	}
}

func (q *Queue) forget(id string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.waiters, id)
}

// Wait waits until the job has finished and returns it. A job run by this
// process wakes the waiter at once; one run elsewhere is polled for.
func (q *Queue) Wait(ctx context.Context, companyID int64, id string) (*showroom.Job, error) {
	ch := q.waiter(id)
	defer q.forget(id)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		j, err := q.store.FindJob(ctx, companyID, id)
		if err != nil {
			return nil, err
		}
		if j.Status == showroom.JobSucceeded || j.Status == showroom.JobFailed {
			return j, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-ch:
			ch = q.waiter(id)
		case <-tick.C:
		}
	}
}

// Cancel gives up on a job whose client went away: a queued job will not
// run, a running one here is stopped.
func (q *Queue) Cancel(ctx context.Context, id string) error {
	_, err := q.store.FailJob(ctx, id, &showroom.JobError{Code: showroom.ECancelled,
		Message: "the client went away before the result was ready"}, nil, time.Now().UTC())
	q.mu.Lock()
	if cancel, ok := q.cancels[id]; ok {
		cancel()
	}
	q.mu.Unlock()
	return err
}

// Result opens a succeeded job's result.
func (q *Queue) Result(ctx context.Context, j *showroom.Job) (io.ReadCloser, error) {
	if j.Status != showroom.JobSucceeded {
		return nil, showroom.Errorf(showroom.EConflict, "job %s has no result: it is %s", j.ID, j.Status)
	}
	return q.blobs.Get(ctx, j.ResultKey)
}

type cleanupArgs struct{}

func (cleanupArgs) Kind() string { return "showroom_cleanup" }

// cleanupWorker removes finished jobs past the retention time and their
// blobs.
type cleanupWorker struct {
	river.WorkerDefaults[cleanupArgs]
	q *Queue
}

func (w *cleanupWorker) Work(ctx context.Context, _ *river.Job[cleanupArgs]) error {
	return w.q.Cleanup(ctx, time.Now().Add(-w.q.cfg.Retention))
}

// Cleanup removes jobs finished before t, and their photos and results.
func (q *Queue) Cleanup(ctx context.Context, t time.Time) error {
	for {
		keys, err := q.store.DeleteJobsFinishedBefore(ctx, t, 500)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := q.blobs.Delete(ctx, k); err != nil {
				q.log.WarnContext(ctx, "cleanup: blob not deleted", "key", k, "err", err)
			}
		}
		if len(keys) == 0 {
			return nil
		}
	}
}
