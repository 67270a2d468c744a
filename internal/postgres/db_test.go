package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/showroom/showroom/internal/postgres"
	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// newDB opens and migrates a store on a fresh schema.
func newDB(t *testing.T) *postgres.DB { return pgtest.Open(t, pgtest.URL(t)) }

func TestAuthStore(t *testing.T) {
	storetest.Auth(t, func(t *testing.T) showroom.AuthStore { return newDB(t) })
}

func TestContentStore(t *testing.T) {
	storetest.Content(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

func TestConfigurationStore(t *testing.T) {
	storetest.Configurations(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

func TestJobStore(t *testing.T) {
	storetest.Jobs(t, func(t *testing.T) storetest.JobsStore { return newDB(t) },
		func(t *testing.T, s storetest.JobsStore) {
			if _, err := s.(*postgres.DB).Pool().Exec(context.Background(), `DROP TABLE river_job`); err != nil {
				t.Fatal(err)
			}
		})
}

func TestWebhookStore(t *testing.T) {
	storetest.Webhooks(t, func(t *testing.T) storetest.WebhooksStore { return newDB(t) },
		func(t *testing.T, s storetest.WebhooksStore) []string {
			rows, err := s.(*postgres.DB).Pool().Query(context.Background(),
				`SELECT args->>'job_id' FROM river_job WHERE kind = 'showroom_webhook'`)
			if err != nil {
				t.Fatal(err)
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				t.Fatal(err)
			}
			return ids
		})
}

// TestConfigurationListSeesOtherWriters: two DBs on one database are two
// processes.
func TestConfigurationListSeesOtherWriters(t *testing.T) {
	url := pgtest.URL(t)
	storetest.SharedConfigurationLists(t, func(t *testing.T) storetest.LibraryStore {
		return pgtest.Open(t, url)
	})
}

// TestMigrateTogether: processes that start at once on a new database all
// migrate it, one after the other, and each ends with it ready.
func TestMigrateTogether(t *testing.T) {
	url := pgtest.URL(t)
	errs := make(chan error, 3)
	for range 3 {
		go func() {
			db, err := postgres.Open(context.Background(), url)
			if err == nil {
				err = db.Migrate(context.Background())
				db.Close()
			}
			errs <- err
		}()
	}
	for range 3 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	db := pgtest.Open(t, url) // and once more on a migrated database
	if _, err := db.CreateCompany(context.Background(), "acme"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenErrors: a URL that cannot be parsed, and a server that does not
// answer, are refused by Open, and the message never repeats a password.
func TestOpenErrors(t *testing.T) {
	for _, tc := range []struct{ name, url string }{
		{"unparsable", "postgres://showroom:s3cret@127.0.0.1:notaport/db"},
		{"nobody listening", "postgres://showroom:s3cret@127.0.0.1:1/db?connect_timeout=2"},
	} {
		db, err := postgres.Open(context.Background(), tc.url)
		if err == nil {
			db.Close()
			t.Errorf("%s: Open succeeded", tc.name)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", tc.name, err)
		}
	}
}

// TestFailedMigrationChangesNothing: a migration that fails leaves the
// database as it was, not half migrated, and says which one failed.
func TestFailedMigrationChangesNothing(t *testing.T) {
	ctx := context.Background()
	db, err := postgres.Open(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Pool().Exec(ctx, `CREATE TABLE content (x INTEGER)`); err != nil { // in the way of 002
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err == nil || !strings.Contains(err.Error(), "002_content.sql") {
		t.Fatalf("Migrate = %v, want migration 002's failure", err)
	}
	var tables int
	if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_name IN ('companies', 'schema_migrations')`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("after a failed migration %d of 001's tables and schema_migrations exist (%v), want none", tables, err)
	}
}

func TestRateLimiter(t *testing.T) {
	storetest.RateLimits(t, func(t *testing.T) showroom.RateLimiter { return newDB(t) })
}

// TestLimitsHoldAcrossProcesses: two DBs on one database are two api (or
// worker) processes; the rate limit, the queue's bound and a company's
// share, and the credits hold for both together.
func TestLimitsHoldAcrossProcesses(t *testing.T) {
	url := pgtest.URL(t)
	t.Run("rate limit", func(t *testing.T) {
		storetest.SharedRateLimits(t, func(t *testing.T) showroom.RateLimiter { return pgtest.Open(t, url) })
	})
	t.Run("jobs", func(t *testing.T) {
		storetest.SharedJobs(t, func(t *testing.T) storetest.JobsStore { return pgtest.Open(t, url) })
	})
}
