package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/syncbuf"
)

// run runs the program with args and stdin, as a user would from a shell,
// and returns what it printed.
func run(t testing.TB, env map[string]string, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut syncbuf.Buffer
	m := &Main{
		Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut,
		Getenv: testGetenv(env),
	}
	err = m.Run(context.Background(), args)
	return out.String(), errOut.String(), err
}

// startServer runs `showroom <args>` until the test ends and returns its
// base URL and output.
func startServer(t testing.TB, env map[string]string, args ...string) (string, *syncbuf.Buffer) {
	t.Helper()
	var errOut syncbuf.Buffer
	return startServerLogging(t, env, &errOut, args...)
}

// startServerLogging is startServer with the server's log written to
// errOut, which a failure prints if it can.
func startServerLogging(t testing.TB, env map[string]string, errOut io.Writer, args ...string) (string, *syncbuf.Buffer) {
	t.Helper()
	logText := func() string {
		if s, ok := errOut.(fmt.Stringer); ok {
			return s.String()
		}
		return "(the log is not kept)"
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out syncbuf.Buffer
	ready := make(chan string, 1)
	m := &Main{
		Stdin: strings.NewReader(""), Stdout: &out, Stderr: errOut,
		Getenv: testGetenv(env),
		ready:  func(base string) { ready <- base },
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx, args) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server stopped with %v; stderr:\n%s", err, logText())
		}
	})
	select {
	case base := <-ready:
		return base, &out
	case err := <-done:
		// The cleanup waits for the server's end too: hand it back, or a
		// server that failed to start hangs the test until its timeout.
		done <- nil
		t.Fatalf("server did not start: %v\n%s", err, logText())
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not start in 30s\n%s", logText())
	}
	return "", nil
}

func post(t testing.TB, url string, body any, into any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	res, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if into != nil {
		data, _ := io.ReadAll(res.Body)
		if err := json.Unmarshal(data, into); err != nil {
			t.Fatalf("POST %s: %d %s", url, res.StatusCode, data)
		}
	}
	return res.StatusCode
}

func get(t testing.TB, url, token string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

type tokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
}

