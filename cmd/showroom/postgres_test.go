package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/postgres/pgtest"
)

// TestServeOnPostgres runs the service as a scaled-out deployment sets it
// up, on PostgreSQL (a fresh schema of the test run's database) with the
// job queue on River's PostgreSQL driver: the database migrated once by
// 'showroom migrate', the server started with --migrate=false, and a drawn
// car processed synchronously and asynchronously, charged once.
func TestServeOnPostgres(t *testing.T) {
	url := pgtest.URL(t)
	if _, err := os.Stat(filepath.Join(defaultModelDir(), "u2netp.onnx")); err != nil {
		t.Skipf("skipping: no model files in %s; run 'make models'", defaultModelDir())
	}
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_DATABASE_URL": url, "SHOWROOM_MODEL": "u2netp"}

	// Not migrated and told not to: the server, the auth service and a
	// worker do not start, and say what to do.
	for _, role := range []string{"serve", "auth", "worker"} {
		if _, _, err := run(t, env, "", role, "--addr", "127.0.0.1:0", "--migrate=false"); err == nil {
			t.Fatalf("%s --migrate=false started on a database without tables", role)
		} else if !strings.Contains(err.Error(), "pending migrations") || !strings.Contains(err.Error(), "run 'showroom migrate'") {
			t.Errorf("%s --migrate=false on a database without tables: %v, want it to name the pending migrations and 'showroom migrate'", role, err)
		}
	}
	if out, _, err := run(t, env, "", "migrate"); err != nil || !strings.Contains(out, "migrated") {
		t.Fatalf("migrate: %q, %v", out, err)
	}
	// The admin commands take the URL by flag as well as from the environment.
	for _, args := range [][]string{
		{"admin", "--database-url", url, "company", "add", "acme"},
		{"admin", "--database-url", url, "credits", "set", "--company", "acme", "5"},
	} {
		run(t, env, "", args...)
	}
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "--database-url", url, "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--migrate=false")
	a := login(t, base, "alice", "hunter2hunter2")

	var photo bytes.Buffer
	png.Encode(&photo, drawncar.New(480, 300, 0).Photo)
	res, body := a.do("POST", "/v1/process/single/free_cutout", photo.Bytes(), map[string]string{"Content-Type": "image/png"})
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("sync free_cutout: %d %s %.200s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	cut, err := png.Decode(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, corner := cut.At(2, 2).RGBA(); corner != 0 {
		t.Errorf("the cut-out's corner has alpha %d, want the background removed", corner)
	}

	res, body = a.do("POST", "/v1/process/single/default_white?async=true", photo.Bytes(), map[string]string{"Content-Type": "image/png"})
	if res.StatusCode != 202 {
		t.Fatalf("async default_white: %d %s", res.StatusCode, body)
	}
	var j jobView
	json.Unmarshal(body, &j)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if j = a.job(j.ID); j.Status == "succeeded" {
			break
		} else if j.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("async job: %+v", j)
		}
	}
	if res, body := a.do("GET", "/v1/process/jobs/"+j.ID+"/result", nil, nil); res.StatusCode != 200 || len(body) == 0 {
		t.Errorf("result: %d, %d bytes", res.StatusCode, len(body))
	}
	if u := a.usage(); u.Balance == nil || *u.Balance != 4 || len(u.Charges) != 1 || u.Charges[0].JobID != j.ID {
		t.Errorf("usage after one default_white run: %+v, want balance 4 and its one charge", u)
	}
}

// TestDatabaseURLErrors: a URL of another database is a usage error, and a
// server that does not answer fails the command, saying where.
func TestDatabaseURLErrors(t *testing.T) {
	_, _, err := run(t, nil, "", "migrate", "--database-url", "mysql://root@127.0.0.1/showroom")
	var u usageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "PostgreSQL") {
		t.Errorf("mysql URL: %v, want a usage error naming PostgreSQL", err)
	}
	_, _, err = run(t, nil, "", "migrate", "--database-url", "postgres://showroom:s3cret@127.0.0.1:1/showroom?connect_timeout=2")
	if err == nil || !strings.Contains(err.Error(), "127.0.0.1") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("no server: %v, want an error naming the host and not the password", err)
	}
}

// TestMigrateAtStart: without --migrate=false a command migrates a new
// PostgreSQL database before it uses it; 'showroom migrate' readies the
// default SQLite file as well.
func TestMigrateAtStart(t *testing.T) {
	url := pgtest.URL(t)
	if out, _, err := run(t, nil, "", "admin", "--database-url", url, "company", "add", "acme"); err != nil || !strings.Contains(out, "acme") {
		t.Errorf("admin on a new PostgreSQL database: %q, %v", out, err)
	}
	dir := t.TempDir()
	if out, _, err := run(t, nil, "", "migrate", "--data-dir", dir); err != nil || !strings.Contains(out, "migrated") {
		t.Errorf("migrate on SQLite: %q, %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "showroom.db")); err != nil {
		t.Errorf("no SQLite file after migrate: %v", err)
	}
}
