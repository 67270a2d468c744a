package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/storetest"
)

func TestJobStore(t *testing.T) {
	storetest.Jobs(t, func(t *testing.T) storetest.JobsStore { return newDB(t) },
		func(t *testing.T, s storetest.JobsStore) {
			if _, err := s.(*sqlite.DB).SQL().Exec(`DROP TABLE river_job`); err != nil {
				t.Fatal(err)
			}
		})
}

func TestRateLimiter(t *testing.T) {
	storetest.RateLimits(t, func(t *testing.T) showroom.RateLimiter { return newDB(t) })
}

// TestJobsSharedByProcesses: two DBs on one file are two processes (an
// api and a worker beside it); the queue's bound and a company's share,
// and the credits, hold for both together. The rate limit is not shared:
// the embedded database keeps it in its one process's memory.
func TestJobsSharedByProcesses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shared.db")
	storetest.SharedJobs(t, func(t *testing.T) storetest.JobsStore {
		db, err := sqlite.Open(context.Background(), file)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}

func TestWebhookStore(t *testing.T) {
	storetest.Webhooks(t, func(t *testing.T) storetest.WebhooksStore { return newDB(t) },
		func(t *testing.T, s storetest.WebhooksStore) []string {
			rows, err := s.(*sqlite.DB).SQL().Query(`SELECT json_extract(args, '$.job_id') FROM river_job WHERE kind = 'showroom_webhook'`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var ids []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			return ids
		})
}
