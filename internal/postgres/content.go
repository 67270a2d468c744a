package postgres

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.ContentStore = (*DB)(nil)

// querier runs queries on the pool or in a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

const contentColumns = `t.company_id, c.name, t.name, t.type, t.media_type, t.width, t.height, t.size, t.sha256,
	t.blob_key, t.created_at, t.updated_at, t.created_by, t.updated_by`

func scanContent(row pgx.Row) (*showroom.Content, error) {
	var c showroom.Content
	if err := row.Scan(&c.CompanyID, &c.Company, &c.Name, &c.Type, &c.MediaType, &c.Width, &c.Height, &c.Size,
		&c.SHA256, &c.BlobKey, &c.CreatedAt, &c.UpdatedAt, &c.CreatedBy, &c.UpdatedBy); err != nil {
		return nil, err
	}
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return &c, nil
}

func findContent(ctx context.Context, q querier, companyID int64, name string, lock string) (*showroom.Content, error) {
	c, err := scanContent(q.QueryRow(ctx, `SELECT `+contentColumns+`
		FROM content t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = $1 AND t.name = $2`+lock, companyID, name))
	if err != nil {
		return nil, notFound(err, showroom.EContentNotFound, "no content named %q", name)
	}
	return c, nil
}

// PutContent implements showroom.ContentStore.
func (db *DB) PutContent(ctx context.Context, c *showroom.Content) (old *showroom.Content, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		// The insert takes the name if nobody has; otherwise the row, locked,
		// is the one replaced, so two uploads to one name never both create.
		tag, err := tx.Exec(ctx, `INSERT INTO content (company_id, name, type, media_type, width, height, size,
			sha256, blob_key, created_at, updated_at, created_by, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
			ON CONFLICT (company_id, name) DO NOTHING`,
			c.CompanyID, c.Name, c.Type, c.MediaType, c.Width, c.Height, c.Size, c.SHA256, c.BlobKey,
			c.CreatedAt, c.UpdatedAt, c.CreatedBy, c.UpdatedBy)
		if err != nil || tag.RowsAffected() == 1 {
			return err
		}
		if old, err = findContent(ctx, tx, c.CompanyID, c.Name, ` FOR UPDATE OF t`); err != nil {
			return err
		}
		c.CreatedAt, c.CreatedBy = old.CreatedAt, old.CreatedBy
		_, err = tx.Exec(ctx, `UPDATE content SET type = $1, media_type = $2, width = $3, height = $4, size = $5,
			sha256 = $6, blob_key = $7, updated_at = $8, updated_by = $9 WHERE company_id = $10 AND name = $11`,
			c.Type, c.MediaType, c.Width, c.Height, c.Size, c.SHA256, c.BlobKey, c.UpdatedAt, c.UpdatedBy,
			c.CompanyID, c.Name)
		return err
	})
	if err != nil {
		return nil, err
	}
	if c.Company == "" {
		db.pool.QueryRow(ctx, `SELECT name FROM companies WHERE id = $1`, c.CompanyID).Scan(&c.Company)
	}
	return old, nil
}

// FindContent implements showroom.ContentStore.
func (db *DB) FindContent(ctx context.Context, companyID int64, name string) (*showroom.Content, error) {
	return findContent(ctx, db.pool, companyID, name, "")
}

// ListContent implements showroom.ContentStore.
func (db *DB) ListContent(ctx context.Context, companyID int64) ([]*showroom.Content, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+contentColumns+`
		FROM content t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = $1 ORDER BY t.name COLLATE "C"`, companyID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*showroom.Content{}
	for rows.Next() {
		c, err := scanContent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DeleteContent implements showroom.ContentStore.
func (db *DB) DeleteContent(ctx context.Context, companyID int64, name string) (c *showroom.Content, err error) {
	err = db.tx(ctx, func(tx pgx.Tx) error {
		// Locked, the row cannot gain a configuration between the check and
		// the delete (PutConfiguration locks the content it refers to).
		c, err = findContent(ctx, tx, companyID, name, ` FOR UPDATE OF t`)
		if err != nil {
			return err
		}
		users, err := names(ctx, tx, `SELECT configuration FROM configuration_content
			WHERE company_id = $1 AND content = $2 ORDER BY configuration COLLATE "C"`, companyID, name)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return showroom.Errorf(showroom.EContentInUse,
				"content %q is used by the configuration(s) %s; change or delete them first", name, strings.Join(users, ", "))
		}
		_, err = tx.Exec(ctx, `DELETE FROM content WHERE company_id = $1 AND name = $2`, companyID, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// names runs a query of one text column and returns its values.
func names(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
