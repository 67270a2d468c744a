package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/syncbuf"
)

// TestMain lets a test run the program as a child process: the test binary
// re-executes itself with SHOWROOM_TEST_MAIN set to the arguments, so a
// test can kill a real serving process without building another binary.
// Otherwise it runs the tests.
func TestMain(m *testing.M) {
	if args := os.Getenv("SHOWROOM_TEST_MAIN"); args != "" {
		os.Args = append([]string{"showroom"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	pgtest.Main(m) // drops the database PostgreSQL tests made, if any
}

// largePhotos returns the bytes of the 12 MP photos, or skips the test
// when the shared test data is not there.
func largePhotos(t testing.TB) [][]byte {
	t.Helper()
	paths, _ := filepath.Glob("../../../shared/testdata/large/*.jpg")
	if len(paths) == 0 {
		t.Skip("skipping: ../shared/testdata/large is not there (the 12 MP photos are not in the repository)")
	}
	var photos [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		photos = append(photos, b)
	}
	return photos
}

// devPhotos returns the dev photos, or skips the test when the shared test
// data or the model files are not there.
func devPhotos(t testing.TB, n int) []string {
	t.Helper()
	photos, _ := filepath.Glob("../../../shared/testdata/cars/*.jpg")
	if len(photos) == 0 {
		t.Skip("skipping: ../shared/testdata/cars is not there (the dev photos are not in the repository)")
	}
	if _, err := os.Stat(filepath.Join(defaultModelDir(), "u2netp.onnx")); err != nil {
		t.Skipf("skipping: no model files in %s; run 'make models'", defaultModelDir())
	}
	return photos[:min(n, len(photos))]
}

func freePort(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// child is the program running as a separate process.
type child struct {
	cmd *exec.Cmd
	out *syncbuf.Buffer
}

func startChild(t testing.TB, env []string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	// No warm-up unless env asks for one (a later entry wins): it costs
	// seconds at every start.
	cmd.Env = append(append(os.Environ(), "SHOWROOM_WARM_UP=0"), env...)
	cmd.Env = append(cmd.Env, "SHOWROOM_TEST_MAIN="+strings.Join(args, " "))
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, out: out}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

func waitHealthy(t testing.TB, base string, c *child) {
	t.Helper()
	if !readyWithin(base, 60*time.Second) {
		t.Fatalf("server did not become ready:\n%s", c.out.String())
	}
}

// api is a logged-in client of a test server.
type api struct {
	t     testing.TB
	base  string
	token string
}

func login(t testing.TB, base, user, password string) *api {
	t.Helper()
	var tok tokens
	if code := post(t, base+"/auth/login", map[string]string{"username": user, "password": password, "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login: %d", code)
	}
	return &api{t: t, base: base, token: tok.AccessToken}
}

func (a *api) do(method, path string, body []byte, header map[string]string) (*http.Response, []byte) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+a.token)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

type jobView struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	Cost     int64  `json:"cost"`
	Error    *struct {
		Code string `json:"errorCode"`
	} `json:"error"`
}

func (a *api) job(id string) jobView {
	a.t.Helper()
	res, b := a.do("GET", "/v1/process/jobs/"+id, nil, nil)
	if res.StatusCode != 200 {
		a.t.Fatalf("job %s: %d %s", id, res.StatusCode, b)
	}
	var j jobView
	json.Unmarshal(b, &j)
	return j
}

type usageView struct {
	Unlimited bool   `json:"unlimited"`
	Balance   *int64 `json:"balance"`
	Charges   []struct {
		JobID  string `json:"jobId"`
		Amount int64  `json:"amount"`
	} `json:"recentCharges"`
}

func (a *api) usage() usageView {
	a.t.Helper()
	res, b := a.do("GET", "/v1/usage", nil, nil)
	if res.StatusCode != 200 {
		a.t.Fatalf("usage: %d %s", res.StatusCode, b)
	}
	var u usageView
	json.Unmarshal(b, &u)
	return u
}

// setupCompany makes company acme with user alice and a finite balance.
func setupCompany(t testing.TB, dir string, credits int) {
	t.Helper()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir}
	run(t, env, "", "admin", "company", "add", "acme")
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, env, "", "admin", "credits", "set", "--company", "acme", fmt.Sprint(credits)); err != nil {
		t.Fatal(err)
	}
}

