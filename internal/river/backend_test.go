package river_test

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// backend is a database the queue runs on: the tests run on each.
type backend struct {
	name string
	open func(t *testing.T) *testDB
}

// testDB is a fresh store, and what the tests need of its database beside
// the store.
type testDB struct {
	store
	// newQueue makes a queue on the database, with River's driver for it.
	newQueue func(cfg river.Config, blobs river.Blobs, run river.Runner, log *slog.Logger, o river.Observer) (*river.Queue, error)
	// crashed leaves job id's River row as a process that died while
	// running it would: running, one attempt used, long ago. (A stop hands
	// the job back to River untried, so the tests write this.)
	crashed func(id string) error
	// handedOut makes job id's River row available again at once, as
	// River's rescuer does with a job whose process seems dead, while the
	// process that runs it goes on.
	handedOut func(id string) error
	// riverState is the state of job id's River row.
	riverState func(id string) string
}

// store is what the tests ask of the store itself.
type store interface {
	showroom.JobStore
	showroom.AuthStore
	showroom.WebhookStore
}

var backends = []backend{
	{"sqlite", func(t *testing.T) *testDB {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return &testDB{
			store: db,
			newQueue: func(cfg river.Config, blobs river.Blobs, run river.Runner, log *slog.Logger, o river.Observer) (*river.Queue, error) {
				return river.New(cfg, db.RiverDriver(), db, blobs, run, log, o)
			},
			crashed: func(id string) error {
				_, err := db.SQL().Exec(`UPDATE river_job SET state = 'running', attempt = 1, attempted_at = ?
					WHERE kind = 'showroom_process' AND json_extract(args, '$.job_id') = ?`,
					time.Now().UTC().Add(-time.Hour).Format("2006-01-02 15:04:05.000"), id)
				return err
			},
			handedOut: func(id string) error {
				_, err := db.SQL().Exec(`UPDATE river_job SET state = 'available', scheduled_at = ?
					WHERE kind = 'showroom_process' AND json_extract(args, '$.job_id') = ?`,
					time.Now().UTC().Add(-time.Second).Format("2006-01-02 15:04:05.000"), id)
				return err
			},
			riverState: func(id string) (state string) {
				db.SQL().QueryRow(`SELECT state FROM river_job WHERE kind = 'showroom_process' AND json_extract(args, '$.job_id') = ?`, id).Scan(&state)
				return state
			},
		}
	}},
	{"postgres", func(t *testing.T) *testDB {
		ctx := context.Background()
		db := pgtest.Open(t, pgtest.URL(t))
		return &testDB{
			store: db,
			newQueue: func(cfg river.Config, blobs river.Blobs, run river.Runner, log *slog.Logger, o river.Observer) (*river.Queue, error) {
				return river.New(cfg, db.RiverDriver(), db, blobs, run, log, o)
			},
			crashed: func(id string) error {
				_, err := db.Pool().Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = $1
					WHERE kind = 'showroom_process' AND args->>'job_id' = $2`, time.Now().Add(-time.Hour), id)
				return err
			},
			handedOut: func(id string) error {
				_, err := db.Pool().Exec(ctx, `UPDATE river_job SET state = 'available', scheduled_at = now() - interval '1 second'
					WHERE kind = 'showroom_process' AND args->>'job_id' = $1`, id)
				return err
			},
			riverState: func(id string) (state string) {
				db.Pool().QueryRow(ctx, `SELECT state FROM river_job WHERE kind = 'showroom_process' AND args->>'job_id' = $1`, id).Scan(&state)
				return state
			},
		}
	}},
}

// onBoth runs test on every backend.
func onBoth(t *testing.T, test func(t *testing.T, b backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { test(t, b) })
	}
}
