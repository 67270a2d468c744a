package sqlite_test

import (
	"testing"

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
