package auth

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// fakeHash is the stored hash of password for fakeCheck, which stands in for
// argon2id where a test makes many logins.
func fakeHash(password string) string { return "fake:" + password }

func fakeCheck(delay time.Duration, checks *atomic.Int32) func(hash, password string) (bool, error) {
	return func(hash, password string) (bool, error) {
		if checks != nil {
			checks.Add(1)
		}
		time.Sleep(delay)
		return hash == fakeHash(password), nil
	}
}

// openDB opens the SQLite file at path as one more process would.
func openDB(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func addUser(t *testing.T, db showroom.AuthStore, username, password string) {
	t.Helper()
	ctx := context.Background()
	c, err := db.FindCompany(ctx, "acme")
	if showroom.ErrorCode(err) == showroom.ENotFound {
		c, err = db.CreateCompany(ctx, "acme")
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := db.CreateUser(ctx, &showroom.User{Username: username, PasswordHash: fakeHash(password), CompanyID: c.ID, Systems: []string{"showroom"}}); err != nil {
		t.Fatal(err)
	}
}

// newLimitService is an auth service on db with the fake password check.
func newLimitService(t *testing.T, db showroom.AuthStore, cfg Config) *Service {
	t.Helper()
	ring, err := NewKeyRing(context.Background(), db, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(cfg, db, ring)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func limitConfig() Config {
	cfg := DefaultConfig()
	cfg.MaxFailures, cfg.MaxClientFailures, cfg.FailureWindow = 5, 8, 15*time.Minute
	cfg.HashWait = time.Minute // no 503 however slow the machine
	cfg.CheckPassword = fakeCheck(0, nil)
	return cfg
}

// wantLogin checks a login's outcome: "" for tokens, else an error code;
// for a 429 also that Retry-After is within (minWait, maxWait].
func wantLogin(t *testing.T, what string, resp *TokenResponse, err error, code string, minWait, maxWait time.Duration) {
	t.Helper()
	if got := showroom.ErrorCode(err); got != code {
		t.Fatalf("%s: %v (code %q), want %q", what, err, got, code)
	}
	if code == "" && (resp == nil || resp.AccessToken == "") {
		t.Fatalf("%s: no tokens", what)
	}
	if code == showroom.ETooManyRequests {
		var e *showroom.Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, "too many failed logins") || e.RetryAfter <= minWait || e.RetryAfter > maxWait {
			t.Fatalf("%s: %v (%+v), want too many failed logins, Retry-After in (%v, %v]", what, err, e, minWait, maxWait)
		}
	}
}

func TestMain(m *testing.M) { pgtest.Main(m) }

// backends open a database as one more process would: the first call for
// a test makes it, the next ones open the same.
var backends = []struct {
	name string
	open func(t *testing.T) func() showroom.AuthStore
}{
	{"sqlite", func(t *testing.T) func() showroom.AuthStore {
		path := filepath.Join(t.TempDir(), "shared.db")
		return func() showroom.AuthStore { return openDB(t, path) }
	}},
	{"postgres", func(t *testing.T) func() showroom.AuthStore {
		url := pgtest.URL(t)
		return func() showroom.AuthStore { return pgtest.Open(t, url) }
	}},
}

// TestLoginFailuresShared checks that failed logins count in the database:
// two auth services on one database (two replicas) share the count, and a
// service started afterwards (a restart) still refuses, until the window
// ends. Per username and per client address alike, on both backends.
func TestLoginFailuresShared(t *testing.T) {
	ctx := context.Background()
	for _, backend := range backends {
		for _, tc := range []struct {
			name  string
			limit int
			// login i's username and client
			username func(i int) string
			client   func(i int) string
		}{
			{"per username", 5, func(int) string { return "alice" }, func(i int) string { return fmt.Sprint("10.0.0.", i) }},
			{"per username, any case", 5, func(i int) string { return []string{"alice", "Alice", "ALICE"}[i%3] }, func(i int) string { return fmt.Sprint("10.0.0.", i) }},
			{"per client", 8, func(i int) string { return fmt.Sprint("user", i) }, func(int) string { return "192.0.2.1" }},
		} {
			t.Run(backend.name+"/"+tc.name, func(t *testing.T) {
				open := backend.open(t)
				dbA, dbB := open(), open()
				addUser(t, dbA, "alice", "right password")
				a, b := newLimitService(t, dbA, limitConfig()), newLimitService(t, dbB, limitConfig())
				t0 := time.Now()
				// The failures alternate between the two replicas.
				for i := range tc.limit {
					svc := []*Service{a, b}[i%2]
					resp, err := svc.Login(ctx, tc.username(i), "wrong", "showroom", tc.client(i))
					wantLogin(t, fmt.Sprint("failure ", i+1), resp, err, showroom.EInvalidCredentials, 0, 0)
				}
				window := limitConfig().FailureWindow
				for i, svc := range []*Service{a, b} {
					resp, err := svc.Login(ctx, tc.username(tc.limit), "wrong", "showroom", tc.client(tc.limit))
					wantLogin(t, fmt.Sprint("replica ", i, " after the limit"), resp, err, showroom.ETooManyRequests, window-time.Minute, window)
				}
				// Locked is locked: the right password waits too.
				if tc.name != "per client" {
					resp, err := a.Login(ctx, "alice", "right password", "showroom", "10.9.9.9")
					wantLogin(t, "right password after the limit", resp, err, showroom.ETooManyRequests, window-time.Minute, window)
				}

				// A restart: a new process on the same database.
				c := newLimitService(t, open(), limitConfig())
				resp, err := c.Login(ctx, tc.username(tc.limit), "wrong", "showroom", tc.client(tc.limit))
				wantLogin(t, "after a restart", resp, err, showroom.ETooManyRequests, window-time.Minute, window)

				// Once the window has ended, logins are checked again.
				c.now = func() time.Time { return t0.Add(window + time.Second) }
				resp, err = c.Login(ctx, "alice", "right password", "showroom", tc.client(tc.limit))
				wantLogin(t, "after the window", resp, err, "", 0, 0)
			})
		}
	}
}

// TestConcurrentCorrectLogins checks that correct logins are never counted
// as failures nor refused, however many arrive at once, even for a user
// one failure short of the limit; and that a success forgets the user's
// failures but not the client's.
func TestConcurrentCorrectLogins(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "t.db"))
	addUser(t, db, "alice", "right password")
	cfg := limitConfig()
	cfg.CheckPassword = fakeCheck(20*time.Millisecond, nil) // so that the logins overlap
	svc := newLimitService(t, db, cfg)
	for i := range cfg.MaxFailures - 1 {
		resp, err := svc.Login(ctx, "alice", "wrong", "showroom", "192.0.2.1")
		wantLogin(t, fmt.Sprint("failure ", i+1), resp, err, showroom.EInvalidCredentials, 0, 0)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Login(ctx, "alice", "right password", "showroom", "192.0.2.1")
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("a correct login of 12 at once: %v", err)
		}
	}
	now := time.Now()
	for key, want := range map[string]int{"u:alice": 0, "c:192.0.2.1": cfg.MaxFailures - 1} {
		if n, _, err := db.LoginFailures(ctx, key, now, cfg.FailureWindow); err != nil || n != want {
			t.Errorf("%s: %d failures, %v; want %d", key, n, err, want)
		}
	}
}

