package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/showroom/showroom/internal/postgres"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// databaseFlags choose the database: the SQLite file in the data directory
// by default, PostgreSQL when a URL is given (the scaled-out deployment,
// where every role on every machine shares it).
type databaseFlags struct {
	url     string
	migrate bool
}

func (d *databaseFlags) register(fs *flagSet) {
	d.registerURL(fs)
	fs.Bool(&d.migrate, "migrate", true, "apply pending PostgreSQL migrations at start (false: leave them to 'showroom migrate'; SQLite's file is always migrated)")
}

// registerURL registers --database-url alone, for 'showroom migrate'.
func (d *databaseFlags) registerURL(fs *flagSet) {
	fs.String(&d.url, "database-url", "", "PostgreSQL database to use instead of the SQLite file in --data-dir: postgres://user:password@host:5432/name")
}

// stores is every storage interface, on one database.
type stores interface {
	showroom.AuthStore
	showroom.ContentStore
	showroom.ConfigurationStore
	showroom.JobStore
	showroom.RateLimiter
	showroom.WebhookStore
	Ping(ctx context.Context) error
	// CheckSchema says whether the database's migrations are this
	// build's (httpapi.SchemaChecker): /readyz and every request ask.
	CheckSchema(ctx context.Context) error
	Close() error
}

// database is the database the roles run on, and the way to make the job
// queue on it: River's driver, and so the queue's type, differs with the
// database, and this is the one place that knows which it is.
type database struct {
	stores
	newQueue func(cfg river.Config, blobs river.Blobs, run river.Runner, log *slog.Logger, o river.Observer) (*river.Queue, error)
}

// sqlitePath is where the SQLite database of dataDir lives.
func sqlitePath(dataDir string) string { return filepath.Join(dataDir, "showroom.db") }

// open opens the database the flags choose; SQLite's lives in dataDir.
// Unless told otherwise, PostgreSQL's pending migrations are applied first.
func (d databaseFlags) open(ctx context.Context, dataDir string) (*database, error) {
	if d.url == "" {
		if err := os.MkdirAll(dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
		db, err := sqlite.Open(ctx, sqlitePath(dataDir))
		if err != nil {
			return nil, err
		}
		return &database{db, func(cfg river.Config, blobs river.Blobs, run river.Runner, log *slog.Logger, o river.Observer) (*river.Queue, error) {
			return river.New(cfg, db.RiverDriver(), db, blobs, run, log, o)
		}}, nil
	}
	if !strings.HasPrefix(d.url, "postgres://") && !strings.HasPrefix(d.url, "postgresql://") {
		return nil, usageError("--database-url: only PostgreSQL is supported, as postgres://user:password@host:5432/name")
	}
	db, err := postgres.Open(ctx, d.url)
	if err != nil {
		return nil, err
	}
	if d.migrate {
		if err := db.Migrate(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return &database{db, func(cfg river.Config, blobs river.Blobs, run river.Runner, log *slog.Logger, o river.Observer) (*river.Queue, error) {
		return river.New(cfg, db.RiverDriver(), db, blobs, run, log, o)
	}}, nil
}

// checkSchema looks at the database's migrations at start. Pending ones
// stop the roles that cannot start without the schema (required: the auth
// service reads its signing keys at start, the worker's queue its tables),
// saying what to do rather than which table was missing; an api starts,
// not ready, and answers 503 until they are applied. A newer schema, the
// previous release's processes during a rolling upgrade, is logged.
func checkSchema(ctx context.Context, db *database, required bool, log *slog.Logger) error {
	err := db.CheckSchema(ctx)
	switch {
	case errors.Is(err, showroom.ErrPendingMigrations) && required:
		return fmt.Errorf("%w; run 'showroom migrate' (or start without --migrate=false)", errors.Unwrap(err))
	case errors.Is(err, showroom.ErrPendingMigrations):
		log.Warn("not ready until the database is migrated: run 'showroom migrate'", "err", errors.Unwrap(err))
	case errors.Is(err, showroom.ErrNewerSchema):
		log.Warn("the database's schema is newer than this build: a newer release migrated it; upgrade this process", "err", err)
	}
	return nil
}

// runMigrate applies pending migrations and exits: for deployments that
// start their roles with --migrate=false, so that a schema change runs
// once, when the operator chooses.
func (m *Main) runMigrate(ctx context.Context, args []string) error {
	var dataDir string
	var d databaseFlags
	fs := m.newFlagSet("migrate")
	fs.String(&dataDir, "data-dir", "./data", "directory of the SQLite database")
	d.registerURL(fs)
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	d.migrate = true
	db, err := d.open(ctx, dataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(m.Stdout, "the database is migrated")
	return nil
}
