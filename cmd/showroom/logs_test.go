package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/syncbuf"
)

// logLines parses a JSON log, one record a line.
func logLines(t testing.TB, log string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		out = append(out, rec)
	}
	return out
}

// findLog returns the first record with every field of want, or fails.
func findLog(t testing.TB, recs []map[string]any, want map[string]any) map[string]any {
	t.Helper()
next:
	for _, rec := range recs {
		for k, v := range want {
			if fmt.Sprint(rec[k]) != fmt.Sprint(v) {
				continue next
			}
		}
		return rec
	}
	t.Errorf("no log record with %v", want)
	return nil
}

// TestLogs drives a server through what an operator looks for in its log:
// a wrong password, a lockout, a bad token, a failed job. Each request's
// line names its route pattern, status, error code, caller, job and
// duration; refused logins and failed jobs have lines of their own; no
// password, token or Authorization header is in the log.
func TestLogs(t *testing.T) {
	requireModel(t, "u2netp")
	dir := t.TempDir()
	setupCompany(t, dir, 10)
	var logBuf syncbuf.Buffer
	base, _ := startServerLogging(t, map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}, &logBuf,
		"serve", "--addr", "127.0.0.1:0", "--log-format", "json")

	const wrongPassword = "wrong-Pa55word-guess"
	loginAs := func(user, password string) int {
		return post(t, base+"/auth/login", map[string]string{"username": user, "password": password, "system": "showroom"}, nil)
	}
	if code := loginAs("alice", wrongPassword); code != http.StatusForbidden {
		t.Fatalf("wrong password: %d", code)
	}
	// Five failures for one username lock it out.
	for range 5 {
		loginAs("mallory", wrongPassword)
	}
	if code := loginAs("mallory", wrongPassword); code != http.StatusTooManyRequests {
		t.Fatalf("sixth failure: %d, want 429", code)
	}
	var tok tokens
	if code := post(t, base+"/auth/login", map[string]string{"username": "alice", "password": "hunter2hunter2", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login: %d", code)
	}
	const badToken = "eyJhbGciOiJFZERTQSJ9.forged-token-body.c2lnbmF0dXJl"
	if code, _ := get(t, base+"/v1/me", badToken); code != http.StatusUnauthorized {
		t.Fatalf("bad token: %d", code)
	}
	a := &api{t: t, base: base, token: tok.AccessToken}
	// A wall: no car, the job fails.
	res, body := a.do("POST", "/v1/process/single/default_white", plainJPEG(t, 320, 240), map[string]string{"Content-Type": "image/jpeg"})
	wantAPIError(t, "wall", res, body, 422, "NO_CAR_DETECTED")
	jobID := res.Header.Get("X-Job-ID")
	if jobID == "" {
		t.Fatal("no X-Job-ID")
	}
	if j := a.job(jobID); j.Status != "failed" {
		t.Fatalf("job %+v", j)
	}
	var refreshed tokens
	if code := post(t, base+"/auth/refresh", map[string]string{"refresh_token": tok.RefreshToken}, &refreshed); code != 200 {
		t.Fatalf("refresh: %d", code)
	}

	log := logBuf.String()
	recs := logLines(t, log)
	// Request lines: the route's pattern, never the path with its IDs.
	line := findLog(t, recs, map[string]any{"msg": "request", "route": "POST /login", "status": 403, "error_code": "INVALID_CREDENTIALS"})
	if line != nil && (line["request_id"] == nil || line["duration_ms"] == nil || line["path"] != nil) {
		t.Errorf("login line: %v", line)
	}
	findLog(t, recs, map[string]any{"msg": "request", "route": "POST /login", "status": 429, "error_code": "TOO_MANY_REQUESTS"})
	findLog(t, recs, map[string]any{"msg": "request", "route": "POST /login", "status": 200, "company": "acme", "user": "alice"})
	findLog(t, recs, map[string]any{"msg": "request", "route": "POST /refresh", "status": 200, "company": "acme", "user": "alice"})
	if line := findLog(t, recs, map[string]any{"msg": "request", "route": "GET /v1/me", "status": 401, "error_code": "INVALID_TOKEN"}); line != nil && line["user"] != nil {
		t.Errorf("a refused token's line names a user: %v", line)
	}
	line = findLog(t, recs, map[string]any{"msg": "request", "route": "POST /v1/process/single/{configuration_name}", "status": 422,
		"company": "acme", "user": "alice", "job_id": jobID, "error_code": "NO_CAR_DETECTED"})
	if line != nil && line["duration_ms"] == nil {
		t.Errorf("no duration: %v", line)
	}
	findLog(t, recs, map[string]any{"msg": "request", "route": "GET /v1/process/jobs/{id}", "status": 200, "company": "acme", "user": "alice", "job_id": jobID})
	// Refused logins and the failed job, at WARN.
	findLog(t, recs, map[string]any{"msg": "login failed", "level": "WARN", "username": "alice"})
	findLog(t, recs, map[string]any{"msg": "login refused: too many failed logins", "level": "WARN", "username": "mallory"})
	findLog(t, recs, map[string]any{"msg": "job failed", "level": "WARN", "job_id": jobID, "company": "acme", "error_code": "NO_CAR_DETECTED"})

	for _, secret := range []string{wrongPassword, "hunter2hunter2", badToken, tok.AccessToken, tok.RefreshToken, refreshed.AccessToken, "Bearer", "Authorization"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds %.20q", secret)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", log)
	}
}
