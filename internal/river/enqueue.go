package river

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/showroom/showroom/internal/showroom"
)

// processArgs is a processing job's River row: the Showroom job it runs.
type processArgs struct {
	JobID string `json:"job_id"`
}

func (processArgs) Kind() string { return "showroom_process" }

// riverAttempts is how many attempts River allows a processing job. The
// worker, not River, decides when a job has failed for good (after
// Config.MaxAttempts runs, or on the attempt after a run that never
// reported back: processWorker.Work), so River's bound only has to lie
// beyond any MaxAttempts: it is there for an attempt that cannot even
// record its failure, say while the database is away.
const riverAttempts = 25

// Enqueuer puts processing jobs into River's tables inside a store's own
// transaction: a store calls Enqueue where it admits a job, so that the
// job's record and River's row commit, or roll back, together. TTx is the
// transaction type of River's driver for the store's database (*sql.Tx
// with riversqlite, pgx.Tx with riverpgxv5).
type Enqueuer[TTx any] struct {
	client *river.Client[TTx]
}

// NewEnqueuer returns an Enqueuer on driver. Its River client only inserts:
// it has no workers and never fetches.
func NewEnqueuer[TTx any](driver riverdriver.Driver[TTx]) (*Enqueuer[TTx], error) {
	c, err := river.NewClient(driver, &river.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, fmt.Errorf("river client: %w", err)
	}
	return &Enqueuer[TTx]{client: c}, nil
}

// Enqueue inserts j's River job in tx. Its River priority is the job's
// place in the fair order between companies (showroom.JobPriority): River
// takes available jobs by priority before age, on SQLite and PostgreSQL
// alike, so a company's first job overtakes another's backlog.
func (e *Enqueuer[TTx]) Enqueue(ctx context.Context, tx TTx, j *showroom.Job) error {
	_, err := e.client.InsertTx(ctx, tx, processArgs{JobID: j.ID},
		&river.InsertOpts{Priority: j.Priority, MaxAttempts: riverAttempts})
	return err
}

// deliverArgs is a webhook delivery's River row: the Showroom job whose
// record it POSTs.
type deliverArgs struct {
	JobID string `json:"job_id"`
}

func (deliverArgs) Kind() string { return "showroom_webhook" }

// webhookQueue is the River queue deliveries run in, apart from the
// processing jobs: a receiver that is slow to answer holds a delivery
// worker, never a photo's.
const webhookQueue = "webhooks"

// EnqueueDelivery inserts, in tx, the delivery of job id's webhook: a store
// calls it where it finishes a job that has a callback URL, so that a
// finished job's delivery is never lost to a crash between the two. As for
// processing, River's bound on attempts lies beyond the queue's own
// (webhook.Config.MaxAttempts), which the delivery worker applies.
func (e *Enqueuer[TTx]) EnqueueDelivery(ctx context.Context, tx TTx, id string) error {
	_, err := e.client.InsertTx(ctx, tx, deliverArgs{JobID: id},
		&river.InsertOpts{Queue: webhookQueue, MaxAttempts: riverAttempts})
	return err
}

// KnownMigrations returns the versions of River's migrations this build
// knows (those Migrate applies), for a store to compare with the versions
// in its river_migration table (showroom.CheckMigrations). The store reads
// the table itself: River's own reader fails on a version it does not know,
// which is what a newer build leaves.
func KnownMigrations[TTx any](driver riverdriver.Driver[TTx]) ([]int, error) {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return nil, err
	}
	var known []int
	for _, v := range m.AllVersions() {
		known = append(known, v.Version)
	}
	return known, nil
}

// Migrate applies River's own migrations on driver's database. Stores run
// it in their migrate step, after their own migrations, so that one step
// readies the database for the service and its queue.
func Migrate[TTx any](ctx context.Context, driver riverdriver.Driver[TTx]) error {
	m, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	return nil
}
