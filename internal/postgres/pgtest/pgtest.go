// Package pgtest gives tests PostgreSQL databases of their own: one
// database per run of a test binary (showroom_test_<random>), dropped when
// the run ends, and in it a fresh schema for each URL a test asks for. Tests
// skip, saying why, when no server answers on the default address, and fail
// when the server they were pointed at does not.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/showroom/showroom/internal/postgres"
)

// EnvURL names the variable that points tests at a server (any database on
// it: the tests create their own beside it).
const EnvURL = "SHOWROOM_TEST_POSTGRES_URL"

// defaultURL is the server on this machine's loopback, as CI runs it.
const defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable&connect_timeout=3"

var run struct {
	once   sync.Once
	server *url.URL // the server's maintenance database
	url    *url.URL // the run's database
	err    error
}

// Main runs a package's tests, then drops the run's database if one was
// made. Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	if run.url != nil {
		if err := drop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	os.Exit(code)
}

// Open opens a store at url (from URL) with every migration applied,
// closed when t ends.
func Open(t testing.TB, url string) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// URL returns the URL of a new, empty schema in the run's database (its
// search_path), creating the database on first use. Without a server it
// skips t on the default address and fails t on one given by EnvURL.
func URL(t testing.TB) string {
	t.Helper()
	run.once.Do(create)
	if run.err != nil {
		if os.Getenv(EnvURL) != "" {
			t.Fatalf("PostgreSQL at %s: %v", EnvURL, run.err)
		}
		t.Skipf("PostgreSQL tests skipped: no server at 127.0.0.1:5432 (%v); set %s, or run 'make test', which starts one", run.err, EnvURL)
	}
	schema := "t_" + random()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := exec(ctx, run.url, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	u := *run.url
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func create() {
	raw := os.Getenv(EnvURL)
	if raw == "" {
		raw = defaultURL
	}
	server, err := url.Parse(raw)
	if err != nil {
		run.err = fmt.Errorf("the URL cannot be parsed")
		return
	}
	name := "showroom_test_" + random()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if run.err = exec(ctx, server, `CREATE DATABASE `+name); run.err != nil {
		return
	}
	db := *server
	db.Path = "/" + name
	run.server, run.url = server, &db
}

func drop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// FORCE ends the connections of pools a test left open.
	return exec(ctx, run.server, `DROP DATABASE IF EXISTS `+run.url.Path[1:]+` WITH (FORCE)`)
}

// exec runs one statement on its own connection.
func exec(ctx context.Context, u *url.URL, sql string) error {
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

func random() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
