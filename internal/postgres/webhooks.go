package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.WebhookStore = (*DB)(nil)

func findWebhook(ctx context.Context, q querier, companyID int64) (*showroom.Webhook, error) {
	w := showroom.Webhook{CompanyID: companyID}
	var prevExpires *time.Time
	err := q.QueryRow(ctx, `SELECT url, secret, secret_created_at, previous_secret, previous_expires_at, created_at, updated_at
		FROM webhooks WHERE company_id = $1`, companyID).Scan(&w.URL, &w.Secret, &w.SecretCreatedAt, &w.PreviousSecret, &prevExpires,
		&w.CreatedAt, &w.UpdatedAt)
	if err != nil {
		return nil, notFound(err, showroom.EWebhookNotFound, "the company has no webhook")
	}
	w.SecretCreatedAt, w.PreviousExpiresAt = w.SecretCreatedAt.UTC(), fromNull(prevExpires)
	w.CreatedAt, w.UpdatedAt = w.CreatedAt.UTC(), w.UpdatedAt.UTC()
	return &w, nil
}

// FindWebhook implements showroom.WebhookStore.
func (db *DB) FindWebhook(ctx context.Context, companyID int64) (*showroom.Webhook, error) {
	return findWebhook(ctx, db.pool, companyID)
}

// PutWebhook implements showroom.WebhookStore.
func (db *DB) PutWebhook(ctx context.Context, w *showroom.Webhook) (created bool, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		// The insert takes the row, or finds it taken: two first PUTs at
		// once create one webhook with one secret.
		tag, err := tx.Exec(ctx, `INSERT INTO webhooks (company_id, url, secret, secret_created_at, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $4, $4) ON CONFLICT (company_id) DO NOTHING`, w.CompanyID, w.URL, w.Secret, w.UpdatedAt)
		if err != nil {
			return err
		}
		created = tag.RowsAffected() == 1
		if !created {
			if _, err := tx.Exec(ctx, `UPDATE webhooks SET url = $1, updated_at = $2 WHERE company_id = $3`,
				w.URL, w.UpdatedAt, w.CompanyID); err != nil {
				return err
			}
		}
		stored, err := findWebhook(ctx, tx, w.CompanyID)
		if err == nil {
			*w = *stored
		}
		return err
	})
	return created, err
}

// RotateWebhookSecret implements showroom.WebhookStore.
func (db *DB) RotateWebhookSecret(ctx context.Context, companyID int64, secret string, at time.Time) (w *showroom.Webhook, created bool, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO webhooks (company_id, secret, secret_created_at, created_at, updated_at)
			VALUES ($1, $2, $3, $3, $3) ON CONFLICT (company_id) DO NOTHING`, companyID, secret, at)
		if err != nil {
			return err
		}
		created = tag.RowsAffected() == 1
		if !created {
			if _, err := tx.Exec(ctx, `UPDATE webhooks SET previous_secret = secret, previous_expires_at = $1,
				secret = $2, secret_created_at = $3, updated_at = $3 WHERE company_id = $4`,
				at.Add(showroom.WebhookSecretGrace), secret, at, companyID); err != nil {
				return err
			}
		}
		w, err = findWebhook(ctx, tx, companyID)
		return err
	})
	return w, created, err
}

// DeleteWebhook implements showroom.WebhookStore.
func (db *DB) DeleteWebhook(ctx context.Context, companyID int64) error {
	tag, err := db.pool.Exec(ctx, `DELETE FROM webhooks WHERE company_id = $1`, companyID)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return showroom.Errorf(showroom.EWebhookNotFound, "the company has no webhook")
	}
	return nil
}

// RecordWebhookDelivery implements showroom.WebhookStore.
func (db *DB) RecordWebhookDelivery(ctx context.Context, id string, d showroom.WebhookDelivery) error {
	var attempted *time.Time
	if !d.LastAttemptAt.IsZero() {
		attempted = &d.LastAttemptAt
	}
	tag, err := db.pool.Exec(ctx, `UPDATE jobs SET webhook_status = $1, webhook_attempts = $2, webhook_status_code = $3,
		webhook_error = $4, webhook_attempted_at = $5
		WHERE id = $6 AND callback_url != '' AND webhook_status = 'pending' AND webhook_attempts <= $2`,
		d.Status, d.Attempts, d.LastStatusCode, d.LastError, attempted, id)
	if err != nil {
		return err
	}
	if tag.RowsAffected() > 0 {
		return nil
	}
	var one int
	err = db.pool.QueryRow(ctx, `SELECT 1 FROM jobs WHERE id = $1 AND callback_url != ''`, id).Scan(&one)
	return notFound(err, showroom.EJobNotFound, "job %s with a callback not found", id)
}
