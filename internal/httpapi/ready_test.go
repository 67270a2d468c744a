package httpapi_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/postgres"
	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// openSQLite opens a fresh database, closed when the test ends.
func openSQLite(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "showroom.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// getReady asks h for /readyz and returns the status and the decoded body,
// failing unless the body is the documented one.
func getReady(t *testing.T, h http.Handler) (int, string, map[string]string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	var body struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("/readyz Content-Type %q", ct)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("/readyz body %s: %v", rec.Body, err)
	}
	if want := map[int]string{200: "ready", 503: "not ready"}[rec.Code]; body.Status != want {
		t.Errorf("/readyz %d with status %q, want %q", rec.Code, body.Status, want)
	}
	return rec.Code, body.Status, body.Checks
}

// TestReadyzReportsEachDependency: /readyz names every dependency with
// "ok" or why not, answers 503 while any fails, and never shows an
// unreachable dependency's error (it may name hosts or paths).
func TestReadyzReportsEachDependency(t *testing.T) {
	db := openSQLite(t)
	root := filepath.Join(t.TempDir(), "blobs")
	blobs, err := blob.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.NewAPIServer(httpapi.APIConfig{}, nil, db, slog.New(slog.NewTextHandler(io.Discard, nil)))
	api.AddDependency("blobs", blobs.Reachable)
	var warm atomic.Bool
	api.AddReadyCheck("model", func(context.Context) error {
		if !warm.Load() {
			return errors.New("warming up")
		}
		return nil
	})

	steps := []struct {
		name   string
		change func()
		code   int
		checks map[string]string
	}{
		{"warming up", func() {}, 503, map[string]string{"database": "ok", "blobs": "ok", "model": "warming up"}},
		{"warmed up", func() { warm.Store(true) }, 200, map[string]string{"database": "ok", "blobs": "ok", "model": "ok"}},
		{"blob folder gone", func() { os.Remove(root) }, 503, map[string]string{"database": "ok", "blobs": "unreachable", "model": "ok"}},
		{"blob folder back", func() { os.Mkdir(root, 0o750) }, 200, map[string]string{"database": "ok", "blobs": "ok", "model": "ok"}},
		{"database closed", func() { db.Close() }, 503, map[string]string{"database": "unreachable", "blobs": "ok", "model": "ok"}},
	}
	for _, s := range steps {
		s.change()
		code, _, checks := getReady(t, api)
		if code != s.code || !reflect.DeepEqual(checks, s.checks) {
			t.Errorf("%s: %d %v, want %d %v", s.name, code, checks, s.code, s.checks)
		}
		// Check, which 'showroom serve' waits on to say "ready", agrees,
		// naming what fails.
		err := api.Check(context.Background())
		if (err == nil) != (s.code == 200) {
			t.Errorf("%s: Check says %v, /readyz %d", s.name, err, s.code)
		}
		for name, result := range s.checks {
			if result != "ok" && (err == nil || !strings.Contains(err.Error(), name+": "+result)) {
				t.Errorf("%s: Check's %v does not say %s: %s", s.name, err, name, result)
			}
		}
	}
}

// TestReadyzLogsChanges: an unreachable dependency is logged when it goes
// down, with why, and when it is back, not at every probe.
func TestReadyzLogsChanges(t *testing.T) {
	db := openSQLite(t)
	var logs bytes.Buffer
	api := httpapi.NewAPIServer(httpapi.APIConfig{}, nil, db, slog.New(slog.NewTextHandler(&logs, nil)))
	var down atomic.Bool
	api.AddDependency("blobs", func(context.Context) error {
		if down.Load() {
			return errors.New("dial tcp 10.0.0.7:9000: connection refused")
		}
		return nil
	})
	for _, d := range []bool{false, true, true, true, false, false, true} {
		down.Store(d)
		getReady(t, api)
	}
	text := logs.String()
	if n := strings.Count(text, "not ready: a dependency is unreachable"); n != 2 || !strings.Contains(text, "connection refused") {
		t.Errorf("logged going down %d times, want 2 (once each time), with the error:\n%s", n, text)
	}
	if n := strings.Count(text, "a dependency is reachable again"); n != 1 {
		t.Errorf("logged coming back %d times, want 1:\n%s", n, text)
	}
}