// TestServeEndToEnd sets up a company and a user with the admin commands,
// starts `showroom serve` on a random port and logs in, refreshes and calls
// the API, as the README tells a new user to.
func TestServeEndToEnd(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir} // flags fall back to the environment
	if out, _, err := run(t, env, "", "admin", "company", "add", "acme"); err != nil || !strings.Contains(out, "acme") {
		t.Fatalf("company add: %q, %v", out, err)
	}
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--log-format", "text")

	var tok tokens
	if code := post(t, base+"/auth/login", map[string]string{"username": "alice", "password": "hunter2hunter2", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login: %d", code)
	}
	if tok.TokenType != "bearer" || tok.ExpiresIn != 86400 || tok.AccessToken == "" || tok.RefreshToken == "" {
		t.Fatalf("token response %+v", tok)
	}
	if code, body := get(t, base+"/v1/me", tok.AccessToken); code != 200 || !strings.Contains(string(body), `"company":"acme"`) {
		t.Errorf("/v1/me: %d %s", code, body)
	}
	var fresh tokens
	if code := post(t, base+"/auth/refresh", map[string]string{"refresh_token": tok.RefreshToken}, &fresh); code != 200 || fresh.AccessToken == "" {
		t.Errorf("refresh: %d %+v", code, fresh)
	}
	var errBody map[string]any
	if code := post(t, base+"/auth/login", map[string]string{"username": "alice", "password": "wrong", "system": "showroom"}, &errBody); code != 403 || errBody["errorCode"] != "INVALID_CREDENTIALS" {
		t.Errorf("wrong password: %d %v", code, errBody)
	}
	if code, body := get(t, base+"/auth/.well-known/jwks.json", ""); code != 200 || !strings.Contains(string(body), `"Ed25519"`) {
		t.Errorf("jwks: %d %s", code, body)
	}
	for _, p := range []string{"/healthz", "/auth/healthz"} {
		if code, _ := get(t, base+p, ""); code != 200 {
			t.Errorf("%s: %d", p, code)
		}
	}
	waitReady(t, base) // once the engine is warmed up

	// A password change through admin revokes the refresh token at once,
	// while the server runs.
	if _, _, err := run(t, env, "another password\n", "admin", "user", "passwd", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	if code := post(t, base+"/auth/refresh", map[string]string{"refresh_token": tok.RefreshToken}, &errBody); code != 401 || errBody["errorCode"] != "INVALID_TOKEN" {
		t.Errorf("refresh after passwd: %d %v", code, errBody)
	}
	// (The access token is refused too, within auth.UserCheckInterval:
	// TestSplitRoles waits for that.)
	if code := post(t, base+"/auth/login", map[string]string{"username": "alice", "password": "another password", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login with the new password: %d", code)
	}
	// Rotation: the running server's old tokens keep working.
	if out, _, err := run(t, env, "", "admin", "rotate-keys"); err != nil || !strings.Contains(out, "new signing key") {
		t.Fatalf("rotate-keys: %q %v", out, err)
	}
	if code, _ := get(t, base+"/v1/me", tok.AccessToken); code != 200 {
		t.Errorf("old access token after rotation: %d", code)
	}
}

// TestSplitRoles runs the auth service and the API as separate processes'
// worth of Main: the API verifies tokens through the auth service's JWKS.
func TestSplitRoles(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	run(t, env, "", "admin", "--data-dir", dir, "company", "add", "acme")
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "--data-dir", dir, "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	authURL, _ := startServer(t, env, "auth", "--addr", "127.0.0.1:0", "--data-dir", dir)
	metricsAddr := freePort(t)
	apiURL, _ := startServer(t, env, "api", "--addr", "127.0.0.1:0", "--data-dir", dir, "--auth-url", authURL, "--metrics-addr", metricsAddr,
		"--max-pixels", "10000")
	// With an address of their own, the metrics are there and only there.
	if code, body := get(t, "http://"+metricsAddr+"/metrics", ""); code != 200 || !strings.Contains(string(body), "showroom_queue_depth") {
		t.Errorf("metrics on --metrics-addr: %d %.200s", code, body)
	}
	if code, _ := get(t, apiURL+"/metrics", ""); code != 404 {
		t.Errorf("/metrics on the API's address with --metrics-addr set: %d, want 404", code)
	}
	var tok tokens
	if code := post(t, authURL+"/login", map[string]string{"username": "alice", "password": "hunter2hunter2", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login at the auth service's root: %d", code)
	}
	if code, body := get(t, apiURL+"/v1/me", tok.AccessToken); code != 200 {
		t.Errorf("API alone: %d %s", code, body)
	}
	if code, _ := get(t, apiURL+"/v1/me", tok.RefreshToken); code != 401 {
		t.Errorf("refresh token as access token: %d", code)
	}
	// The API checks a photo's pixels before queueing it, as serve does:
	// an asynchronous request over --max-pixels is refused at once, not
	// accepted to fail on a worker.
	var photo bytes.Buffer
	png.Encode(&photo, image.NewNRGBA(image.Rect(0, 0, 101, 100)))
	req, _ := http.NewRequest("POST", apiURL+"/v1/process/single/default_white?async=true", &photo)
	req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 413 || !strings.Contains(string(body), `"errorCode":"PAYLOAD_TOO_LARGE"`) {
		t.Errorf("async photo over --max-pixels to the API alone: %d %s, want 413 PAYLOAD_TOO_LARGE", res.StatusCode, body)
	}
	if code, body := get(t, apiURL+"/v1/process/jobs", tok.AccessToken); code != 200 || strings.Contains(string(body), `"id"`) {
		t.Errorf("jobs after the refused photo: %d %s, want none", code, body)
	}

	// The API reads the user's changes from the database it shares with
	// the auth service: access tokens issued before a password change,
	// and all of a deleted user's, are refused within auth.UserCheckInterval.
	refusedWithin := func(what, token string) {
		t.Helper()
		deadline := time.Now().Add(auth.UserCheckInterval + 3*time.Second)
		for {
			code, body := get(t, apiURL+"/v1/me", token)
			if code == 401 && strings.Contains(string(body), `"errorCode":"INVALID_TOKEN"`) && strings.Contains(string(body), "revoked") {
				return
			}
			if code != 200 || time.Now().After(deadline) {
				t.Fatalf("%s: %d %s, want 401 INVALID_TOKEN within %v", what, code, body, auth.UserCheckInterval)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	if _, _, err := run(t, env, "another password\n", "admin", "--data-dir", dir, "user", "passwd", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	refusedWithin("access token after passwd", tok.AccessToken)
	if code := post(t, authURL+"/login", map[string]string{"username": "alice", "password": "another password", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login with the new password: %d", code)
	}
	if code, body := get(t, apiURL+"/v1/me", tok.AccessToken); code != 200 {
		t.Errorf("access token issued after passwd: %d %s", code, body)
	}
	if out, _, err := run(t, env, "", "admin", "--data-dir", dir, "user", "delete", "--username", "alice"); err != nil || !strings.Contains(out, "deleted") {
		t.Fatalf("user delete: %q %v", out, err)
	}
	refusedWithin("access token of a deleted user", tok.AccessToken)
}

// TestWorkerServesProbes: a worker answers /healthz, /readyz (its
// database, blob folder, model and the data directory's disk, each named) and /metrics on its --addr,
// and says where at start; with --metrics-addr the metrics move there.
func TestWorkerServesProbes(t *testing.T) {
	if _, err := os.Stat(filepath.Join(defaultModelDir(), "u2netp.onnx")); err != nil {
		t.Skipf("skipping: no model files in %s; run 'make models'", defaultModelDir())
	}
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp", "SHOWROOM_WARM_UP": "0"}
	base, out := startServer(t, env, "worker", "--addr", "127.0.0.1:0")
	if !strings.Contains(out.String(), "worker is running 2 jobs at a time; /healthz, /readyz and /metrics on "+base) {
		t.Errorf("worker's start line %q does not name its address %s", out.String(), base)
	}
	if !readyWithin(base, 30*time.Second) {
		t.Fatal("worker not ready in 30 s")
	}
	code, body := get(t, base+"/readyz", "")
	var ready struct {
		Status string            `json:"status"`
		Checks map[string]string `json:"checks"`
	}
	json.Unmarshal(body, &ready)
	if code != 200 || ready.Status != "ready" || len(ready.Checks) != 4 || ready.Checks["database"] != "ok" ||
		ready.Checks["blobs"] != "ok" || ready.Checks["model"] != "ok" || ready.Checks["disk"] != "ok" {
		t.Errorf("worker /readyz: %d %s, want 200 with database, blobs, model and disk ok", code, body)
	}
	if code, body := get(t, base+"/healthz", ""); code != 200 || !strings.Contains(string(body), `"ok"`) {
		t.Errorf("worker /healthz: %d %s", code, body)
	}
	if code, body := get(t, base+"/metrics", ""); code != 200 || !strings.Contains(string(body), "showroom_jobs_running") {
		t.Errorf("worker /metrics: %d %.200s", code, body)
	}
	// The blob folder gone: not ready, naming it.
	os.RemoveAll(filepath.Join(dir, "blobs"))
	if code, body := get(t, base+"/readyz", ""); code != 503 || !strings.Contains(string(body), `"blobs":"unreachable"`) {
		t.Errorf("worker /readyz without its blob folder: %d %s, want 503 naming the blobs", code, body)
	}

	metricsAddr := freePort(t)
	base2, out2 := startServer(t, env, "worker", "--addr", "127.0.0.1:0", "--metrics-addr", metricsAddr)
	if !strings.Contains(out2.String(), "/healthz and /readyz on "+base2) {
		t.Errorf("worker's start line with --metrics-addr: %q", out2.String())
	}
	if code, _ := get(t, base2+"/metrics", ""); code != 404 {
		t.Errorf("/metrics on --addr with --metrics-addr set: %d, want 404", code)
	}
	if code, _ := get(t, "http://"+metricsAddr+"/metrics", ""); code != 200 {
		t.Errorf("/metrics on --metrics-addr: %d", code)
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir}
	base, out := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--demo")
	text := out.String()
	i := strings.Index(text, "password ")
	if i < 0 || !strings.Contains(text, "curl -s -X POST "+base+"/auth/login") {
		t.Fatalf("demo output lacks credentials or curl line:\n%s", text)
	}
	password := strings.Fields(text[i+len("password "):])[0]
	var tok tokens
	if code := post(t, base+"/auth/login", map[string]string{"username": "demo", "password": password, "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("demo login: %d", code)
	}
}

func TestDemoReusesData(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_DEMO": "true"}
	ctx, cancel := context.WithCancel(context.Background())
	var out1 syncbuf.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out1, Stderr: io.Discard, Getenv: testGetenv(env),
		ready: func(string) { cancel() }}
	if err := m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	_, out2 := startServer(t, env, "serve", "--addr", "127.0.0.1:0")
	pw := func(s string) string {
		i := strings.Index(s, "password ")
		if i < 0 {
			t.Fatalf("no password in %q", s)
		}
		return strings.Fields(s[i+9:])[0]
	}
	if pw(out1.String()) != pw(out2.String()) {
		t.Errorf("second run printed a different demo password")
	}
}

func TestCommandLineErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		env   map[string]string
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"no command", nil, "", nil, 2, "Usage"},
		{"unknown command", nil, "", []string{"frobnicate"}, 2, "unknown command"},
		{"bad flag", nil, "", []string{"serve", "--nope"}, 2, "unknown flag --nope"},
		{"bad env duration", map[string]string{"SHOWROOM_SHUTDOWN_TIMEOUT": "soon"}, "", []string{"serve"}, 2, "SHOWROOM_SHUTDOWN_TIMEOUT"},
		{"bad log format", nil, "", []string{"serve", "--log-format", "xml", "--data-dir", dir}, 2, "log-format"},
		{"company share over the queue", nil, "", []string{"api", "--data-dir", dir, "--addr", "127.0.0.1:0", "--queue-length", "8", "--company-queue-share", "9"}, 1, "share of the queue"},
		{"malformed blob URL", nil, "", []string{"worker", "--data-dir", dir, "--blob-url", "s3://Not_A_Bucket"}, 2, "bucket name"},
		{"blob URL not s3", map[string]string{"SHOWROOM_BLOB_URL": "file:///srv/blobs"}, "", []string{"api", "--data-dir", dir, "--addr", "127.0.0.1:0"}, 2, "not an s3:// URL"},
		{"process, malformed blob URL", nil, "", []string{"process", "--data-dir", dir, "--config", "x", "--company", "acme", "--blob-url", "s3://b?region=eu-west-1&speed=fast", "main_test.go"}, 2, "unknown parameter"},
		{"admin without command", nil, "", []string{"admin", "--data-dir", dir}, 2, "no command"},
		{"user add without company", nil, "pw", []string{"admin", "--data-dir", dir, "user", "add", "--username", "x"}, 2, "--company"},
		{"user in missing company", nil, "long enough\n", []string{"admin", "--data-dir", dir, "user", "add", "--company", "nope", "--username", "x"}, 1, "does not exist"},
		{"short password", nil, "short\n", []string{"admin", "--data-dir", dir, "user", "add", "--company", "nope", "--username", "x"}, 1, "8 to 1024"},
		{"no password", nil, "", []string{"admin", "--data-dir", dir, "user", "passwd", "--username", "x"}, 1, "no password"},
		{"passwd unknown user", nil, "long enough\n", []string{"admin", "--data-dir", dir, "user", "passwd", "--username", "ghost"}, 1, "not found"},
		{"delete without username", nil, "", []string{"admin", "--data-dir", dir, "user", "delete"}, 2, "--username"},
		{"delete unknown user", nil, "", []string{"admin", "--data-dir", dir, "user", "delete", "--username", "ghost"}, 1, "not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := run(t, tc.env, tc.stdin, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if got := exitCode(err); got != tc.code {
				t.Errorf("exit code %d, want %d (%v)", got, tc.code, err)
			}
			if !strings.Contains(err.Error()+stderr, tc.want) {
				t.Errorf("error %q / stderr %q lacks %q", err, stderr, tc.want)
			}
		})
	}
	if out, _, err := run(t, nil, "", "version"); err != nil || !strings.HasPrefix(out, "showroom ") {
		t.Errorf("version: %q %v", out, err)
	}
}

// TestAdminOpensNothingUntilItMust: help and bad arguments to an admin
// command leave the data directory alone; before, the database was
// created before the command's flags were read, and `admin user add
// --help` left a ./data behind.
func TestAdminOpensNothingUntilItMust(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	for _, args := range [][]string{
		{"user", "add", "--help"},
		{"user", "add", "--company", "acme"},
		{"user", "passwd"},
		{"user", "delete"},
		{"company", "add"},
		{"company", "add", "a", "b"},
		{"credits", "add", "--help"},
		{"credits", "set", "--company", "acme", "-5"},
		{"credits", "show"},
		{"frobnicate"},
	} {
		_, _, err := run(t, nil, "", append([]string{"admin", "--data-dir", dir}, args...)...)
		if err != nil && exitCode(err) != 2 {
			t.Errorf("admin %v: %v, want help or a usage error", args, err)
		}
		if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("admin %v touched the data directory: %v", args, err)
		}
	}
}

func TestAdminCredits(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir}
	run(t, env, "", "admin", "company", "add", "acme")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"credits", "show", "--company", "acme"}, "unlimited"},
		{[]string{"credits", "set", "--company", "acme", "10"}, "balance 10"},
		{[]string{"credits", "add", "--company", "acme", "5"}, "balance 15"},
		{[]string{"credits", "add", "--company", "acme", "--", "-3"}, "balance 12"}, // a negative amount after --
		{[]string{"credits", "set", "--company", "acme", "--unlimited"}, "unlimited"},
	} {
		out, _, err := run(t, env, "", append([]string{"admin"}, tc.args...)...)
		if err != nil || !strings.Contains(out, tc.want) {
			t.Errorf("%v: %q, %v; want %q", tc.args, out, err, tc.want)
		}
	}
	for _, args := range [][]string{
		{"credits", "add", "--company", "acme", "5"},                // unlimited: nothing to add to
		{"credits", "set", "--company", "acme", "-1"},               // negative
		{"credits", "set", "--company", "acme", "x"},                // not a number
		{"credits", "set", "--company", "nope", "1"},                // no such company
		{"credits", "set", "--company", "acme", "--unlimited", "3"}, // both
	} {
		if _, _, err := run(t, env, "", append([]string{"admin"}, args...)...); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

func TestMakefileMallocTunables(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"export GLIBC_TUNABLES ?= " + mallocTunables, "export GODEBUG ?= " + goDebug, "export GOGC ?= " + gcPercent} {
		if !strings.Contains(string(mk), line+"\n") {
			t.Errorf("the Makefile lacks %q (cmd/showroom/tunables.go)", line)
		}
	}
}

