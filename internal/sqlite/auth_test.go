package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/storetest"
)

// newDB opens a fresh database in a temporary directory.
func newDB(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestAuthStore(t *testing.T) {
	storetest.Auth(t, func(t *testing.T) showroom.AuthStore { return newDB(t) })
}

func TestMigrationsAreIdempotent(t *testing.T) {
	file := filepath.Join(t.TempDir(), "test.db")
	for range 2 {
		db, err := sqlite.Open(context.Background(), file)
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
}
