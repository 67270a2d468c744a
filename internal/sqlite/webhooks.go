package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.WebhookStore = (*DB)(nil)

func findWebhook(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, companyID int64) (*showroom.Webhook, error) {
	w := showroom.Webhook{CompanyID: companyID}
	var secretAt, prevExpires, created, updated int64
	err := q.QueryRowContext(ctx, `SELECT url, secret, secret_created_at, previous_secret, previous_expires_at, created_at, updated_at
		FROM webhooks WHERE company_id = ?`, companyID).Scan(&w.URL, &w.Secret, &secretAt, &w.PreviousSecret, &prevExpires, &created, &updated)
	if err != nil {
		return nil, notFound(err, showroom.EWebhookNotFound, "the company has no webhook")
	}
	w.SecretCreatedAt, w.PreviousExpiresAt = fromMS(secretAt), fromMS(prevExpires)
	w.CreatedAt, w.UpdatedAt = fromMS(created), fromMS(updated)
	return &w, nil
}

// FindWebhook implements showroom.WebhookStore.
func (db *DB) FindWebhook(ctx context.Context, companyID int64) (*showroom.Webhook, error) {
	return findWebhook(ctx, db.db, companyID)
}

// PutWebhook implements showroom.WebhookStore.
func (db *DB) PutWebhook(ctx context.Context, w *showroom.Webhook) (created bool, err error) {
	err = db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET url = ?, updated_at = ? WHERE company_id = ?`,
			w.URL, ms(w.UpdatedAt), w.CompanyID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			created = true
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhooks (company_id, url, secret, secret_created_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?)`, w.CompanyID, w.URL, w.Secret, ms(w.UpdatedAt), ms(w.UpdatedAt), ms(w.UpdatedAt)); err != nil {
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
	err = db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET previous_secret = secret, previous_expires_at = ?,
			secret = ?, secret_created_at = ?, updated_at = ? WHERE company_id = ?`,
			ms(at.Add(showroom.WebhookSecretGrace)), secret, ms(at), ms(at), companyID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			created = true
			if _, err := tx.ExecContext(ctx, `INSERT INTO webhooks (company_id, secret, secret_created_at, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?)`, companyID, secret, ms(at), ms(at), ms(at)); err != nil {
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
	res, err := db.db.ExecContext(ctx, `DELETE FROM webhooks WHERE company_id = ?`, companyID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return showroom.Errorf(showroom.EWebhookNotFound, "the company has no webhook")
	}
	return nil
}

// RecordWebhookDelivery implements showroom.WebhookStore.
func (db *DB) RecordWebhookDelivery(ctx context.Context, id string, d showroom.WebhookDelivery) error {
	res, err := db.db.ExecContext(ctx, `UPDATE jobs SET webhook_status = ?, webhook_attempts = ?, webhook_status_code = ?,
		webhook_error = ?, webhook_attempted_at = ?
		WHERE id = ? AND callback_url != '' AND webhook_status = 'pending' AND webhook_attempts <= ?`,
		d.Status, d.Attempts, d.LastStatusCode, d.LastError, ms(d.LastAttemptAt), id, d.Attempts)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	var one int
	err = db.db.QueryRowContext(ctx, `SELECT 1 FROM jobs WHERE id = ? AND callback_url != ''`, id).Scan(&one)
	return notFound(err, showroom.EJobNotFound, "job %s with a callback not found", id)
}
