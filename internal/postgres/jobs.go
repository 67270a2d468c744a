package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.JobStore = (*DB)(nil)

// admissionLock is the advisory lock CreateJob holds while it counts and
// inserts: submissions from every api process take their turn, so that
// none of them admits beyond the limits or gives two jobs the same place.
const admissionLock = 0x6a6f6273 // "jobs"

// CreateJob implements showroom.JobStore.
func (db *DB) CreateJob(ctx context.Context, j *showroom.Job, limits showroom.Admission) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, admissionLock); err != nil {
			return err
		}
		var all, own, waiting int
		if err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE company_id = $1),
			coalesce(max(priority) FILTER (WHERE company_id = $1 AND status = 'queued'), 0)
			FROM jobs WHERE status IN ('queued', 'running')`, j.CompanyID).Scan(&all, &own, &waiting); err != nil {
			return err
		}
		if err := limits.Admit(all, own); err != nil {
			return err
		}
		var credits *int64
		if err := tx.QueryRow(ctx, `SELECT credits FROM companies WHERE id = $1`, j.CompanyID).Scan(&credits); err != nil {
			return notFound(err, showroom.ENotFound, "company not found")
		}
		if credits != nil && *credits < j.Cost {
			return showroom.InsufficientCredits(j.Cost, *credits)
		}
		j.Status = showroom.JobQueued
		j.Priority = showroom.JobPriority(own, waiting)
		j.Delivery = nil
		var hook showroom.DeliveryStatus
		if j.CallbackURL != "" {
			j.Delivery = &showroom.WebhookDelivery{Status: showroom.DeliveryPending}
			hook = j.Delivery.Status
		}
		_, err := tx.Exec(ctx, `INSERT INTO jobs (id, company_id, created_by, configuration, processors, cost, format, quality,
			status, priority, input_key, created_at, callback_url, webhook_status)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
			j.ID, j.CompanyID, j.CreatedBy, j.Configuration, string(j.Processors), j.Cost, j.Format, j.Quality,
			j.Status, j.Priority, j.InputKey, j.CreatedAt, j.CallbackURL, hook)
		if isUnique(err) {
			return showroom.Errorf(showroom.EConflict, "job %s exists", j.ID)
		} else if err != nil {
			return err
		}
		return db.enqueue.Enqueue(ctx, tx, j)
	})
}

const jobColumns = `j.id, j.company_id, c.name, j.created_by, j.configuration, j.processors::text, j.cost, j.format, j.quality,
	j.status, j.priority, j.attempts, j.input_key, j.result_key, j.result_type, j.result_size, j.error_code, j.error_message,
	j.timings::text, j.warnings::text, j.created_at, j.started_at, j.finished_at,
	j.callback_url, j.webhook_status, j.webhook_attempts, j.webhook_status_code, j.webhook_error, j.webhook_attempted_at`

func scanJob(row pgx.Row) (*showroom.Job, error) {
	var j showroom.Job
	var processors, errCode, errMsg, timings, warnings string
	var started, finished, attempted *time.Time
	var d showroom.WebhookDelivery
	if err := row.Scan(&j.ID, &j.CompanyID, &j.Company, &j.CreatedBy, &j.Configuration, &processors, &j.Cost, &j.Format, &j.Quality,
		&j.Status, &j.Priority, &j.Attempts, &j.InputKey, &j.ResultKey, &j.ResultType, &j.ResultSize, &errCode, &errMsg,
		&timings, &warnings, &j.CreatedAt, &started, &finished,
		&j.CallbackURL, &d.Status, &d.Attempts, &d.LastStatusCode, &d.LastError, &attempted); err != nil {
		return nil, err
	}
	if j.CallbackURL != "" {
		d.LastAttemptAt = fromNull(attempted)
		j.Delivery = &d
	}
	j.Processors = json.RawMessage(processors)
	if errCode != "" {
		j.Error = &showroom.JobError{Code: errCode, Message: errMsg}
	}
	j.Timings = showroom.ParseTimings(timings)
	j.Warnings = showroom.ParseWarnings(warnings)
	j.CreatedAt, j.StartedAt, j.FinishedAt = j.CreatedAt.UTC(), fromNull(started), fromNull(finished)
	return &j, nil
}

func findJob(ctx context.Context, q querier, id string) (*showroom.Job, error) {
	j, err := scanJob(q.QueryRow(ctx, `SELECT `+jobColumns+` FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.id = $1`, id))
	if err != nil {
		return nil, notFound(err, showroom.EJobNotFound, "job %s not found", id)
	}
	return j, nil
}

