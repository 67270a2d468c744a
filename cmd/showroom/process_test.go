package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the program as a child process: the test binary
// re-executes itself with SHOWROOM_TEST_MAIN set to the arguments, so a
// test can kill a real serving process without building another binary.
func TestMain(m *testing.M) {
	if args := os.Getenv("SHOWROOM_TEST_MAIN"); args != "" {
		os.Args = append([]string{"showroom"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// devPhotos returns the dev photos, or skips the test when the shared test
// data or the model files are not there.
func devPhotos(t *testing.T, n int) []string {
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

func freePort(t *testing.T) string {
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
	out *syncBuffer
}

func startChild(t *testing.T, env []string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env...), "SHOWROOM_TEST_MAIN="+strings.Join(args, " "))
	out := &syncBuffer{}
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

func waitHealthy(t *testing.T, base string, c *child) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("server did not become ready:\n%s", c.out.String())
}

// api is a logged-in client of a test server.
type api struct {
	t     *testing.T
	base  string
	token string
}

func login(t *testing.T, base, user, password string) *api {
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
func setupCompany(t *testing.T, dir string, credits int) {
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
