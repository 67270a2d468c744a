package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// TestLockedDatabaseIsUnavailable: a write that waits out the busy timeout
// behind another process's lock fails as SERVICE_UNAVAILABLE with
// Retry-After, which the client may retry, not as an internal error (the
// soak found 500s while the database was locked for 15 s).
func TestLockedDatabaseIsUnavailable(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "db")
	db, err := open(ctx, file, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")

	_, err = db.CreateCompany(ctx, "acme") // a plain write
	wantUnavailable(t, "insert", err)
	err = db.tx(ctx, func(tx *sql.Tx) error { return nil }) // a transaction
	wantUnavailable(t, "transaction", err)
}

func wantUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	e, ok := err.(*showroom.Error)
	if !ok || e.Code != showroom.EUnavailable || e.RetryAfter <= 0 {
		t.Errorf("%s behind a lock: %v, want SERVICE_UNAVAILABLE with a Retry-After", what, err)
	}
}