// FindJob implements showroom.JobStore. Another company's job is not found.
func (db *DB) FindJob(ctx context.Context, companyID int64, id string) (*showroom.Job, error) {
	j, err := findJob(ctx, db.pool, id)
	if err != nil {
		return nil, err
	}
	if companyID != 0 && j.CompanyID != companyID {
		return nil, showroom.Errorf(showroom.EJobNotFound, "job %s not found", id)
	}
	return j, nil
}

// ListJobs implements showroom.JobStore.
func (db *DB) ListJobs(ctx context.Context, companyID int64, after string, limit int) ([]*showroom.Job, error) {
	q := `SELECT ` + jobColumns + ` FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.company_id = $1`
	args := []any{companyID, limit}
	if after != "" {
		cursor, err := db.FindJob(ctx, companyID, after)
		if err != nil {
			return nil, err
		}
		q += ` AND (j.created_at, j.id) < ($3, $4)`
		args = append(args, cursor.CreatedAt, cursor.ID)
	}
	q += ` ORDER BY j.created_at DESC, j.id DESC LIMIT $2`
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (*showroom.Job, error) { return scanJob(row) })
}

// StartJob implements showroom.JobStore.
func (db *DB) StartJob(ctx context.Context, id string, at time.Time, maxRunning int) (*showroom.Job, error) {
	var j *showroom.Job
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if maxRunning > 0 {
			// Starts of one company's jobs take their turn on its row, so
			// that two workers never both see it under its cap; the
			// UPDATE's own snapshot, taken after the lock, counts the
			// other's start.
			if _, err := tx.Exec(ctx, `SELECT 1 FROM companies WHERE id = (SELECT company_id FROM jobs WHERE id = $1) FOR UPDATE`, id); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = $1
			WHERE id = $2 AND (status = 'running' OR status = 'queued' AND ($3 <= 0 OR
				(SELECT count(*) FROM jobs r WHERE r.company_id = jobs.company_id AND r.status = 'running') < $3))`,
			at, id, maxRunning); err != nil {
			return err
		}
		var err error
		j, err = findJob(ctx, tx, id)
		return err
	})
	return j, err
}

// RequeueJob implements showroom.JobStore.
func (db *DB) RequeueJob(ctx context.Context, id string) error {
	_, err := db.pool.Exec(ctx, `UPDATE jobs SET status = 'queued', attempts = greatest(attempts - 1, 0), started_at = NULL
		WHERE id = $1 AND status = 'running'`, id)
	return err
}

// SucceedJob implements showroom.JobStore.
func (db *DB) SucceedJob(ctx context.Context, j *showroom.Job) (finished bool, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		// The row stays locked to the end: two workers finishing the same
		// job (one of them rescued) record and charge it once.
		var status, callback string
		if err := tx.QueryRow(ctx, `SELECT status, callback_url FROM jobs WHERE id = $1 FOR UPDATE`, j.ID).Scan(&status, &callback); err != nil {
			return notFound(err, showroom.EJobNotFound, "job %s not found", j.ID)
		}
		if status == string(showroom.JobSucceeded) || status == string(showroom.JobFailed) {
			return nil // finished before: nothing to record, charge or count again
		}
		if j.Cost > 0 {
			// Charge only a finite balance that covers the cost; NULL is
			// unlimited and stays NULL.
			tag, err := tx.Exec(ctx, `UPDATE companies SET credits = credits - $1 WHERE id = $2 AND credits >= $1`, j.Cost, j.CompanyID)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				var credits *int64
				if err := tx.QueryRow(ctx, `SELECT credits FROM companies WHERE id = $1`, j.CompanyID).Scan(&credits); err != nil {
					return err
				}
				if credits != nil { // finite and short: the balance fell while the job ran
					var err error
					finished, err = db.failJobTx(ctx, tx, j.ID, &showroom.JobError{Code: showroom.EInsufficientCredits,
						Message: "the balance no longer covers this configuration's cost"}, j.Timings, j.FinishedAt)
					return err
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO credit_charges (job_id, company_id, configuration, amount, created_at)
				VALUES ($1, $2, $3, $4, $5)`, j.ID, j.CompanyID, j.Configuration, j.Cost, j.FinishedAt); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE jobs SET status = 'succeeded', result_key = $1, result_type = $2, result_size = $3,
			timings = $4, warnings = $5, finished_at = $6, error_code = '', error_message = '' WHERE id = $7`,
			j.ResultKey, j.ResultType, j.ResultSize, showroom.TimingsJSON(j.Timings), showroom.WarningsJSON(j.Warnings), j.FinishedAt, j.ID); err != nil {
			return err
		}
		finished = true
		if callback != "" {
			return db.enqueue.EnqueueDelivery(ctx, tx, j.ID)
		}
		return nil
	})
	return finished && err == nil, err
}

// FailJob implements showroom.JobStore.
func (db *DB) FailJob(ctx context.Context, id string, jerr *showroom.JobError, timings []showroom.Timing, at time.Time) (finished bool, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		var err error
		finished, err = db.failJobTx(ctx, tx, id, jerr, timings, at)
		return err
	})
	return finished && err == nil, err
}

func (db *DB) failJobTx(ctx context.Context, tx pgx.Tx, id string, jerr *showroom.JobError, timings []showroom.Timing, at time.Time) (finished bool, err error) {
	var callback string
	err = tx.QueryRow(ctx, `UPDATE jobs SET status = 'failed', error_code = $1, error_message = $2, timings = $3, finished_at = $4
		WHERE id = $5 AND status IN ('queued', 'running') RETURNING callback_url`,
		jerr.Code, jerr.Message, showroom.TimingsJSON(timings), at, id).Scan(&callback)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return false, nil // finished before, or no such job
	case err != nil:
		return false, err
	case callback != "":
		return true, db.enqueue.EnqueueDelivery(ctx, tx, id)
	}
	return true, nil
}

// CountActiveJobs implements showroom.JobStore.
func (db *DB) CountActiveJobs(ctx context.Context, companyID int64) (all, company int, err error) {
	err = db.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE company_id = $1)
		FROM jobs WHERE status IN ('queued', 'running')`, companyID).Scan(&all, &company)
	return all, company, err
}

