package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
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

// TestFullDiskIsUnavailable: a write that finds no room (SQLite's
// "database or disk is full", here from a max_page_count the file has
// reached) fails as SERVICE_UNAVAILABLE with Retry-After, not as an
// internal error: it can succeed once space is freed.
func TestFullDiskIsUnavailable(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "db")
	db, err := open(ctx, file, busyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := db.db.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if db, err = open(ctx, file, busyTimeout, fmt.Sprintf("max_page_count(%d)", pages+2)); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := 0; ; i++ {
		_, err = db.CreateCompany(ctx, fmt.Sprintf("company%d%s", i, strings.Repeat("x", 500)))
		if err != nil || i > 10_000 {
			break
		}
	}
	e, ok := err.(*showroom.Error)
	if !ok || e.Code != showroom.EUnavailable || e.RetryAfter <= 0 || e.Message != "the server is out of storage space; try again later" {
		t.Errorf("writes into a full file: %v, want SERVICE_UNAVAILABLE saying the storage is full, with a Retry-After", err)
	}
}
