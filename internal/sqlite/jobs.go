package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.JobStore = (*DB)(nil)

// CreateJob implements showroom.JobStore.
func (db *DB) CreateJob(ctx context.Context, j *showroom.Job, limits showroom.Admission) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		// The transaction holds SQLite's write lock from its start, so the
		// counts and the insert cannot interleave with another submission.
		var all, own, waiting int
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(company_id = ?), 0),
			coalesce(max(CASE WHEN company_id = ? AND status = 'queued' THEN priority END), 0)
			FROM jobs WHERE status IN ('queued', 'running')`, j.CompanyID, j.CompanyID).Scan(&all, &own, &waiting); err != nil {
			return err
		}
		if err := limits.Admit(all, own); err != nil {
			return err
		}
		var credits sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT credits FROM companies WHERE id = ?`, j.CompanyID).Scan(&credits); err != nil {
			return notFound(err, showroom.ENotFound, "company not found")
		}
		if credits.Valid && credits.Int64 < j.Cost {
			return showroom.InsufficientCredits(j.Cost, credits.Int64)
		}
		j.Status = showroom.JobQueued
		j.Priority = showroom.JobPriority(own, waiting)
		j.Delivery = nil
		var hook showroom.DeliveryStatus
		if j.CallbackURL != "" {
			j.Delivery = &showroom.WebhookDelivery{Status: showroom.DeliveryPending}
			hook = j.Delivery.Status
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO jobs (id, company_id, created_by, configuration, processors, cost, format, quality,
			status, priority, input_key, created_at, callback_url, webhook_status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			j.ID, j.CompanyID, j.CreatedBy, j.Configuration, string(j.Processors), j.Cost, j.Format, j.Quality,
			j.Status, j.Priority, j.InputKey, ms(j.CreatedAt), j.CallbackURL, hook)
		if isUnique(err) {
			return showroom.Errorf(showroom.EConflict, "job %s exists", j.ID)
		} else if err != nil {
			return err
		}
		return db.enqueue.Enqueue(ctx, tx, j)
	})
	if err == nil {
		// The job's River row is in: this process's workers look now.
		db.river.commits.fire()
	}
	return err
}

const jobColumns = `j.id, j.company_id, c.name, j.created_by, j.configuration, j.processors, j.cost, j.format, j.quality,
	j.status, j.priority, j.attempts, j.input_key, j.result_key, j.result_type, j.result_size, j.error_code, j.error_message,
	j.timings, j.warnings, j.created_at, j.started_at, j.finished_at,
	j.callback_url, j.webhook_status, j.webhook_attempts, j.webhook_status_code, j.webhook_error, j.webhook_attempted_at`

type scanner interface{ Scan(dest ...any) error }

func scanJob(row scanner) (*showroom.Job, error) {
	var j showroom.Job
	var processors, errCode, errMsg, timings, warnings string
	var created, started, finished, attempted int64
	var d showroom.WebhookDelivery
	if err := row.Scan(&j.ID, &j.CompanyID, &j.Company, &j.CreatedBy, &j.Configuration, &processors, &j.Cost, &j.Format, &j.Quality,
		&j.Status, &j.Priority, &j.Attempts, &j.InputKey, &j.ResultKey, &j.ResultType, &j.ResultSize, &errCode, &errMsg,
		&timings, &warnings, &created, &started, &finished,
		&j.CallbackURL, &d.Status, &d.Attempts, &d.LastStatusCode, &d.LastError, &attempted); err != nil {
		return nil, err
	}
	if j.CallbackURL != "" {
		d.LastAttemptAt = fromMS(attempted)
		j.Delivery = &d
	}
	j.Processors = json.RawMessage(processors)
	if errCode != "" {
		j.Error = &showroom.JobError{Code: errCode, Message: errMsg}
	}
	j.Timings = showroom.ParseTimings(timings)
	j.Warnings = showroom.ParseWarnings(warnings)
	j.CreatedAt, j.StartedAt, j.FinishedAt = fromMS(created), fromMS(started), fromMS(finished)
	return &j, nil
}

