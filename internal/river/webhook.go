package river

import (
	"context"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/webhook"
)

// Webhooks is what deliveries need besides the queue's job store.
type Webhooks struct {
	// Store holds the companies' signing secrets and records deliveries.
	Store showroom.WebhookStore
	// Render is the job record as the API shows it, the body delivered.
	Render func(*showroom.Job) ([]byte, error)
}

// EnableWebhooks lets this process deliver webhooks (internal/webhook makes
// each attempt, by Config.Webhooks); call it before Start. Without it,
// deliveries wait (and are retried) for a process that can.
func (q *Queue) EnableWebhooks(w Webhooks) error {
	d, err := webhook.New(q.cfg.Webhooks, webhook.Deps{Jobs: q.store, Store: w.Store, Render: w.Render}, q.log)
	if err != nil {
		return err
	}
	q.hooks = d
	return nil
}

// deliverWorker runs a webhook delivery's attempts as River retries of its
// job.
type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	q *Queue
}

// NextRetry doubles the wait after each failed attempt.
func (w *deliverWorker) NextRetry(rj *river.Job[deliverArgs]) time.Time {
	return time.Now().Add(w.q.cfg.Webhooks.RetryDelay(rj.Attempt))
}

// Timeout leaves room for the attempt's own timeout, which ends it first.
func (w *deliverWorker) Timeout(*river.Job[deliverArgs]) time.Duration {
	return 2 * w.q.cfg.Webhooks.Timeout
}

func (w *deliverWorker) Work(ctx context.Context, rj *river.Job[deliverArgs]) error {
	if w.q.hooks == nil {
		return errors.New("webhooks are not enabled in this process")
	}
	err := w.q.hooks.Deliver(ctx, rj.Args.JobID, rj.Attempt)
	if webhook.Final(err) {
		return river.JobCancel(err)
	}
	return err
}