// TestLoginBurstBounded checks that a parallel burst of wrong passwords for
// one username gets exactly the limit's password checks, however many may
// run at once: the rest are refused with 429.
func TestLoginBurstBounded(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "t.db"))
	addUser(t, db, "alice", "right password")
	var checks atomic.Int32
	cfg := limitConfig()
	cfg.MaxHashes = 100 // only the failure limit may hold the burst back
	cfg.CheckPassword = fakeCheck(5*time.Millisecond, &checks)
	svc := newLimitService(t, db, cfg)
	var wg sync.WaitGroup
	var refused atomic.Int32
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Login(ctx, "alice", "wrong", "showroom", fmt.Sprint("10.0.", i/250, ".", i%250))
			switch showroom.ErrorCode(err) {
			case showroom.ETooManyRequests:
				refused.Add(1)
			case showroom.EInvalidCredentials:
			default:
				t.Errorf("login: %v", err)
			}
		}()
	}
	wg.Wait()
	if n := int(checks.Load()); n != cfg.MaxFailures {
		t.Errorf("%d of 100 parallel wrong logins were checked, want %d", n, cfg.MaxFailures)
	}
	if int(refused.Load())+int(checks.Load()) != 100 {
		t.Errorf("%d refused and %d checked of 100", refused.Load(), checks.Load())
	}
}

// TestLoginFailuresExpire checks that windows that have ended are deleted,
// so the table does not grow with every username ever tried.
func TestLoginFailuresExpire(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "t.db"))
	svc := newLimitService(t, db, limitConfig())
	t0 := time.Now()
	for i := range 20 {
		svc.Login(ctx, fmt.Sprint("nobody", i), "x", "showroom", fmt.Sprint("10.0.0.", i))
	}
	rows := func() int {
		var n int
		if err := db.SQL().QueryRowContext(ctx, `SELECT count(*) FROM login_failures`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := rows(); n != 40 {
		t.Fatalf("%d rows after 20 failures, want 40 (a username and a client each)", n)
	}
	svc.now = func() time.Time { return t0.Add(limitConfig().FailureWindow + sweepEvery) }
	svc.Login(ctx, "late", "x", "showroom", "10.0.1.1")
	if n := rows(); n != 2 {
		t.Errorf("%d rows once the old windows ended, want 2 (the last failure's)", n)
	}
}
