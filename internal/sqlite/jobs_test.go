package sqlite_test

import (
	"testing"

	"github.com/showroom/showroom/internal/storetest"
)

func TestJobStore(t *testing.T) {
	storetest.Jobs(t, func(t *testing.T) storetest.JobsStore { return newDB(t) })
}
