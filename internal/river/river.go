// Package river runs processing jobs on River (riverqueue.com): every run,
// synchronous ones too, is a River job in the same database as Showroom's
// own job records, inserted by the job store in the transaction that admits
// the job (Enqueuer) and executed by a fixed number of workers. A full
// queue is refused, a job whose worker died is retried, and a result is
// recorded and charged once. It works on any River driver: riversqlite for
// the embedded database, riverpgxv5 for PostgreSQL.
package river

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivertype"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/webhook"
)

// Config configures the queue.
type Config struct {
	// Workers is how many runs execute at once in this process.
	Workers int
	// MaxQueued is how many jobs may be queued or running before a new one
	// is refused with SERVICE_OVERLOADED.
	MaxQueued int
	// CompanyShare is how many of them may be one company's: beyond it
	// that company is refused while others are still admitted. 0 is half
	// of MaxQueued (at least 1).
	CompanyShare int
	// CompanyWorkers is how many of one company's jobs may run at once, in
	// every process working on the database: a company at it leaves its
	// further jobs queued, untried, and the workers take other companies'
	// jobs, so that one company's slow photos never hold every worker.
	// 0 is Workers-1 of this process, at least 1: one worker kept for the
	// others when one process works (several should set it, see
	// docs/deploy.md).
	CompanyWorkers int
	// CompanyWait is how long a job whose company is at its CompanyWorkers
	// waits before it is looked at again.
	CompanyWait time.Duration
	// StorageBackoff is the first wait before a job whose blob store did
	// not answer is tried again; each next wait doubles, up to 16 times it.
	// Such a wait is not an attempt.
	StorageBackoff time.Duration
	// StorageRetry is how long a job waits out a blob store that does not
	// answer before its attempt counts as failed.
	StorageRetry time.Duration
	// JobTimeout cancels a run that takes longer.
	JobTimeout time.Duration
	// RescueAfter is when a job left running by a dead worker is retried; it
	// must exceed JobTimeout.
	RescueAfter time.Duration
	// MaxAttempts bounds retries of a job that fails for an internal reason
	// (below 25, River's own bound: riverAttempts).
	MaxAttempts int
	// Retention is how long finished jobs and their results are kept.
	Retention time.Duration
	// PollInterval is how often idle workers look for jobs nobody announced
	// to them. A job is announced: PostgreSQL notifies on commit; on SQLite,
	// River's driver writes notifications to an outbox table that each
	// process reads every 50 ms, and the store wakes its own process's
	// reader when it commits a job (sqlite.RiverDriver), so only another
	// process on the same file waits for that read.
	PollInterval time.Duration
	// Work, when false, makes this process only enqueue (an API replica).
	Work bool
	// RetryBackoff, when set, is the fixed wait before retrying a failed
	// attempt, instead of River's growing one (attempt⁴ seconds).
	RetryBackoff time.Duration
	// Webhooks configures the delivery of finished jobs to their callback
	// URLs (EnableWebhooks).
	Webhooks webhook.Config
}

// DefaultConfig returns settings for the 2-core machine Showroom is sized
// for: two runs at once, a queue of 32, half of it for any one company.
func DefaultConfig() Config {
	return Config{
		Workers:   2,
		MaxQueued: 32,
		// A finished job frees its company's place this late at most
		// while none of the others' jobs wait: long beside the 50 ms of a
		// look, short beside a photo's seconds.
		CompanyWait: time.Second,
		// 1, 2, 4, 8, 16, 16... s: a two-minute outage costs a job about
		// 8 s beyond it, and ten minutes of them are waited out.
		StorageBackoff: time.Second,
		StorageRetry:   10 * time.Minute,
		JobTimeout:     2 * time.Minute,
		RescueAfter:    3 * time.Minute,
		MaxAttempts:    3,
		Retention:      7 * 24 * time.Hour,
		// Jobs reach their own process's workers at once; the interval is
		// how long one submitted by another process may wait, for 4% of a
		// core of idle polling (2% at 200 ms). docs/benchmarks.md has its
		// history.
		PollInterval: 50 * time.Millisecond,
		Work:         true,
		Webhooks:     webhook.DefaultConfig(),
	}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.Workers < 1:
		return errors.New("queue: workers must be at least 1")
	case c.MaxQueued < 1:
		return errors.New("queue: the queue length must be at least 1")
	case c.CompanyShare < 0 || c.CompanyShare > c.MaxQueued:
		return errors.New("queue: a company's share of the queue must be from 1 to the queue length (0: half of it)")
	case c.CompanyWorkers < 0:
		return errors.New("queue: a company's running jobs must be at least 1 (0: one fewer than the workers)")
	case c.CompanyWait <= 0 || c.StorageBackoff <= 0 || c.StorageRetry < 0:
		return errors.New("queue: the company wait and storage backoff must be positive, the storage retry not negative")
	case c.JobTimeout <= 0 || c.RescueAfter <= c.JobTimeout:
		return errors.New("queue: the job timeout must be positive and the rescue delay longer than it")
	case c.MaxAttempts < 1 || c.MaxAttempts >= riverAttempts:
		return fmt.Errorf("queue: max attempts must be from 1 to %d", riverAttempts-1)
	case c.Retention <= 0 || c.PollInterval <= 0:
		return errors.New("queue: retention and poll interval must be positive")
	}
	if c.Webhooks.MaxAttempts >= riverAttempts {
		return fmt.Errorf("webhooks: max attempts must be from 1 to %d", riverAttempts-1)
	}
	return c.Webhooks.Validate()
}

