package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
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

const configColumns = `t.company_id, c.name, t.name, t.type, t.processors::text, t.cost, t.ui::text,
	t.created_at, t.updated_at, t.created_by, t.updated_by`

func scanConfiguration(row pgx.Row) (*showroom.Configuration, error) {
	var c showroom.Configuration
	var processors, ui string
	if err := row.Scan(&c.CompanyID, &c.Company, &c.Name, &c.Type, &processors, &c.Cost, &ui,
		&c.CreatedAt, &c.UpdatedAt, &c.CreatedBy, &c.UpdatedBy); err != nil {
		return nil, err
	}
	c.Processors = json.RawMessage(processors)
	var s storedUI
	if err := json.Unmarshal([]byte(ui), &s); err != nil {
		return nil, fmt.Errorf("configuration %s: stored ui: %w", c.Name, err)
	}
	c.UI = showroom.UIConfiguration{Thumbnail: s.Thumbnail, NameDescriptions: s.NameDescriptions}
	c.CreatedAt, c.UpdatedAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC()
	return &c, nil
}

// PutConfiguration implements showroom.ConfigurationStore.
func (db *DB) PutConfiguration(ctx context.Context, c *showroom.Configuration) (created bool, err error) {
	ui, err := json.Marshal(storedUI{Thumbnail: c.UI.Thumbnail, NameDescriptions: c.UI.NameDescriptions})
	if err != nil {
		return false, err
	}
	err = db.tx(ctx, func(tx pgx.Tx) error {
		// The content is locked until the configuration refers to it, so
		// DeleteContent cannot remove it in between.
		for _, name := range c.ContentRefs {
			var found bool
			err := tx.QueryRow(ctx, `SELECT true FROM content WHERE company_id = $1 AND name = $2 FOR SHARE`,
				c.CompanyID, name).Scan(&found)
			if err != nil {
				return notFound(err, showroom.EContentNotFound, "no content named %q", name)
			}
		}
		// Insert, or on a taken name update and read back who created it;
		// xmax = 0 tells a fresh row from an updated one.
		err := tx.QueryRow(ctx, `INSERT INTO configurations AS t (company_id, name, type, processors, cost, ui,
			created_at, updated_at, created_by, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (company_id, name) DO UPDATE SET type = excluded.type, processors = excluded.processors,
				cost = excluded.cost, ui = excluded.ui, updated_at = excluded.updated_at, updated_by = excluded.updated_by
			RETURNING t.created_at, t.created_by, t.xmax = 0`,
			c.CompanyID, c.Name, c.Type, string(c.Processors), c.Cost, string(ui),
			c.CreatedAt, c.UpdatedAt, c.CreatedBy, c.UpdatedBy).Scan(&c.CreatedAt, &c.CreatedBy, &created)
		if err != nil {
			return err
		}
		c.CreatedAt = c.CreatedAt.UTC()
		if _, err := tx.Exec(ctx, `DELETE FROM configuration_content WHERE company_id = $1 AND configuration = $2`,
			c.CompanyID, c.Name); err != nil {
			return err
		}
		for _, name := range c.ContentRefs {
			if _, err := tx.Exec(ctx, `INSERT INTO configuration_content (company_id, configuration, content)
				VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`, c.CompanyID, c.Name, name); err != nil {
				return err
			}
		}
		return configurationsChanged(ctx, tx, c.CompanyID)
	})
	if err != nil {
		return false, err
	}
	if c.Company == "" {
		db.pool.QueryRow(ctx, `SELECT name FROM companies WHERE id = $1`, c.CompanyID).Scan(&c.Company)
	}
	return created, nil
}

// FindConfiguration implements showroom.ConfigurationStore.
func (db *DB) FindConfiguration(ctx context.Context, companyID int64, name string) (*showroom.Configuration, error) {
	c, err := scanConfiguration(db.pool.QueryRow(ctx, `SELECT `+configColumns+`
		FROM configurations t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = $1 AND t.name = $2`, companyID, name))
	if err != nil {
		return nil, notFound(err, showroom.EConfigNotFound, "no configuration named %q", name)
	}
	refs, err := names(ctx, db.pool, `SELECT content FROM configuration_content
		WHERE company_id = $1 AND configuration = $2 ORDER BY content COLLATE "C"`, companyID, name)
	if err != nil {
		return nil, err
	}
	if len(refs) > 0 {
		c.ContentRefs = refs
	}
	return c, nil
}

// ListConfigurations implements showroom.ConfigurationStore. The list is
// read on every GET /v1/configuration/ and changes seldom, so each company's
// is kept with the configurations_version it was read at, and read again
// only when the version has moved. Every write bumps the version in its own
// transaction, so a change made by any process is seen at once.
func (db *DB) ListConfigurations(ctx context.Context, companyID int64) ([]*showroom.Configuration, error) {
	// The version first, then the list: a list read after the version is
	// at least as new as it, never older.
	var version int64
	err := db.pool.QueryRow(ctx, `SELECT configurations_version FROM companies WHERE id = $1`, companyID).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
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
	rows, err := db.pool.Query(ctx, `SELECT `+configColumns+`
		FROM configurations t JOIN companies c ON c.id = t.company_id
		WHERE t.company_id = $1 ORDER BY t.name COLLATE "C"`, companyID)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*showroom.Configuration, error) { return scanConfiguration(row) })
	if err != nil {
		return nil, err
	}
	// The company's references in one query, not one per configuration.
	refs, err := db.pool.Query(ctx, `SELECT configuration, content FROM configuration_content
		WHERE company_id = $1 ORDER BY configuration, content COLLATE "C"`, companyID)
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
	return db.tx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM configurations WHERE company_id = $1 AND name = $2`, companyID, name)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return showroom.Errorf(showroom.EConfigNotFound, "no configuration named %q", name)
		}
		return configurationsChanged(ctx, tx, companyID)
	})
}

// configurationsChanged bumps the company's configurations_version, in the
// transaction that changes its configurations.
func configurationsChanged(ctx context.Context, tx pgx.Tx, companyID int64) error {
	_, err := tx.Exec(ctx, `UPDATE companies SET configurations_version = configurations_version + 1 WHERE id = $1`, companyID)
	return err
}