// DeleteJobsFinishedBefore implements showroom.JobStore.
func (db *DB) DeleteJobsFinishedBefore(ctx context.Context, t time.Time, limit int) ([]string, error) {
	rows, err := db.pool.Query(ctx, `DELETE FROM jobs WHERE id IN (
		SELECT id FROM jobs WHERE finished_at < $1 LIMIT $2) RETURNING input_key, result_key`, t, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		var in, out string
		if err := rows.Scan(&in, &out); err != nil {
			return nil, err
		}
		for _, k := range []string{in, out} {
			if k != "" {
				keys = append(keys, k)
			}
		}
	}
	return keys, rows.Err()
}

// SetCredits implements showroom.JobStore.
func (db *DB) SetCredits(ctx context.Context, companyID int64, balance *int64) error {
	tag, err := db.pool.Exec(ctx, `UPDATE companies SET credits = $1 WHERE id = $2`, balance, companyID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return showroom.Errorf(showroom.ENotFound, "company not found")
	}
	return nil
}

// AddCredits implements showroom.JobStore.
func (db *DB) AddCredits(ctx context.Context, companyID int64, n int64) error {
	return db.tx(ctx, func(tx pgx.Tx) error {
		var credits *int64
		if err := tx.QueryRow(ctx, `SELECT credits FROM companies WHERE id = $1 FOR UPDATE`, companyID).Scan(&credits); err != nil {
			return notFound(err, showroom.ENotFound, "company not found")
		}
		if credits == nil {
			return showroom.Errorf(showroom.EConflict, "the company's credits are unlimited; set a balance first")
		}
		if *credits+n < 0 {
			return showroom.Errorf(showroom.EConflict, "the balance would fall below zero")
		}
		_, err := tx.Exec(ctx, `UPDATE companies SET credits = credits + $1 WHERE id = $2`, n, companyID)
		return err
	})
}

// Usage implements showroom.JobStore.
func (db *DB) Usage(ctx context.Context, companyID int64, recent int) (*showroom.Usage, error) {
	var credits *int64
	if err := db.pool.QueryRow(ctx, `SELECT credits FROM companies WHERE id = $1`, companyID).Scan(&credits); err != nil {
		return nil, notFound(err, showroom.ENotFound, "company not found")
	}
	u := &showroom.Usage{Unlimited: credits == nil, Charges: []showroom.Charge{}}
	if credits != nil {
		u.Balance = *credits
	}
	rows, err := db.pool.Query(ctx, `SELECT job_id, configuration, amount, created_at FROM credit_charges
		WHERE company_id = $1 ORDER BY created_at DESC, job_id DESC LIMIT $2`, companyID, recent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c showroom.Charge
		if err := rows.Scan(&c.JobID, &c.Configuration, &c.Amount, &c.CreatedAt); err != nil {
			return nil, err
		}
		c.CreatedAt = c.CreatedAt.UTC()
		u.Charges = append(u.Charges, c)
	}
	return u, rows.Err()
}
