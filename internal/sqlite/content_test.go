package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/storetest"
)

func TestContentStore(t *testing.T) {
	storetest.Content(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

func TestConfigurationStore(t *testing.T) {
	storetest.Configurations(t, func(t *testing.T) storetest.LibraryStore { return newDB(t) })
}

// TestConfigurationListSeesOtherWriters: two DBs on one file are two
// processes.
func TestConfigurationListSeesOtherWriters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "shared.db")
	storetest.SharedConfigurationLists(t, func(t *testing.T) storetest.LibraryStore {
		db, err := sqlite.Open(context.Background(), file)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	})
}
