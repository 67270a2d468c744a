package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.ContentStore = (*DB)(nil)

const contentColumns = `t.company_id, c.name, t.name, t.type, t.media_type, t.width, t.height, t.size, t.sha256,
	t.blob_key, t.created_at, t.updated_at, t.created_by, t.updated_by`

func scanContent(row scanner) (*showroom.Content, error) {
	var c showroom.Content
	var created, updated int64
	if err := row.Scan(&c.CompanyID, &c.Company, &c.Name, &c.Type, &c.MediaType, &c.Width, &c.Height, &c.Size,
		&c.SHA256, &c.BlobKey, &created, &updated, &c.CreatedBy, &c.UpdatedBy); err != nil {
		return nil, err
	}
	c.CreatedAt, c.UpdatedAt = fromMS(created), fromMS(updated)
	return &c, nil
}

func findContent(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}, companyID int64, name string) (*showroom.Content, error) {
	c, err := scanContent(q.QueryRowContext(ctx, `SELECT `+contentColumns+`
		FROM content t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = ? AND t.name = ?`, companyID, name))
	if err != nil {
		return nil, notFound(err, showroom.EContentNotFound, "no content named %q", name)
	}
	return c, nil
}

// PutContent implements showroom.ContentStore.
func (db *DB) PutContent(ctx context.Context, c *showroom.Content) (old *showroom.Content, err error) {
	err = db.tx(ctx, func(tx *sql.Tx) error {
		old, err = findContent(ctx, tx, c.CompanyID, c.Name)
		if showroom.ErrorCode(err) == showroom.EContentNotFound {
			old = nil
			_, err = tx.ExecContext(ctx, `INSERT INTO content (company_id, name, type, media_type, width, height, size,
				sha256, blob_key, created_at, updated_at, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				c.CompanyID, c.Name, c.Type, c.MediaType, c.Width, c.Height, c.Size, c.SHA256, c.BlobKey,
				ms(c.CreatedAt), ms(c.UpdatedAt), c.CreatedBy, c.UpdatedBy)
			return err
		} else if err != nil {
			return err
		}
		c.CreatedAt, c.CreatedBy = old.CreatedAt, old.CreatedBy
		_, err = tx.ExecContext(ctx, `UPDATE content SET type = ?, media_type = ?, width = ?, height = ?, size = ?,
			sha256 = ?, blob_key = ?, updated_at = ?, updated_by = ? WHERE company_id = ? AND name = ?`,
			c.Type, c.MediaType, c.Width, c.Height, c.Size, c.SHA256, c.BlobKey, ms(c.UpdatedAt), c.UpdatedBy,
			c.CompanyID, c.Name)
		return err
	})
	if err != nil {
		return nil, err
	}
	if c.Company == "" {
		db.db.QueryRowContext(ctx, `SELECT name FROM companies WHERE id = ?`, c.CompanyID).Scan(&c.Company)
	}
	return old, nil
}

// FindContent implements showroom.ContentStore.
func (db *DB) FindContent(ctx context.Context, companyID int64, name string) (*showroom.Content, error) {
	return findContent(ctx, preparedRows{db}, companyID, name)
}

// preparedRows runs single-row queries on db through prepared statements,
// for helpers that run either inside a transaction or outside one.
type preparedRows struct{ db *DB }

func (p preparedRows) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return p.db.queryRow(ctx, query, args...)
}

// ListContent implements showroom.ContentStore.
func (db *DB) ListContent(ctx context.Context, companyID int64) ([]*showroom.Content, error) {
	rows, err := db.query(ctx, `SELECT `+contentColumns+`
		FROM content t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = ? ORDER BY t.name`, companyID)
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
	err = db.tx(ctx, func(tx *sql.Tx) error {
		c, err = findContent(ctx, tx, companyID, name)
		if err != nil {
			return err
		}
		users, err := configurationsUsing(ctx, tx, companyID, name)
		if err != nil {
			return err
		}
		if len(users) > 0 {
			return showroom.Errorf(showroom.EContentInUse,
				"content %q is used by the configuration(s) %s; change or delete them first", name, strings.Join(users, ", "))
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM content WHERE company_id = ? AND name = ?`, companyID, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func configurationsUsing(ctx context.Context, tx *sql.Tx, companyID int64, content string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT configuration FROM configuration_content
		WHERE company_id = ? AND content = ? ORDER BY configuration`, companyID, content)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}
