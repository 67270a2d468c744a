package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/syncbuf"
)

// logBuffer keeps a server's log, written from its handlers' goroutines.
type logBuffer struct{ syncbuf.Buffer }

// records parses the log's JSON lines.
func (l *logBuffer) records(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		out = append(out, rec)
	}
	return out
}

// find returns the first record with every field of want, or fails.
func (l *logBuffer) find(t testing.TB, want map[string]any) map[string]any {
	t.Helper()
next:
	for _, rec := range l.records(t) {
		for k, v := range want {
			if fmt.Sprint(rec[k]) != fmt.Sprint(v) {
				continue next
			}
		}
		return rec
	}
	t.Errorf("no log record with %v in:\n%s", want, l)
	return nil
}

// TestRequestLog: each request's line names the route's pattern (not the
// path with its names), the status, the error code of an error body, the
// caller once its token is checked and the duration; refused logins and
// lockouts are logged at WARN with the username; no password, token or
// Authorization header is ever logged, even at DEBUG.
func TestRequestLog(t *testing.T) {
	cfg := auth.DefaultConfig()
	cfg.MaxFailures = 2
	e := newEnvAuth(t, cfg)
	e.addUser("acme", "alice")
	const wrong = "not-the-Pa55word"
	e.do("POST", "/auth/login", jsonBody(map[string]string{"username": "alice", "password": wrong, "system": "showroom"}), nil).
		wantError(403, showroom.EInvalidCredentials)
	e.do("POST", "/auth/login", jsonBody(map[string]string{"username": "alice", "password": wrong, "system": "showroom"}), nil).
		wantError(403, showroom.EInvalidCredentials)
	e.do("POST", "/auth/login", jsonBody(map[string]string{"username": "alice", "password": testPassword, "system": "showroom"}), nil).
		wantError(429, showroom.ETooManyRequests)
	e.do("POST", "/auth/login", jsonBody(map[string]string{"username": strings.Repeat("x", 5000), "password": wrong, "system": "showroom"}), nil).
		wantError(403, showroom.EInvalidCredentials)
	e.addUser("acme", "bob")
	tok := e.login("bob")
	const forged = "eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJib2IifQ.Zm9yZ2Vk"
	e.do("GET", "/v1/me", nil, map[string]string{"Authorization": "Bearer " + forged}).wantError(401, showroom.EInvalidToken)
	e.do("GET", "/v1/content/nosuch", nil, map[string]string{"Authorization": "Bearer " + tok.AccessToken}).wantError(404, showroom.EContentNotFound)
	e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": forged}), nil).wantError(401, showroom.EInvalidToken)

	l := e.logs
	for _, want := range []map[string]any{
		{"msg": "request", "method": "POST", "route": "POST /login", "status": 403, "error_code": showroom.EInvalidCredentials},
		{"msg": "request", "route": "POST /login", "status": 429, "error_code": showroom.ETooManyRequests},
		{"msg": "request", "route": "POST /login", "status": 200, "company": "acme", "user": "bob"},
		{"msg": "request", "route": "GET /v1/me", "status": 401, "error_code": showroom.EInvalidToken},
		{"msg": "request", "route": "GET /v1/content/{contentName}", "status": 404, "error_code": showroom.EContentNotFound, "company": "acme", "user": "bob"},
		{"msg": "request", "route": "POST /refresh", "status": 401, "error_code": showroom.EInvalidToken},
		{"msg": "login failed", "level": "WARN", "username": "alice", "remote": "127.0.0.1"},
		{"msg": "login refused: too many failed logins", "level": "WARN", "username": "alice", "retry_after_s": 900},
		{"msg": "login failed", "level": "WARN", "username": strings.Repeat("x", 128) + "…"},
	} {
		rec := l.find(t, want)
		if rec == nil || rec["msg"] != "request" {
			continue
		}
		if rec["request_id"] == nil || rec["duration_ms"] == nil || rec["path"] != nil {
			t.Errorf("request line %v: want request_id and duration_ms, no path", rec)
		}
	}
	if rec := l.find(t, map[string]any{"route": "GET /v1/me", "status": 401}); rec != nil && (rec["user"] != nil || rec["company"] != nil) {
		t.Errorf("a refused token's line names a caller: %v", rec)
	}
	log := l.String()
	for _, secret := range []string{wrong, testPassword, forged, tok.AccessToken, tok.RefreshToken, "Bearer", "Authorization", "nosuch"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds %.24q", secret)
		}
	}
	if strings.Count(log, strings.Repeat("x", 129)) > 0 {
		t.Error("a 5000-byte username is logged whole")
	}
}
