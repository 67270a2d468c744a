// Package postgres implements Showroom's storage interfaces on PostgreSQL
// (pgx v5, one connection pool), for the roles run as separate processes
// on many machines. Migrations are embedded and applied, with River's own,
// in one transaction by Migrate; limits that hold across processes (the
// queue's admission) are kept in the database, not in one process.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/storecache"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is a Showroom database on a PostgreSQL server.
type DB struct {
	pool *pgxpool.Pool
	// companies holds the companies found, by name (see FindCompany).
	companies sync.Map
	// configLists holds companies' configuration lists (see
	// ListConfigurations).
	configLists *storecache.ConfigLists
	// river is River's driver on the same pool, and enqueue inserts River's
	// row of each job CreateJob admits, in its transaction.
	river   *riverpgxv5.Driver
	enqueue *river.Enqueuer[pgx.Tx]
}

// Open connects to the database at url (postgres://user@host:port/name?...)
// and checks that it answers. It does not migrate: Migrate does, so that an
// operator may run migrations once, apart from the processes that serve.
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message repeats the URL, password included: say only what
		// is wrong with it.
		return nil, errors.New("postgres: the database URL cannot be parsed")
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: %s: %w", cfg.ConnConfig.Host, err)
	}
	db := &DB{pool: pool, configLists: storecache.NewConfigLists(), river: riverpgxv5.New(pool)}
	if db.enqueue, err = river.NewEnqueuer(db.river); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the pool.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.pool.Ping(ctx) }

// Pool returns the connection pool, for tests that look at the database
// beside the store.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// RiverDriver returns River's driver on the same pool, for the queue's
// workers.
func (db *DB) RiverDriver() *riverpgxv5.Driver { return db.river }

// migrationLock is the advisory lock Migrate holds: processes that start
// together migrate one after the other, and the later ones find nothing
// left to do.
const migrationLock = 0x73686f7772 // "showr"

// Migrate applies pending migrations: Showroom's, in one transaction, then
// River's (each in its own: some of River's add an enum value and use it,
// which PostgreSQL allows only in separate transactions).
func (db *DB) Migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrationLock)
	if err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return migrate(ctx, tx) }); err != nil {
		return err
	}
	return river.Migrate(ctx, db.river)
}

// migrate applies Showroom's pending migrations in tx.
func migrate(ctx context.Context, tx pgx.Tx) error {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at TIMESTAMPTZ NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// Two branches that each add a migration may pick the same number; the
	// later file would then never run on a database that has the earlier.
	seen := map[int]string{}
	for _, name := range names {
		base := path.Base(name)
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", base)
		}
		if other, dup := seen[version]; dup {
			return fmt.Errorf("migrations %s and %s have the same number", other, base)
		}
		seen[version] = base
		var applied bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM schema_migrations WHERE version = $1)`, version).Scan(&applied); err != nil {
			return err
		}
		if applied {
			continue
		}
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, string(body)); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
			version, base, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// CheckSchema compares the database's migrations, Showroom's and River's,
// with this build's: nil when they are the same, else the EUnavailable
// error of showroom.CheckMigrations (pending migrations, or a newer
// schema). Other errors mean it could not look. A role started with
// --migrate=false serves only once it is nil.
func (db *DB) CheckSchema(ctx context.Context) error {
	ours := showroom.MigrationSet{What: "showroom"}
	theirs := showroom.MigrationSet{What: "river"}
	var err error
	if ours.Known, err = showroom.MigrationVersions(migrationFS, "migrations/*.sql"); err != nil {
		return err
	}
	if ours.Applied, err = db.versions(ctx, "schema_migrations", `SELECT version FROM schema_migrations`); err != nil {
		return err
	}
	if theirs.Known, err = river.KnownMigrations(db.river); err != nil {
		return err
	}
	if theirs.Applied, err = db.versions(ctx, "river_migration", `SELECT version FROM river_migration WHERE line = 'main'`); err != nil {
		return err
	}
	return showroom.CheckSchema(ours, theirs)
}

// versions reads the applied migrations' versions from table with query:
// none when the table is not there yet.
func (db *DB) versions(ctx context.Context, table, query string) ([]int, error) {
	var exists bool
	if err := db.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&exists); err != nil || !exists {
		return nil, err
	}
	rows, err := db.pool.Query(ctx, query)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// tx runs fn in a transaction, committing if it returns nil.
func (db *DB) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, fn)
}

// isUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// notFound turns pgx.ErrNoRows into the domain's not-found error.
func notFound(err error, code, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return showroom.Errorf(code, format, args...)
	}
	return err
}

// fromNull reads a nullable time column: NULL is the zero time, others are
// in UTC as the domain keeps times.
func fromNull(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}