// Blobs is the blob storage the queue keeps photos and results in.
type Blobs interface {
	Put(ctx context.Context, key string, r io.Reader) error
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	Delete(ctx context.Context, key string) error
}

// Output is what a run produced.
type Output struct {
	Image     []byte
	MediaType string
	Timings   []showroom.Timing
	// Warnings are stored with the job (see showroom.Warning).
	Warnings []showroom.Warning
}

// Runner runs a job's configuration on its photo. ctx carries the job's
// company (showroom.CompanyFromContext).
type Runner func(ctx context.Context, job *showroom.Job, photo []byte) (*Output, error)

// Observer is told about finished runs (metrics). Any field may be nil.
type Observer struct {
	JobFinished func(configuration string, status showroom.JobStatus, d time.Duration)
	Charged     func(company string, amount int64)
	// Warned is told each warning code of a job that succeeded, once.
	Warned func(code string)
}

// Queue accepts jobs and, when configured to work, runs them.
type Queue struct {
	cfg     Config
	store   showroom.JobStore
	blobs   Blobs
	run     Runner
	log     *slog.Logger
	observe Observer
	client  client
	hooks   *webhook.Deliverer // nil until EnableWebhooks

	// startMu orders a deferred start (StartWhen) with Stop: once stopped,
	// a queue never starts.
	startMu  sync.Mutex
	started  bool
	stopped  bool
	stopping chan struct{} // closed by Stop

	running atomic.Int64
	// erred holds the River ids of jobs whose attempt just returned an
	// error in this process, for processWorker.NextRetry.
	erred   sync.Map
	mu      sync.Mutex
	waiters map[string]chan struct{}      // closed when the job finishes here
	cancels map[string]context.CancelFunc // of runs executing here
}

// client is the part of River's generic client a Queue uses once it is
// made, whatever the driver's transaction type.
type client interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	StopAndCancel(ctx context.Context) error
}

// New makes a queue whose River client runs on driver, over the same
// database as store (which enqueues the jobs, and whose migrate step has
// applied River's migrations: Migrate).
func New[TTx any](cfg Config, driver riverdriver.Driver[TTx], store showroom.JobStore, blobs Blobs, run Runner, log *slog.Logger, observe Observer) (*Queue, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	q := &Queue{cfg: cfg, store: store, blobs: blobs, run: run, log: log, observe: observe,
		stopping: make(chan struct{}),
		waiters:  map[string]chan struct{}{}, cancels: map[string]context.CancelFunc{}}
	rc := &river.Config{
		Logger:               quiet(log),
		JobTimeout:           cfg.JobTimeout,
		RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval:    cfg.PollInterval,
		// The least time between two fetches: a job announced just after
		// a fetch (its notification, a finished job's free slot) is
		// fetched this soon after it, not at the next poll. River's
		// default, 100 ms, cost a synchronous request 8-32 ms.
		FetchCooldown: min(cfg.PollInterval, 5*time.Millisecond),
	}
	if cfg.RetryBackoff > 0 {
		rc.RetryPolicy = fixedRetry(cfg.RetryBackoff)
	}
	if cfg.Work {
		workers := river.NewWorkers()
		river.AddWorker(workers, &processWorker{q: q})
		river.AddWorker(workers, &cleanupWorker{q: q})
		river.AddWorker(workers, &deliverWorker{q: q})
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{
			river.QueueDefault: {MaxWorkers: cfg.Workers},
			webhookQueue:       {MaxWorkers: cfg.Webhooks.Workers},
		}
		rc.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(time.Hour), func() (river.JobArgs, *river.InsertOpts) {
				return cleanupArgs{}, nil
			}, &river.PeriodicJobOpts{RunOnStart: true}),
		}
	}
	c, err := river.NewClient(driver, rc)
	if err != nil {
		return nil, err
	}
	q.client = c
	return q, nil
}

// fixedRetry retries after a fixed wait.
type fixedRetry time.Duration

func (d fixedRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(time.Duration(d)) }