// TestCrashSafety kills the serving process with SIGKILL while it works
// through a batch of async jobs, starts it again, and checks that every job
// succeeded once and was charged once. Then it stops the process with
// SIGTERM during a run and checks that the run finished first.
func TestCrashSafety(t *testing.T) {
	photos := devPhotos(t, 6)
	dir := t.TempDir()
	setupCompany(t, dir, 100)
	addr := freePort(t)
	base := "http://" + addr
	env := []string{"SHOWROOM_MODEL=u2netp", "SHOWROOM_DATA_DIR=" + dir}
	args := []string{"serve", "--addr", addr, "--workers", "1", "--job-timeout", "20s", "--rescue-after", "21s"}

	first := startChild(t, env, args...)
	waitHealthy(t, base, first)
	a := login(t, base, "alice", "hunter2hunter2")
	var ids []string
	for _, p := range photos {
		data, _ := os.ReadFile(p)
		res, b := a.do("POST", "/v1/process/single/default_white?async=true", data, nil)
		if res.StatusCode != 202 || !strings.HasPrefix(res.Header.Get("Location"), "/v1/process/jobs/") {
			t.Fatalf("async submit: %d %s", res.StatusCode, b)
		}
		var j jobView
		json.Unmarshal(b, &j)
		ids = append(ids, j.ID)
	}
	// Kill as soon as a job is running, and after at least one succeeded,
	// so that the restart meets finished, running and queued jobs.
	deadline := time.Now().Add(60 * time.Second)
	for {
		succeeded, running := 0, 0
		for _, id := range ids {
			switch a.job(id).Status {
			case "succeeded":
				succeeded++
			case "running":
				running++
			}
		}
		if succeeded >= 1 && running == 1 {
			break
		}
		if succeeded == len(ids) || time.Now().After(deadline) {
			t.Fatalf("could not catch a job running (succeeded %d)\n%s", succeeded, first.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.cmd.Process.Signal(syscall.SIGKILL)
	first.cmd.Wait()

	second := startChild(t, env, args...)
	waitHealthy(t, base, second)
	deadline = time.Now().Add(120 * time.Second)
	for {
		done := 0
		for _, id := range ids {
			j := a.job(id)
			if j.Status == "failed" {
				t.Fatalf("job %s failed: %+v", id, j.Error)
			}
			if j.Status == "succeeded" {
				done++
			}
		}
		if done == len(ids) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs not finished after the restart\n%s", second.out.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
	for _, id := range ids {
		res, b := a.do("GET", "/v1/process/jobs/"+id+"/result", nil, nil)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" || len(b) < 1000 {
			t.Errorf("result of %s: %d %s, %d bytes", id, res.StatusCode, res.Header.Get("Content-Type"), len(b))
		}
	}
	u := a.usage()
	cost := a.job(ids[0]).Cost
	charged := map[string]int{}
	for _, c := range u.Charges {
		charged[c.JobID]++
	}
	if u.Balance == nil || *u.Balance != 100-int64(len(ids))*cost || len(charged) != len(ids) {
		t.Errorf("after the crash: balance %v, %d charged jobs; want %d and %d", u.Balance, len(charged), 100-int64(len(ids))*cost, len(ids))
	}
	for id, n := range charged {
		if n != 1 {
			t.Errorf("job %s charged %d times", id, n)
		}
	}

	// SIGTERM while a run executes: the run finishes, then the process
	// exits cleanly.
	data, _ := os.ReadFile(photos[0])
	res, b := a.do("POST", "/v1/process/single/default_white?async=true", data, nil)
	var j jobView
	json.Unmarshal(b, &j)
	if res.StatusCode != 202 {
		t.Fatalf("submit: %d %s", res.StatusCode, b)
	}
	for a.job(j.ID).Status != "running" {
		time.Sleep(10 * time.Millisecond)
	}
	second.cmd.Process.Signal(syscall.SIGTERM)
	if err := second.cmd.Wait(); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, second.out.String())
	}
	third := startChild(t, env, args...)
	waitHealthy(t, base, third)
	if got := a.job(j.ID); got.Status != "succeeded" || got.Attempts != 1 {
		t.Errorf("job running at SIGTERM: %+v; want succeeded in its first attempt", got)
	}
}

// TestFlood pushes many concurrent synchronous requests at a small queue:
// some are refused with 503 and Retry-After, the others succeed, and the
// heap does not grow with the number of clients.
func TestFlood(t *testing.T) {
	photos := devPhotos(t, 1)
	photo, _ := os.ReadFile(photos[0])
	dir := t.TempDir()
	setupCompany(t, dir, 1000)
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--workers", "1", "--queue-length", "2", "--rate-limit", "100000")
	a := login(t, base, "alice", "hunter2hunter2")

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const clients = 40
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(context.Background(), "POST", base+"/v1/process/single/free_cutout", bytes.NewReader(photo))
			req.Header.Set("Authorization", a.token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == 503 && res.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			mu.Lock()
			codes[res.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if codes[503] == 0 || codes[200] == 0 || codes[200]+codes[503] != clients {
		t.Errorf("answers %v: want some 200 and some 503, nothing else", codes)
	}
	growth := int64(after.HeapInuse) - int64(before.HeapInuse)
	t.Logf("answers %v; heap in use %d MB before, %d MB after", codes, before.HeapInuse>>20, after.HeapInuse>>20)
	if growth > 150<<20 {
		t.Errorf("heap grew by %d MB under the flood", growth>>20)
	}
}

// TestProcessEndpoints checks every answer of the processing endpoints on
// the real program.
func TestProcessEndpoints(t *testing.T) {
	photos := devPhotos(t, 2)
	photo, _ := os.ReadFile(photos[0])
	dir := t.TempDir()
	setupCompany(t, dir, 2)
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}
	run(t, env, "", "admin", "company", "add", "other")
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "user", "add", "--company", "other", "--username", "olga"); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--rate-limit", "600", "--rate-burst", "20", "--max-photo-bytes", "2000000")
	a := login(t, base, "alice", "hunter2hunter2")
	o := login(t, base, "olga", "hunter2hunter2")

	// Synchronous: the image, with every step's time.
	res, body := a.do("POST", "/v1/process/single/free_cutout", photo, nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Fatalf("sync free_cutout: %d %s %.100q", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	st := res.Header.Get("Server-Timing")
	for _, step := range []string{"decode", "DetectCarMaskProcessor", "ModelWait", "encode"} {
		if !strings.Contains(st, step+";dur=") {
			t.Errorf("Server-Timing %q lacks %s", st, step)
		}
	}
	syncID := res.Header.Get("X-Job-ID")
	// Output format by query and by Accept.
	if res, _ := a.do("POST", "/v1/process/single/free_cutout?format=webp", photo, nil); res.Header.Get("Content-Type") != "image/webp" {
		t.Errorf("format=webp: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if res, _ := a.do("POST", "/v1/process/single/free_cutout", photo, map[string]string{"Accept": "image/jpeg"}); res.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("Accept: image/jpeg: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}

	// Asynchronous: 202, Location, then the job and its result.
	res, body = a.do("POST", "/v1/process/single/free_cutout", photo, map[string]string{"Prefer": "respond-async"})
	if res.StatusCode != 202 {
		t.Fatalf("async: %d %s", res.StatusCode, body)
	}
	var j jobView
	json.Unmarshal(body, &j)
	if res.Header.Get("Location") != "/v1/process/jobs/"+j.ID || j.Status != "queued" {
		t.Errorf("async answer: Location %q, job %+v", res.Header.Get("Location"), j)
	}
	for deadline := time.Now().Add(60 * time.Second); a.job(j.ID).Status != "succeeded"; {
		if time.Now().After(deadline) {
			t.Fatalf("async job did not finish: %+v", a.job(j.ID))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res, body := a.do("GET", "/v1/process/jobs/"+j.ID+"/result", nil, nil); res.StatusCode != 200 || !bytes.HasPrefix(body, []byte("\x89PNG")) {
		t.Errorf("result: %d", res.StatusCode)
	}

	// The job list, newest first, paginated.
	res, body = a.do("GET", "/v1/process/jobs?limit=2", nil, nil)
	var page struct {
		Jobs []jobView `json:"jobs"`
		Next string    `json:"next"`
	}
	json.Unmarshal(body, &page)
	if res.StatusCode != 200 || len(page.Jobs) != 2 || page.Jobs[0].ID != j.ID || page.Next == "" {
		t.Fatalf("job list: %d %s", res.StatusCode, body)
	}
	res, body = a.do("GET", page.Next, nil, nil)
	json.Unmarshal(body, &page)
	if res.StatusCode != 200 || len(page.Jobs) != 2 {
		t.Errorf("second page: %d %s", res.StatusCode, body)
	}

	// A failed run: a plain wall has no car.
	wall := plainJPEG(t, 640, 480)
	res, body = a.do("POST", "/v1/process/single/free_cutout", wall, nil)
	wantAPIError(t, "wall", res, body, 422, "NO_CAR_DETECTED")

	// Credits: default_white costs 1, the balance is 2.
	for i := range 3 {
		res, body = a.do("POST", "/v1/process/single/default_white", photo, nil)
		if i < 2 && res.StatusCode != 200 {
			t.Fatalf("paid run %d: %d %s", i, res.StatusCode, body)
		}
	}
	wantAPIError(t, "over the balance", res, body, 402, "INSUFFICIENT_CREDITS")
	if u := a.usage(); u.Balance == nil || *u.Balance != 0 || len(u.Charges) != 2 {
		t.Errorf("usage after two paid runs: %+v", u)
	}

	// Bad requests.
	for _, tc := range []struct {
		name, path string
		body       []byte
		header     map[string]string
		status     int
		code       string
	}{
		{"unknown configuration", "/v1/process/single/nosuch", photo, nil, 404, "CONFIGURATION_NOT_FOUND"},
		{"not an image", "/v1/process/single/free_cutout", []byte("hello, world"), nil, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"empty body", "/v1/process/single/free_cutout", nil, nil, 400, "INVALID_BODY"},
		{"truncated JPEG", "/v1/process/single/free_cutout", photo[:len(photo)/3], nil, 422, "INVALID_IMAGE"},
		{"too large", "/v1/process/single/free_cutout", append(append([]byte{}, photo...), make([]byte, 2000000)...), nil, 413, "PAYLOAD_TOO_LARGE"},
		{"pixel bomb", "/v1/process/single/free_cutout", pngBomb(t), nil, 413, "PAYLOAD_TOO_LARGE"},
		{"tiny photo", "/v1/process/single/free_cutout", tinyPNG(t, 7, 40), nil, 422, "INVALID_IMAGE"},
		// Refused from the header before anything is queued, so an async
		// request gets the same answer at once, not a 202 and a failed job.
		{"pixel bomb, async", "/v1/process/single/free_cutout?async=true", pngBomb(t), nil, 413, "PAYLOAD_TOO_LARGE"},
		{"tiny photo, async", "/v1/process/single/free_cutout?async=true", tinyPNG(t, 40, 7), nil, 422, "INVALID_IMAGE"},
		{"bad format", "/v1/process/single/free_cutout?format=gif", photo, nil, 400, "INVALID_PARAMETER"},
		{"bad quality", "/v1/process/single/free_cutout?quality=0", photo, nil, 400, "INVALID_PARAMETER"},
		{"unacceptable", "/v1/process/single/free_cutout", photo, map[string]string{"Accept": "application/pdf"}, 406, "NOT_ACCEPTABLE"},
		{"no token", "/v1/process/single/free_cutout", photo, map[string]string{"Authorization": ""}, 401, "UNAUTHORIZED"},
		{"refresh token", "/v1/process/single/free_cutout", photo, map[string]string{"Authorization": "Bearer x.y.z"}, 401, "INVALID_TOKEN"},
	} {
		res, body := a.do("POST", tc.path, tc.body, tc.header)
		wantAPIError(t, tc.name, res, body, tc.status, tc.code)
	}
	if res, body := a.do("GET", "/v1/process/single/free_cutout", nil, nil); res.StatusCode != 405 || res.Header.Get("Allow") != "POST" {
		t.Errorf("GET on the processing path: %d %s (Allow %q)", res.StatusCode, body, res.Header.Get("Allow"))
	}

	// Company isolation: another company's jobs are not found.
	for _, p := range []string{"/v1/process/jobs/" + j.ID, "/v1/process/jobs/" + j.ID + "/result", "/v1/process/jobs/" + syncID} {
		res, body := o.do("GET", p, nil, nil)
		wantAPIError(t, "other company "+p, res, body, 404, "JOB_NOT_FOUND")
	}
	if res, body := o.do("GET", "/v1/process/jobs", nil, nil); res.StatusCode != 200 || strings.Contains(string(body), j.ID) {
		t.Errorf("other company's job list shows acme's jobs: %s", body)
	}

	// The metrics saw all of it.
	code, metrics := get(t, base+"/metrics", "")
	for _, want := range []string{
		`showroom_http_requests_total{route="POST /v1/process/single/{configuration_name}",status="200"}`,
		`showroom_http_requests_total{route="POST /login",status="200"}`,
		"showroom_queue_depth 0",
		"showroom_jobs_running 0",
		`showroom_job_duration_seconds_count{status="succeeded"}`,
		`showroom_job_duration_seconds_count{status="failed"} 2`, // the wall, the truncated JPEG; the pixel bomb and the tiny photo are refused before queueing
		`showroom_processor_duration_seconds_count{processor="DetectCarMaskProcessor"}`,
		`showroom_model_inference_seconds_count{model="u2netp"}`,
		`showroom_model_wait_seconds_count{model="u2netp"}`,
		"showroom_credits_charged_total 2",
		`showroom_job_warnings_total{code="CAR_CUT_BY_FRAME"}`,
	} {
		if code != 200 || !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// No label value a tenant chose or is called: anyone who reaches
	// /metrics reads it.
	for _, secret := range []string{"acme", "other", "alice", "olga", "free_cutout", "default_white", "nosuch"} {
		if strings.Contains(string(metrics), `"`+secret+`"`) {
			t.Errorf("/metrics names %q", secret)
		}
	}
}

func TestRateLimit(t *testing.T) {
	devPhotos(t, 1)
	dir := t.TempDir()
	setupCompany(t, dir, 10)
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--rate-limit", "1", "--rate-burst", "2")
	a := login(t, base, "alice", "hunter2hunter2")
	var res *http.Response
	var body []byte
	// Refused at once yet counted (a configuration that does not exist,
	// 404, would not be).
	for range 3 {
		res, body = a.do("POST", "/v1/process/single/free_cutout?format=gif", []byte("x"), nil)
	}
	wantAPIError(t, "third request", res, body, 429, "TOO_MANY_REQUESTS")
	if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); ra < 1 {
		t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	// --rate-burst 2 at --rate-limit 1: both tokens spent, the bucket whole
	// again in under two minutes.
	if reset, _ := strconv.Atoi(res.Header.Get("RateLimit-Reset")); res.Header.Get("RateLimit-Limit") != "2" ||
		res.Header.Get("RateLimit-Remaining") != "0" || reset < 60 || reset > 120 {
		t.Errorf("429: RateLimit-Limit %q, -Remaining %q, -Reset %q; want 2, 0, up to 120", res.Header.Get("RateLimit-Limit"),
			res.Header.Get("RateLimit-Remaining"), res.Header.Get("RateLimit-Reset"))
	}
}

func wantAPIError(t testing.TB, what string, res *http.Response, body []byte, status int, code string) {
	t.Helper()
	var e map[string]any
	json.Unmarshal(body, &e)
	if res.StatusCode != status || e["errorCode"] != code || e["status"] != float64(status) || e["message"] == "" || e["timestamp"] == nil {
		t.Errorf("%s: %d %s; want %d %s", what, res.StatusCode, body, status, code)
	}
}

// pngBomb is a small PNG whose header claims 100000 x 100000 pixels: it
// must be refused from the header, before any decoding.
// tinyPNG is a w×h grey PNG.
func tinyPNG(t testing.TB, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngBomb(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1)))
	b := buf.Bytes()
	// IHDR's data starts at byte 16: width, height (big-endian), then the
	// chunk's CRC over type and data at byte 29.
	binary.BigEndian.PutUint32(b[16:], 100000)
	binary.BigEndian.PutUint32(b[20:], 100000)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// plainJPEG is a photo of a plain wall: nothing salient in it.
func plainJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = 182, 178, 170, 255
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestProcessCommand runs a batch locally, then against a running server.
func TestProcessCommand(t *testing.T) {
	photos := devPhotos(t, 2)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	bad := filepath.Join(dir, "notaphoto.jpg")
	os.WriteFile(bad, []byte("not a photo"), 0o644)
	// A predefined configuration needs no data directory: none is made.
	unused := filepath.Join(dir, "unused-data")
	env := map[string]string{"SHOWROOM_MODEL": "u2netp", "SHOWROOM_DATA_DIR": unused}

	stdout, _, err := run(t, env, "", append([]string{"process", "--config", "free_cutout", "--out", out, "--jobs", "2"}, photos...)...)
	if err != nil || !strings.Contains(stdout, "2 done, 0 already done") {
		t.Fatalf("local batch: %v\n%s", err, stdout)
	}
	if _, err := os.Stat(unused); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a local batch of free_cutout made the data directory %s (%v)", unused, err)
	}
	for _, p := range photos {
		if existingResult(out, p, "free_cutout", "") == "" {
			t.Errorf("no result for %s", p)
		}
	}
	// Existing results are not redone; a bad file named on its own fails
	// with its reason.
	stdout, _, err = run(t, env, "", append([]string{"process", "--config", "free_cutout", "--out", out}, append(photos, bad)...)...)
	if err == nil || !strings.Contains(stdout, "0 done, 2 already done") || !strings.Contains(stdout, "failed: "+bad) {
		t.Errorf("second batch: %v\n%s", err, stdout)
	}
	if _, _, err := run(t, env, "", "process", "--config", "mine", "--out", out, photos[0]); err == nil || !strings.Contains(err.Error(), "--company") {
		t.Errorf("own configuration without --company: %v", err)
	}

	// The same against a running service, --force redoing the results.
	data := filepath.Join(dir, "data")
	setupCompany(t, data, 100)
	base, _ := startServer(t, map[string]string{"SHOWROOM_DATA_DIR": data, "SHOWROOM_MODEL": "u2netp"}, "serve", "--addr", "127.0.0.1:0")
	renv := map[string]string{"SHOWROOM_PASSWORD": "hunter2hunter2"}
	stdout, _, err = run(t, renv, "", append([]string{"process", "--config", "free_cutout", "--out", out, "--force", "--format", "webp",
		"--server", base, "--username", "alice"}, photos...)...)
	if err != nil || !strings.Contains(stdout, "2 done") {
		t.Fatalf("remote batch: %v\n%s", err, stdout)
	}
	if got := existingResult(out, photos[0], "free_cutout", "webp"); got == "" {
		t.Errorf("no webp result")
	}
	if _, _, err := run(t, map[string]string{"SHOWROOM_PASSWORD": "wrong"}, "", "process", "--config", "free_cutout", "--out", out,
		"--server", base, "--username", "alice", photos[0]); err == nil || !strings.Contains(err.Error(), "INVALID_CREDENTIALS") {
		t.Errorf("wrong password: %v", err)
	}
	// An unknown configuration fails before a photo is sent or the
	// results' folder is made.
	fresh := filepath.Join(dir, "fresh")
	if _, _, err := run(t, renv, "", "process", "--config", "NoSuchConfiguration", "--out", fresh,
		"--server", base, "--username", "alice", photos[0]); err == nil || !strings.Contains(err.Error(), "CONFIGURATION_NOT_FOUND") {
		t.Errorf("unknown configuration on a server: %v, want CONFIGURATION_NOT_FOUND", err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("process made %s before failing on an unknown configuration (%v)", fresh, err)
	}
}

// TestDisconnectCancelsSyncJob hangs up on a synchronous call while its job
// runs and checks that the job is cancelled rather than run for nobody.
func TestDisconnectCancelsSyncJob(t *testing.T) {
	devPhotos(t, 1)
	photo := largePhotos(t)[0] // 12 MP: a run long enough to hang up in
	dir := t.TempDir()
	setupCompany(t, dir, 10)
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--workers", "1")
	a := login(t, base, "alice", "hunter2hunter2")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+"/v1/process/single/default_white", bytes.NewReader(photo))
		req.Header.Set("Authorization", a.token)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	var id string
	for deadline := time.Now().Add(30 * time.Second); id == ""; {
		_, body := a.do("GET", "/v1/process/jobs", nil, nil)
		var page struct{ Jobs []jobView }
		json.Unmarshal(body, &page)
		if len(page.Jobs) == 1 && page.Jobs[0].Status == "running" {
			id = page.Jobs[0].ID
		} else if time.Now().After(deadline) {
			t.Fatalf("the job never ran: %s", body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	for deadline := time.Now().Add(10 * time.Second); ; {
		j := a.job(id)
		if j.Status == "failed" {
			if j.Error == nil || j.Error.Code != "CANCELLED" {
				t.Errorf("cancelled job: %+v", j)
			}
			break
		}
		if j.Status == "succeeded" || time.Now().After(deadline) {
			t.Fatalf("job after the client hung up: %+v", j)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if u := a.usage(); *u.Balance != 10 {
		t.Errorf("a cancelled job was charged: balance %d", *u.Balance)
	}
}
