package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/showroom/showroom/internal/showroom"
)

var _ showroom.ConfigurationStore = (*DB)(nil)

// storedUI is the stored part of a configuration's presentation data; the
// thumbnail's full path depends on the server's address and is made when a
// record is shown.
type storedUI struct {
	Thumbnail        string                              `json:"thumbnail"`
	NameDescriptions map[string]showroom.NameDescription `json:"nameDescriptions"`
}

const configColumns = `t.company_id, c.name, t.name, t.type, t.processors, t.cost, t.ui,
	t.created_at, t.updated_at, t.created_by, t.updated_by`

func scanConfiguration(row scanner) (*showroom.Configuration, error) {
	var c showroom.Configuration
	var processors, ui string
	var created, updated int64
	if err := row.Scan(&c.CompanyID, &c.Company, &c.Name, &c.Type, &processors, &c.Cost, &ui,
		&created, &updated, &c.CreatedBy, &c.UpdatedBy); err != nil {
		return nil, err
	}
	c.Processors = json.RawMessage(processors)
	var s storedUI
	if err := json.Unmarshal([]byte(ui), &s); err != nil {
		return nil, fmt.Errorf("configuration %s: stored ui: %w", c.Name, err)
	}
	c.UI = showroom.UIConfiguration{Thumbnail: s.Thumbnail, NameDescriptions: s.NameDescriptions}
	c.CreatedAt, c.UpdatedAt = fromMS(created), fromMS(updated)
	return &c, nil
}

// PutConfiguration implements showroom.ConfigurationStore.
func (db *DB) PutConfiguration(ctx context.Context, c *showroom.Configuration) (created bool, err error) {
	ui, err := json.Marshal(storedUI{Thumbnail: c.UI.Thumbnail, NameDescriptions: c.UI.NameDescriptions})
	if err != nil {
		return false, err
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		// The content check and the insert share the transaction, so content
		// cannot be deleted between them.
		for _, name := range c.ContentRefs {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM content WHERE company_id = ? AND name = ?`,
				c.CompanyID, name).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return showroom.Errorf(showroom.EContentNotFound, "no content named %q", name)
			}
		}
		var createdAt int64
		var createdBy string
		err := tx.QueryRowContext(ctx, `SELECT created_at, created_by FROM configurations WHERE company_id = ? AND name = ?`,
			c.CompanyID, c.Name).Scan(&createdAt, &createdBy)
		switch {
		case err == sql.ErrNoRows:
			created = true
			_, err = tx.ExecContext(ctx, `INSERT INTO configurations (company_id, name, type, processors, cost, ui,
				created_at, updated_at, created_by, updated_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				c.CompanyID, c.Name, c.Type, string(c.Processors), c.Cost, string(ui),
				ms(c.CreatedAt), ms(c.UpdatedAt), c.CreatedBy, c.UpdatedBy)
		case err != nil:
			return err
		default:
			created = false
			c.CreatedAt, c.CreatedBy = fromMS(createdAt), createdBy
			_, err = tx.ExecContext(ctx, `UPDATE configurations SET type = ?, processors = ?, cost = ?, ui = ?,
				updated_at = ?, updated_by = ? WHERE company_id = ? AND name = ?`,
				c.Type, string(c.Processors), c.Cost, string(ui), ms(c.UpdatedAt), c.UpdatedBy, c.CompanyID, c.Name)
		}
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM configuration_content WHERE company_id = ? AND configuration = ?`,
			c.CompanyID, c.Name); err != nil {
			return err
		}
		for _, name := range c.ContentRefs {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO configuration_content (company_id, configuration, content)
				VALUES (?, ?, ?)`, c.CompanyID, c.Name, name); err != nil {
				return err
			}
		}
		return configurationsChanged(ctx, tx, c.CompanyID)
	})
	if err != nil {
		return false, err
	}
	if c.Company == "" {
		db.db.QueryRowContext(ctx, `SELECT name FROM companies WHERE id = ?`, c.CompanyID).Scan(&c.Company)
	}
	return created, nil
}

// FindConfiguration implements showroom.ConfigurationStore.
func (db *DB) FindConfiguration(ctx context.Context, companyID int64, name string) (*showroom.Configuration, error) {
	c, err := scanConfiguration(db.queryRow(ctx, `SELECT `+configColumns+`
		FROM configurations t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = ? AND t.name = ?`, companyID, name))
	if err != nil {
		return nil, notFound(err, showroom.EConfigNotFound, "no configuration named %q", name)
	}
	if c.ContentRefs, err = db.contentRefs(ctx, companyID, name); err != nil {
		return nil, err
	}
	return c, nil
}

func (db *DB) contentRefs(ctx context.Context, companyID int64, name string) ([]string, error) {
	rows, err := db.query(ctx, `SELECT content FROM configuration_content
		WHERE company_id = ? AND configuration = ? ORDER BY content`, companyID, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var refs []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		refs = append(refs, n)
	}
	return refs, rows.Err()
}

// ListConfigurations implements showroom.ConfigurationStore. The list is
// read on every GET /v1/configuration/ and changes seldom, so each company's
// is kept with the configurations_version it was read at, and read again
// only when the version has moved: one lookup by key instead of two queries
// and a row each. Every write bumps the version in its own transaction, so a
// change made by any process is seen at once.
func (db *DB) ListConfigurations(ctx context.Context, companyID int64) ([]*showroom.Configuration, error) {
	// The version first, then the list: a list read after the version is
	// at least as new as it, never older.
	var version int64
	err := db.queryRow(ctx, `SELECT configurations_version FROM companies WHERE id = ?`, companyID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return db.readConfigurations(ctx, companyID)
	} else if err != nil {
		return nil, err
	}
	if list, ok := db.configLists.Get(companyID, version); ok {
		return list, nil
	}
	list, err := db.readConfigurations(ctx, companyID)
	if err == nil {
		db.configLists.Put(companyID, version, list)
	}
	return list, err
}

func (db *DB) readConfigurations(ctx context.Context, companyID int64) ([]*showroom.Configuration, error) {
	rows, err := db.query(ctx, `SELECT `+configColumns+`
		FROM configurations t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = ? ORDER BY t.name`, companyID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*showroom.Configuration{}
	for rows.Next() {
		c, err := scanConfiguration(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// The company's references in one query, not one per configuration.
	refs, err := db.query(ctx, `SELECT configuration, content FROM configuration_content
		WHERE company_id = ? ORDER BY configuration, content`, companyID)
	if err != nil {
		return nil, err
	}
	defer refs.Close()
	byName := make(map[string]*showroom.Configuration, len(out))
	for _, c := range out {
		byName[c.Name] = c
	}
	for refs.Next() {
		var config, content string
		if err := refs.Scan(&config, &content); err != nil {
			return nil, err
		}
		if c := byName[config]; c != nil {
			c.ContentRefs = append(c.ContentRefs, content)
		}
	}
	return out, refs.Err()
}

// DeleteConfiguration implements showroom.ConfigurationStore.
func (db *DB) DeleteConfiguration(ctx context.Context, companyID int64, name string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM configurations WHERE company_id = ? AND name = ?`, companyID, name)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return showroom.Errorf(showroom.EConfigNotFound, "no configuration named %q", name)
		}
		return configurationsChanged(ctx, tx, companyID)
	})
}

// configurationsChanged bumps the company's configurations_version, in the
// transaction that changes its configurations.
func configurationsChanged(ctx context.Context, tx *sql.Tx, companyID int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE companies SET configurations_version = configurations_version + 1 WHERE id = ?`, companyID)
	return err
}