// TestAuthAndProbeReadyz: the auth service reports its one dependency, the
// database; the worker's probe server reports what its role adds, and
// answers /healthz and unknown paths as the API does.
func TestAuthAndProbeReadyz(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	db := openSQLite(t)
	authServer := httpapi.NewAuthServer(nil, db, log)
	if code, _, checks := getReady(t, authServer); code != 200 || !reflect.DeepEqual(checks, map[string]string{"database": "ok"}) {
		t.Errorf("auth /readyz: %d %v, want 200 with the database ok", code, checks)
	}

	probes := httpapi.NewProbeServer(db, log)
	probes.AddReadyCheck("model", func(context.Context) error { return errors.New("warming up") })
	if code, _, checks := getReady(t, probes); code != 503 || !reflect.DeepEqual(checks, map[string]string{"database": "ok", "model": "warming up"}) {
		t.Errorf("worker /readyz: %d %v, want 503 with the model warming up", code, checks)
	}
	for path, want := range map[string]int{"/healthz": 200, "/v1/me": 404} {
		rec := httptest.NewRecorder()
		probes.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != want {
			t.Errorf("worker %s: %d, want %d", path, rec.Code, want)
		}
	}

	db.Close()
	if code, _, checks := getReady(t, authServer); code != 503 || checks["database"] != "unreachable" {
		t.Errorf("auth /readyz with the database closed: %d %v", code, checks)
	}
}

// TestReadyzMatchesOpenAPI: both services' /readyz answers, ready and not,
// are what the OpenAPI document describes.
func TestReadyzMatchesOpenAPI(t *testing.T) {
	var warm atomic.Bool
	e := newEnvWith(t, library.DefaultConfig(), func(_ testing.TB, _ *sqlite.DB, _ *blob.Local, _ *library.Service, api *httpapi.APIServer) {
		api.AddReadyCheck("model", func(context.Context) error {
			if !warm.Load() {
				return errors.New("warming up")
			}
			return nil
		})
	})
	e.do("GET", "/readyz", nil, nil).wantStatus(503)
	warm.Store(true)
	e.do("GET", "/readyz", nil, nil).wantStatus(200)
	e.do("GET", "/auth/readyz", nil, nil).wantStatus(200)
	e.do("GET", "/healthz", nil, nil).wantStatus(200)
}

