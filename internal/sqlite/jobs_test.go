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