func findJob(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, id string) (*showroom.Job, error) {
	j, err := scanJob(q.QueryRowContext(ctx, `SELECT `+jobColumns+` FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.id = ?`, id))
	if err != nil {
		return nil, notFound(err, showroom.EJobNotFound, "job %s not found", id)
	}
	return j, nil
}

// FindJob implements showroom.JobStore. Another company's job is not found.
func (db *DB) FindJob(ctx context.Context, companyID int64, id string) (*showroom.Job, error) {
	j, err := findJob(ctx, db.db, id)
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
	q := `SELECT ` + jobColumns + ` FROM jobs j JOIN companies c ON c.id = j.company_id WHERE j.company_id = ?`
	args := []any{companyID}
	if after != "" {
		cursor, err := db.FindJob(ctx, companyID, after)
		if err != nil {
			return nil, err
		}
		q += ` AND (j.created_at < ? OR (j.created_at = ? AND j.id < ?))`
		args = append(args, ms(cursor.CreatedAt), ms(cursor.CreatedAt), cursor.ID)
	}
	q += ` ORDER BY j.created_at DESC, j.id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := db.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	jobs := []*showroom.Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// StartJob implements showroom.JobStore.
// The transaction holds SQLite's write lock, so the count of the company's
// running jobs and the start cannot interleave with another start.
func (db *DB) StartJob(ctx context.Context, id string, at time.Time, maxRunning int) (*showroom.Job, error) {
	var j *showroom.Job
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ?
			WHERE id = ? AND (status = 'running' OR status = 'queued' AND (? <= 0 OR
				(SELECT count(*) FROM jobs r WHERE r.company_id = jobs.company_id AND r.status = 'running') < ?))`,
			ms(at), id, maxRunning, maxRunning); err != nil {
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
	_, err := db.db.ExecContext(ctx, `UPDATE jobs SET status = 'queued', attempts = max(attempts - 1, 0), started_at = 0
		WHERE id = ? AND status = 'running'`, id)
	return err
}