// TestSchemaGate: a process on a database that lacks migrations its build
// knows (PostgreSQL not migrated, as 'api --migrate=false' finds it before
// 'showroom migrate') says so on /readyz and answers every request, the
// API's and the auth service's, 503 SERVICE_UNAVAILABLE with Retry-After
// instead of failing each query with 500; once migrated it serves. A
// database a newer build migrated (the previous release's processes
// during a rolling upgrade) is served as it is.
func TestSchemaGate(t *testing.T) {
	ctx := context.Background()
	const pending = "the database has pending migrations; run 'showroom migrate'"
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	serve := func(db httpapi.Database) (api, authServer http.Handler) {
		return httpapi.Handler(httpapi.NewAPIServer(httpapi.APIConfig{}, nil, db, log), log, nil, httpapi.BodyLimits{}),
			httpapi.Handler(httpapi.NewAuthServer(nil, db, log), log, nil, httpapi.BodyLimits{})
	}

	t.Run("postgres not migrated", func(t *testing.T) {
		db, err := postgres.Open(ctx, pgtest.URL(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		api, authServer := serve(db)
		if code, _, checks := getReady(t, api); code != 503 || !reflect.DeepEqual(checks, map[string]string{"database": pending}) {
			t.Errorf("api /readyz: %d %v, want 503 with the database: %q", code, checks, pending)
		}
		if code, _, checks := getReady(t, authServer); code != 503 || checks["database"] != pending {
			t.Errorf("auth /readyz: %d %v, want 503 with the database: %q", code, checks, pending)
		}
		for _, req := range []struct {
			h      http.Handler
			method string
			path   string
		}{
			{api, "GET", "/v1/me"},
			{authServer, "POST", "/login"},
		} {
			rec := httptest.NewRecorder()
			req.h.ServeHTTP(rec, httptest.NewRequest(req.method, req.path, strings.NewReader(`{}`)))
			wantErrorBody(t, rec, 503, "SERVICE_UNAVAILABLE", pending)
			if got := rec.Header().Get("Retry-After"); got != "30" {
				t.Errorf("%s %s: Retry-After %q, want 30", req.method, req.path, got)
			}
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		if rec.Code != 200 {
			t.Errorf("/healthz: %d, want 200: the process is alive", rec.Code)
		}

		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		if code, _, checks := getReady(t, api); code != 200 || checks["database"] != "ok" {
			t.Errorf("api /readyz once migrated: %d %v", code, checks)
		}
		rec = httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/me", nil))
		if rec.Code != 401 {
			t.Errorf("/v1/me without a token once migrated: %d %s, want 401", rec.Code, rec.Body)
		}
	})

	t.Run("sqlite migrated by a newer build", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "showroom.db")
		db, err := sqlite.Open(ctx, file)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		raw, err := sql.Open("sqlite", file)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { raw.Close() })
		if _, err := raw.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future.sql', 0)`); err != nil {
			t.Fatal(err)
		}
		if err := db.CheckSchema(ctx); !errors.Is(err, showroom.ErrNewerSchema) {
			t.Errorf("CheckSchema: %v, want ErrNewerSchema", err)
		}
		api, _ := serve(db)
		if code, _, checks := getReady(t, api); code != 200 || checks["database"] != "ok" {
			t.Errorf("api /readyz: %d %v, want 200", code, checks)
		}
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/me", nil))
		if rec.Code != 401 {
			t.Errorf("/v1/me without a token: %d %s, want 401", rec.Code, rec.Body)
		}
	})
}

// wantErrorBody checks that rec holds the contract's error body, every
// field of it.
func wantErrorBody(t *testing.T, rec *httptest.ResponseRecorder, status int, code, message string) {
	t.Helper()
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	ts, _ := body["timestamp"].(float64)
	if d := time.Since(time.UnixMilli(int64(ts))); d < -time.Minute || d > time.Minute {
		t.Errorf("timestamp %v is not now", body["timestamp"])
	}
	delete(body, "timestamp")
	want := map[string]any{"status": float64(status), "reason": http.StatusText(status), "errorCode": code, "message": message}
	if rec.Code != status || !reflect.DeepEqual(body, want) {
		t.Errorf("%d %v, want %d %v", rec.Code, body, status, want)
	}
}

// TestReadyzDiskSpace: the data directory's disk check says ready with
// room to spare and not ready, saying so, under its minimum (a minimum no
// disk has stands in for a full one) or when the folder is gone.
func TestReadyzDiskSpace(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		dir    string
		min    int64
		code   int
		prefix string
	}{
		{"room", dir, 1, 200, "ok"},
		{"under the minimum", dir, math.MaxInt64, 503, "low on disk space: "},
		{"no folder", filepath.Join(dir, "gone"), 1, 503, "the data directory's free space cannot be read"},
	} {
		api := httpapi.NewAPIServer(httpapi.APIConfig{}, nil, openSQLite(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
		api.AddReadyCheck("disk", httpapi.DiskSpace(c.dir, c.min))
		code, _, checks := getReady(t, api)
		if code != c.code || !strings.HasPrefix(checks["disk"], c.prefix) || checks["database"] != "ok" {
			t.Errorf("%s: %d %v, want %d with disk %q...", c.name, code, checks, c.code, c.prefix)
		}
	}
}
