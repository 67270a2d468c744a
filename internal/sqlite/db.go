// Package sqlite implements Showroom's storage interfaces on an embedded
// SQLite database (modernc.org/sqlite, no cgo). Migrations are embedded and
// each runs in its own transaction; times are stored as Unix milliseconds.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/storecache"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is a Showroom database in one SQLite file.
type DB struct {
	db handle
	// stmts holds the prepared form of the queries run outside
	// transactions on every request, by their text (see queryRow).
	stmts sync.Map
	// companies holds the companies found, by name (see FindCompany): as
	// many as the database has at most.
	companies sync.Map
	// configLists holds companies' configuration lists (see
	// ListConfigurations).
	configLists *storecache.ConfigLists
	// river is River's driver on the same file, and enqueue inserts River's
	// row of each job CreateJob admits, in its transaction.
	river   *RiverDriver
	enqueue *river.Enqueuer[*sql.Tx]
	// rates holds the rate limits' token buckets (see TakeRate).
	rates rateBuckets
}

// handle is the database handle with its writes' errors translated: a
// write that waited the whole busy timeout for another writer's lock (a
// backup, a long migration, a stuck process) fails as SERVICE_UNAVAILABLE,
// which the client may retry, not as an internal error. Reads need no
// lock in WAL mode.
type handle struct{ *sql.DB }

func (h handle) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	res, err := h.DB.ExecContext(ctx, query, args...)
	return res, unavailable(err)
}

func (h handle) BeginTx(ctx context.Context, opts *sql.TxOptions) (*sql.Tx, error) {
	tx, err := h.DB.BeginTx(ctx, opts)
	return tx, unavailable(err)
}

// unavailable turns SQLite's "database is locked" into SERVICE_UNAVAILABLE,
// and its "database or disk is full" too: a write that found no room is no
// fault of the request, and can succeed once space is freed.
func unavailable(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
			return &showroom.Error{Code: showroom.EUnavailable, Message: "the database is busy; try again shortly",
				RetryAfter: 5 * time.Second, Cause: err}
		case sqlite3.SQLITE_FULL:
			return &showroom.Error{Code: showroom.EUnavailable, Message: "the server is out of storage space; try again later",
				RetryAfter: time.Minute, Cause: err}
		}
	}
	return err
}

// busyTimeout is how long a write waits for another writer's lock.
const busyTimeout = 10 * time.Second

// maxIdleConns is how many open connections wait for the next query: as
// many as requests are commonly served at once (readers do not block each
// other in WAL mode), each holding at most SQLite's default page cache
// (2 MB) of a database that is mostly small records.
const maxIdleConns = 16

// Open opens (creating if needed) the database file at path and applies
// pending migrations, Showroom's and River's.
func Open(ctx context.Context, file string) (*DB, error) {
	return open(ctx, file, busyTimeout)
}

// open is Open with the busy timeout set, and pragmas added to each
// connection's (tests: a small max_page_count fills the file).
func open(ctx context.Context, file string, busy time.Duration, pragmas ...string) (*DB, error) {
	q := url.Values{}
	for _, p := range append([]string{
		"foreign_keys(1)",
		"journal_mode(WAL)",
		fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()),
		"synchronous(NORMAL)",
	}, pragmas...) {
		q.Add("_pragma", p)
	}
	// BEGIN IMMEDIATE takes the write lock up front, so two writers wait for
	// each other instead of failing when a read transaction upgrades.
	q.Set("_txlock", "immediate")
	sqldb, err := sql.Open("sqlite", "file:"+file+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	// database/sql keeps two idle connections by default: with more
	// requests at once, every query beyond them opened a connection (the
	// pragmas, the schema read again) and closed it after.
	sqldb.SetMaxIdleConns(maxIdleConns)
	db := &DB{db: handle{sqldb}, configLists: storecache.NewConfigLists(), river: newRiverDriver(riversqlite.New(sqldb))}
	if err := db.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, err
	}
	if err := river.Migrate(ctx, db.river); err != nil {
		sqldb.Close()
		return nil, err
	}
	if db.enqueue, err = river.NewEnqueuer(db.river); err != nil {
		sqldb.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the database.
func (db *DB) Close() error {
	db.stmts.Range(func(_, s any) bool {
		s.(*sql.Stmt).Close()
		return true
	})
	return db.db.Close()
}

// prepared returns query prepared, preparing it on first use. Parsing and
// planning a statement takes SQLite longer than running a lookup by key;
// a *sql.Stmt is prepared once on each connection it meets and kept there.
// Queries are constants of this package, so the map stays small.
func (db *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := db.stmts.Load(query); ok {
		return s.(*sql.Stmt), nil
	}
	s, err := db.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if first, loaded := db.stmts.LoadOrStore(query, s); loaded {
		s.Close()
		return first.(*sql.Stmt), nil
	}
	return s, nil
}

// queryRow is QueryRowContext with query prepared once.
func (db *DB) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	s, err := db.prepared(ctx, query)
	if err != nil {
		// Unprepared, it fails the same way, and the Row carries the error.
		return db.db.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

// query is QueryContext with query prepared once.
func (db *DB) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	s, err := db.prepared(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// SQL returns the underlying handle, for tests that look at the file
// beside the store.
func (db *DB) SQL() *sql.DB { return db.db.DB }

// RiverDriver returns River's driver on the same file, for the queue's
// workers.
func (db *DB) RiverDriver() *RiverDriver { return db.river }

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error { return db.db.PingContext(ctx) }

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY,
		name TEXT NOT NULL,
		applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
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
		body, err := migrationFS.ReadFile(name)
		if err != nil {
			return err
		}
		if err := db.tx(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)`,
				version, base, ms(time.Now()))
			return err
		}); err != nil {
			return fmt.Errorf("migration %s: %w", base, err)
		}
	}
	return nil
}

// CheckSchema compares the file's migrations, Showroom's and River's, with
// this build's: nil when they are the same, else showroom.CheckMigrations's
// error. Open migrates, so only a file a newer build has migrated fails it
// (ErrNewerSchema). Other errors mean it could not look.
func (db *DB) CheckSchema(ctx context.Context) error {
	ours := showroom.MigrationSet{What: "showroom"}
	theirs := showroom.MigrationSet{What: "river"}
	var err error
	if ours.Known, err = showroom.MigrationVersions(migrationFS, "migrations/*.sql"); err != nil {
		return err
	}
	if ours.Applied, err = db.versions(ctx, `SELECT version FROM schema_migrations`); err != nil {
		return err
	}
	if theirs.Known, err = river.KnownMigrations(db.river); err != nil {
		return err
	}
	if theirs.Applied, err = db.versions(ctx, `SELECT version FROM river_migration WHERE line = 'main'`); err != nil {
		return err
	}
	return showroom.CheckSchema(ours, theirs)
}

// versions reads the applied migrations' versions with query.
func (db *DB) versions(ctx context.Context, query string) ([]int, error) {
	rows, err := db.db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

// tx runs fn in a transaction, committing if it returns nil.
func (db *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := db.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return unavailable(err)
	}
	return unavailable(tx.Commit())
}

// ms converts a time to the stored form; the zero time is stored as 0.
func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// fromMS is the inverse of ms.
func fromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// isUnique reports whether err is a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

// notFound turns sql.ErrNoRows into the domain's not-found error.
func notFound(err error, code, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return showroom.Errorf(code, format, args...)
	}
	return err
}