// quiet keeps River's own chatter at warnings and above.
func quiet(log *slog.Logger) *slog.Logger {
	return slog.New(levelFilter{log.Handler(), slog.LevelWarn})
}

type levelFilter struct {
	slog.Handler
	min slog.Level
}

func (f levelFilter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= f.min && f.Handler.Enabled(ctx, l)
}

// Start starts the workers (if configured to work). Runs are not cancelled
// when ctx ends (River would cancel them): Stop ends them gracefully.
func (q *Queue) Start(ctx context.Context) error {
	if !q.cfg.Work {
		return nil
	}
	q.startMu.Lock()
	defer q.startMu.Unlock()
	if q.stopped {
		return errStopped
	}
	if err := q.client.Start(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	q.started = true
	return nil
}

// StartWhen starts the workers once ready is closed: a worker whose model
// still warms up takes no job, which would wait out the warm-up held here
// while other processes could run it. A start that fails is logged, and
// Working keeps saying so; Stop or the end of ctx before ready starts
// nothing.
func (q *Queue) StartWhen(ctx context.Context, ready <-chan struct{}) {
	if !q.cfg.Work {
		return
	}
	go func() {
		select {
		case <-ready:
		case <-ctx.Done():
			return
		case <-q.stopping:
			return
		}
		if err := q.Start(ctx); err != nil && !errors.Is(err, errStopped) {
			q.log.ErrorContext(ctx, "the queue's workers did not start", "err", err)
		}
	}()
}

var errStopped = errors.New("queue: stopped")

// Working is nil once the workers take jobs (always, for a queue that only
// enqueues): a worker's /readyz asks it.
func (q *Queue) Working(context.Context) error {
	if !q.cfg.Work {
		return nil
	}
	q.startMu.Lock()
	defer q.startMu.Unlock()
	if !q.started {
		return errors.New("not taking jobs yet")
	}
	return nil
}

// Stop stops taking jobs and waits for running ones until ctx ends; then it
// cancels them (they will be retried on the next start).
func (q *Queue) Stop(ctx context.Context) error {
	if !q.cfg.Work {
		return nil
	}
	q.startMu.Lock()
	started := q.started
	if !q.stopped {
		q.stopped = true
		close(q.stopping)
	}
	q.startMu.Unlock()
	if !started {
		return nil
	}
	err := q.client.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return q.client.StopAndCancel(cctx)
	}
	return err
}

// Running is how many runs execute now in this process.
func (q *Queue) Running() int { return int(q.running.Load()) }

// Depth is how many jobs are queued or running, in every process.
func (q *Queue) Depth(ctx context.Context) (int, error) {
	n, _, err := q.store.CountActiveJobs(ctx, 0)
	return n, err
}

func (q *Queue) admission() showroom.Admission {
	share := q.cfg.CompanyShare
	if share == 0 {
		share = max(q.cfg.MaxQueued/2, 1)
	}
	return showroom.Admission{MaxQueued: q.cfg.MaxQueued, CompanyShare: share}
}

// companyWorkers is the cap on one company's running jobs.
func (q *Queue) companyWorkers() int {
	if q.cfg.CompanyWorkers > 0 {
		return q.cfg.CompanyWorkers
	}
	return max(q.cfg.Workers-1, 1)
}

func newJobID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// Submit stores the photo and a job for it, which the store enqueues in the
// same transaction. A full queue, or a company that has its share of it
// already, answers SERVICE_OVERLOADED, a short balance
// INSUFFICIENT_CREDITS, both before any work.
func (q *Queue) Submit(ctx context.Context, s showroom.Submission) (*showroom.Job, error) {
	j := &showroom.Job{
		ID:            newJobID(),
		CompanyID:     s.Company.ID,
		Company:       s.Company.Name,
		CreatedBy:     s.User,
		Configuration: s.Name,
		Processors:    s.Processors,
		Cost:          s.Cost,
		Format:        s.Format,
		Quality:       s.Quality,
		CreatedAt:     time.Now().UTC().Truncate(time.Millisecond),
		CallbackURL:   s.CallbackURL,
	}
	j.InputKey = "jobs/" + j.ID + "/input"
	// A cheap look before storing the photo spares the disk under a flood;
	// CreateJob checks again, exactly, in its transaction.
	if all, own, err := q.store.CountActiveJobs(ctx, j.CompanyID); err != nil {
		return nil, err
	} else if err := q.admission().Admit(all, own); err != nil {
		return nil, err
	}
	if err := q.blobs.Put(ctx, j.InputKey, s.Photo); err != nil {
		return nil, err
	}
	if err := q.store.CreateJob(ctx, j, q.admission()); err != nil {
		q.blobs.Delete(context.WithoutCancel(ctx), j.InputKey)
		return nil, err
	}
	return j, nil
}