// SucceedJob implements showroom.JobStore.
func (db *DB) SucceedJob(ctx context.Context, j *showroom.Job) (finished bool, err error) {
	err = db.tx(ctx, func(tx *sql.Tx) error {
		var status, callback string
		if err := tx.QueryRowContext(ctx, `SELECT status, callback_url FROM jobs WHERE id = ?`, j.ID).Scan(&status, &callback); err != nil {
			return notFound(err, showroom.EJobNotFound, "job %s not found", j.ID)
		}
		if status == string(showroom.JobSucceeded) || status == string(showroom.JobFailed) {
			return nil // finished before: nothing to record, charge or count again
		}
		if j.Cost > 0 {
			// Charge only a finite balance that covers the cost; NULL is
			// unlimited and stays NULL.
			res, err := tx.ExecContext(ctx, `UPDATE companies SET credits = credits - ? WHERE id = ? AND credits IS NOT NULL AND credits >= ?`,
				j.Cost, j.CompanyID, j.Cost)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				var credits sql.NullInt64
				if err := tx.QueryRowContext(ctx, `SELECT credits FROM companies WHERE id = ?`, j.CompanyID).Scan(&credits); err != nil {
					return err
				}
				if credits.Valid { // finite and short: the balance fell while the job ran
					var err error
					finished, err = db.failJobTx(ctx, tx, j.ID, &showroom.JobError{Code: showroom.EInsufficientCredits,
						Message: "the balance no longer covers this configuration's cost"}, j.Timings, j.FinishedAt)
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO credit_charges (job_id, company_id, configuration, amount, created_at)
				VALUES (?, ?, ?, ?, ?)`, j.ID, j.CompanyID, j.Configuration, j.Cost, ms(j.FinishedAt)); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET status = 'succeeded', result_key = ?, result_type = ?, result_size = ?,
			timings = ?, warnings = ?, finished_at = ?, error_code = '', error_message = '' WHERE id = ?`,
			j.ResultKey, j.ResultType, j.ResultSize, showroom.TimingsJSON(j.Timings), showroom.WarningsJSON(j.Warnings), ms(j.FinishedAt), j.ID); err != nil {
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
	err = db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		finished, err = db.failJobTx(ctx, tx, id, jerr, timings, at)
		return err
	})
	return finished && err == nil, err
}

func (db *DB) failJobTx(ctx context.Context, tx *sql.Tx, id string, jerr *showroom.JobError, timings []showroom.Timing, at time.Time) (finished bool, err error) {
	var callback string
	err = tx.QueryRowContext(ctx, `UPDATE jobs SET status = 'failed', error_code = ?, error_message = ?, timings = ?, finished_at = ?
		WHERE id = ? AND status IN ('queued', 'running') RETURNING callback_url`,
		jerr.Code, jerr.Message, showroom.TimingsJSON(timings), ms(at), id).Scan(&callback)
	switch {
	case errors.Is(err, sql.ErrNoRows):
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
	err = db.db.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(company_id = ?), 0)
		FROM jobs WHERE status IN ('queued', 'running')`, companyID).Scan(&all, &company)
	return all, company, err
}

// DeleteJobsFinishedBefore implements showroom.JobStore.
func (db *DB) DeleteJobsFinishedBefore(ctx context.Context, t time.Time, limit int) ([]string, error) {
	var keys []string
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `DELETE FROM jobs WHERE id IN (
			SELECT id FROM jobs WHERE finished_at != 0 AND finished_at < ? LIMIT ?) RETURNING input_key, result_key`, ms(t), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var in, out string
			if err := rows.Scan(&in, &out); err != nil {
				return err
			}
			for _, k := range []string{in, out} {
				if k != "" {
					keys = append(keys, k)
				}
			}
		}
		return rows.Err()
	})
	return keys, err
}

// SetCredits implements showroom.JobStore.
func (db *DB) SetCredits(ctx context.Context, companyID int64, balance *int64) error {
	var v any
	if balance != nil {
		v = *balance
	}
	res, err := db.db.ExecContext(ctx, `UPDATE companies SET credits = ? WHERE id = ?`, v, companyID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return showroom.Errorf(showroom.ENotFound, "company not found")
	}
	return nil
}

// AddCredits implements showroom.JobStore.
func (db *DB) AddCredits(ctx context.Context, companyID int64, n int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var credits sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT credits FROM companies WHERE id = ?`, companyID).Scan(&credits); err != nil {
			return notFound(err, showroom.ENotFound, "company not found")
		}
		if !credits.Valid {
			return showroom.Errorf(showroom.EConflict, "the company's credits are unlimited; set a balance first")
		}
		if credits.Int64+n < 0 {
			return showroom.Errorf(showroom.EConflict, "the balance would fall below zero")
		}
		_, err := tx.ExecContext(ctx, `UPDATE companies SET credits = credits + ? WHERE id = ?`, n, companyID)
		return err
	})
}

// Usage implements showroom.JobStore.
func (db *DB) Usage(ctx context.Context, companyID int64, recent int) (*showroom.Usage, error) {
	var credits sql.NullInt64
	if err := db.db.QueryRowContext(ctx, `SELECT credits FROM companies WHERE id = ?`, companyID).Scan(&credits); err != nil {
		return nil, notFound(err, showroom.ENotFound, "company not found")
	}
	u := &showroom.Usage{Unlimited: !credits.Valid, Balance: credits.Int64, Charges: []showroom.Charge{}}
	rows, err := db.db.QueryContext(ctx, `SELECT job_id, configuration, amount, created_at FROM credit_charges
		WHERE company_id = ? ORDER BY created_at DESC, job_id DESC LIMIT ?`, companyID, recent)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var c showroom.Charge
		var at int64
		if err := rows.Scan(&c.JobID, &c.Configuration, &c.Amount, &at); err != nil {
			return nil, err
		}
		c.CreatedAt = fromMS(at)
		u.Charges = append(u.Charges, c)
	}
	return u, rows.Err()
}