// testGetenv reads the environment from env, with the warm-up off unless
// env sets it: it costs seconds at every start, and the tests about it ask
// for it.
func testGetenv(env map[string]string) func(string) string {
	return func(k string) string {
		if v, ok := env[k]; ok || k != "SHOWROOM_WARM_UP" {
			return v
		}
		return "0"
	}
}

// waitReady polls /readyz until it answers 200.
func waitReady(t testing.TB, base string) {
	t.Helper()
	if !readyWithin(base, 2*time.Minute) {
		t.Fatalf("%s/readyz not ready in 2 minutes", base)
	}
}

// readyWithin polls /readyz until it answers 200, for at most d.
func readyWithin(base string, d time.Duration) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return true
			}
		}
	}
	return false
}

// TestServeSaysWhenReady: 'showroom serve' (make run) says it is starting
// when its port opens and "ready", with the console's and the API's
// addresses, only once /readyz answers 200 (the model loads first).
func TestServeSaysWhenReady(t *testing.T) {
	requireModel(t, "u2netp")
	env := map[string]string{"SHOWROOM_DATA_DIR": t.TempDir(), "SHOWROOM_MODEL": "u2netp"}
	base, out := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--demo")
	if !strings.HasPrefix(out.String(), "Showroom is starting on "+base+";") {
		t.Errorf("serve's first line is not the start line: %q", out.String())
	}
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), "Showroom is ready:") {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not say ready in 60 s:\n%s", out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, body := get(t, base+"/readyz", ""); code != 200 {
		t.Errorf("serve said ready while /readyz answers %d %s", code, body)
	}
	text := out.String()
	want := "\nShowroom is ready:\n  console:  " + base + "/\n  auth_url: " + base + "/auth\n  base_url: " + base + "\n"
	if !strings.HasSuffix(text, want) {
		t.Errorf("serve's output does not end with\n%s\nit is:\n%s", want, text)
	}
	if strings.Index(text, "Demo login") > strings.Index(text, "Showroom is ready:") {
		t.Errorf("the demo login comes after the ready banner:\n%s", text)
	}
	if code, body := get(t, base+"/", ""); code != 200 || !strings.Contains(string(body), "<html") {
		t.Errorf("the console's address %s/ answers %d %.100s", base, code, body)
	}
}
