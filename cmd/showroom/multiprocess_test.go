package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // results of the cut-out configuration
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/showroom/showroom/internal/blob/blobtest"
	"github.com/showroom/showroom/internal/cluster"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/postgres/pgtest"
)

// TestMultiProcess runs Showroom as a scaled-out deployment does: one auth
// service, two API replicas and two workers, each a process of the built
// binary on a loopback port of its own, sharing one PostgreSQL database and
// one S3 bucket. Forty asynchronous jobs go round-robin to both APIs; one
// worker is killed with SIGKILL while it runs a job and another is
// started. Every job must then succeed exactly once, none is lost, credits
// are charged once a job, and every result reads the same from either API.
func TestMultiProcess(t *testing.T) {
	const jobs = 40
	const credits = 1000
	start := time.Now()
	dbURL := pgtest.URL(t)
	s3 := blobtest.StartS3(t)
	requireModelFile(t, "u2netp.onnx")
	bin := buildShowroom(t)
	t.Logf("built the binary in %v", time.Since(start).Round(time.Millisecond))

	// The cheap model, one thread a worker: two workers share the two
	// cores, and the test stays well under a minute.
	cl := startCluster(t, bin, dbURL, s3, credits, "SHOWROOM_MODEL=u2netp", "SHOWROOM_ORT_THREADS=1", "SHOWROOM_WARM_UP=0")
	auth, err := cl.StartAuth("auth")
	if err != nil {
		t.Fatal(err)
	}
	// The whole batch may wait in the queue at once: admission is not
	// what this test is about.
	queue := []string{"--queue-length", fmt.Sprint(jobs), "--company-queue-share", fmt.Sprint(jobs)}
	var apis []*api
	for i := range 2 {
		p, err := cl.StartAPI(fmt.Sprintf("api%d", i+1), auth.URL, queue...)
		if err != nil {
			t.Fatal(err)
		}
		apis = append(apis, &api{t: t, base: p.URL})
	}
	// A killed worker's job is retried once --rescue-after has passed and
	// River's rescuer, which runs on the elected leader, next looks. The
	// one company may use both workers (--company-workers): this test is
	// about a crash, and a job held back under the cap is snoozed by its
	// worker, which, killed before River recorded the snooze, leaves it
	// for the rescuer too.
	workerArgs := []string{"--workers", "1", "--company-workers", "2", "--job-timeout", "10s", "--rescue-after", "12s"}
	worker1, err := cl.StartWorker("worker1", workerArgs...)
	if err != nil {
		t.Fatal(err)
	}
	db := connect(t, dbURL)
	// Started alone, worker1 is the queue's leader; its River client id
	// tells its jobs from the other worker's.
	worker1ID := riverLeader(t, db)
	if _, err := cl.StartWorker("worker2", workerArgs...); err != nil {
		t.Fatal(err)
	}

	logIn(t, auth.URL, apis...)
	// Saved through one API, used through both: the other replica must
	// see it at once.
	config := `[{"processorName": "DetectCarMaskProcessor"}, {"processorName": "ResizeProcessor", "width": 240}]`
	if res, body := apis[0].do("POST", "/v1/configuration/cutout", []byte(config), map[string]string{"Content-Type": "application/json"}); res.StatusCode != 201 {
		t.Fatalf("save configuration: %d %s", res.StatusCode, body)
	}
	before := apis[1].usage()
	if before.Balance == nil || *before.Balance != credits {
		t.Fatalf("balance before the batch: %+v, want %d", before, credits)
	}
	photos := drawnCars(t)

	t.Logf("cluster up after %v", time.Since(start).Round(time.Millisecond))
	ids := make([]string, jobs)
	for i := range ids {
		a := apis[i%2]
		res, body := a.do("POST", "/v1/process/single/cutout?async=true", photos[i%len(photos)], map[string]string{"Content-Type": "image/jpeg"})
		var j jobView
		if res.StatusCode != 202 || json.Unmarshal(body, &j) != nil || j.Status != "queued" {
			t.Fatalf("job %d via %s: %d %s", i, a.base, res.StatusCode, body)
		}
		if loc := res.Header.Get("Location"); loc != "/v1/process/jobs/"+j.ID {
			t.Errorf("job %d: Location %q", i, loc)
		}
		ids[i] = j.ID
	}

	// Mid-batch: once a few jobs are done, kill worker1 while River says
	// it runs one, and start another worker.
	killed := waitRunningOn(t, db, worker1ID, 4)
	cl.Kill(worker1)
	killedAt := time.Since(start)
	// The job may have finished in the instant between the look and the
	// kill; then no job was interrupted and the test says so below.
	interrupted := riverState(t, db, killed) == "running"
	if _, err := cl.StartWorker("worker3", workerArgs...); err != nil {
		t.Fatal(err)
	}

	// Every job ends, read in turns through both APIs.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		done := 0
		for i, id := range ids {
			switch j := apis[i%2].job(id); j.Status {
			case "succeeded":
				done++
			case "failed":
				t.Fatalf("job %s failed: %+v", id, j)
			}
		}
		if done == jobs {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d jobs succeeded in 2 minutes after the batch", done, jobs)
		}
	}
	t.Logf("all %d jobs succeeded %v after the start, %v after the kill",
		jobs, time.Since(start).Round(time.Millisecond), (time.Since(start) - killedAt).Round(time.Millisecond))

	// Nothing lost, nothing extra: the job list of either API holds the
	// batch, each succeeded, each charged once.
	for _, a := range apis {
		res, body := a.do("GET", "/v1/process/jobs?limit=100", nil, nil)
		var page struct {
			Jobs []jobView `json:"jobs"`
		}
		if res.StatusCode != 200 || json.Unmarshal(body, &page) != nil {
			t.Fatalf("job list via %s: %d %s", a.base, res.StatusCode, body)
		}
		var listed []string
		for _, j := range page.Jobs {
			listed = append(listed, j.ID)
			if j.Status != "succeeded" || j.Cost != 1 {
				t.Errorf("listed job %+v, want succeeded at cost 1", j)
			}
		}
		if !sameSet(listed, ids) {
			t.Errorf("job list via %s: %d jobs %v, want the batch's %d", a.base, len(listed), listed, len(ids))
		}
		u := a.usage()
		if u.Balance == nil || *u.Balance != credits-jobs {
			t.Errorf("balance via %s after the batch: %v, want %d", a.base, u.Balance, credits-jobs)
		}
		var charged []string
		for _, c := range u.Charges {
			charged = append(charged, c.JobID)
			if c.Amount != 1 {
				t.Errorf("charge %+v, want 1 credit", c)
			}
		}
		if !sameSet(charged, ids) {
			t.Errorf("charges via %s: %v, want one for each job of the batch", a.base, charged)
		}
	}

	// The database's own books: one River job a Showroom job, each
	// completed; one charge each; the interrupted one run twice. River
	// records a completion a moment after the job's own transaction (its
	// completer batches them), and a job whose worker was killed between
	// the two stays running until the rescuer hands it out again (after
	// --rescue-after) and a worker finds it finished: wait for the books
	// to settle.
	for settle := time.Now().Add(time.Minute); ; {
		var open int
		if err := db.QueryRow(context.Background(), `SELECT count(*) FROM river_job
			WHERE kind = 'showroom_process' AND state NOT IN ('completed', 'discarded', 'cancelled')`).Scan(&open); err != nil {
			t.Fatal(err)
		}
		if open == 0 {
			break
		}
		if time.Now().After(settle) {
			t.Errorf("%d River jobs still open a minute after every job succeeded", open)
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	attempts := map[string]int{}
	rows, err := db.Query(context.Background(), `SELECT args->>'job_id', state, attempt FROM river_job WHERE kind = 'showroom_process'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, state string
		var attempt int
		if err := rows.Scan(&id, &state, &attempt); err != nil {
			t.Fatal(err)
		}
		if _, dup := attempts[id]; dup || state != "completed" {
			t.Errorf("River job for %s: %s (duplicate: %v), want one, completed", id, state, dup)
		}
		attempts[id] = attempt
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !sameSet(slices.Collect(maps.Keys(attempts)), ids) {
		t.Errorf("River jobs for %v, want the batch", slices.Collect(maps.Keys(attempts)))
	}
	var charges, chargedJobs, chargedCredits int
	if err := db.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT job_id), coalesce(sum(amount), 0) FROM credit_charges`).Scan(&charges, &chargedJobs, &chargedCredits); err != nil {
		t.Fatal(err)
	}
	if charges != jobs || chargedJobs != jobs || chargedCredits != jobs {
		t.Errorf("credit_charges: %d rows for %d jobs, %d credits; want %d of each", charges, chargedJobs, chargedCredits, jobs)
	}
	var rerun []string
	for id, n := range attempts {
		if n > 1 {
			rerun = append(rerun, id)
		}
	}
	if interrupted {
		if attempts[killed] != 2 {
			t.Errorf("the job worker1 ran when killed (%s) took %d attempts, want 2", killed, attempts[killed])
		}
		if !slices.Equal(rerun, []string{killed}) {
			t.Errorf("jobs run more than once: %v, want only the interrupted %s", rerun, killed)
		}
	} else {
		t.Logf("job %s finished between the look and the kill: no job was interrupted this time (run again: %v)", killed, rerun)
	}

	// Every result, the same through either API.
	for i, id := range ids {
		var results [2][]byte
		for k, a := range apis {
			res, body := a.do("GET", "/v1/process/jobs/"+id+"/result", nil, nil)
			if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("result of job %d via %s: %d %s %.200s", i, a.base, res.StatusCode, res.Header.Get("Content-Type"), body)
			}
			results[k] = body
		}
		if !bytes.Equal(results[0], results[1]) {
			t.Errorf("job %d: the APIs answer different results (%d and %d bytes)", i, len(results[0]), len(results[1]))
		}
		img, _, err := image.Decode(bytes.NewReader(results[0]))
		if err != nil {
			t.Fatalf("job %d's result: %v", i, err)
		}
		if w := img.Bounds().Dx(); w != 240 {
			t.Errorf("job %d's result is %d wide, want 240", i, w)
		}
	}

	// The survivors stop cleanly on SIGTERM.
	cl.Stop(30 * time.Second)
	for _, p := range cl.Procs() {
		if !p.Killed && p.Err != nil {
			t.Errorf("%s: %v", p.Name, p.Err)
		}
	}
	t.Logf("took %v in all", time.Since(start).Round(time.Millisecond))
}

// startCluster prepares a cluster of bin's processes sharing the
// PostgreSQL database at dbURL and a new bucket of s3, as a scaled-out
// deployment: the database migrated once (the processes start with
// --migrate=false, as in a rolling start), company acme with the credits
// and user alice. env adds settings every process gets. The processes are
// stopped when t ends, and their logs printed if it failed.
func startCluster(t testing.TB, bin, dbURL string, s3 *blobtest.S3Server, credits int, env ...string) *cluster.Cluster {
	t.Helper()
	dir := t.TempDir()
	cl := cluster.New(cluster.Config{Bin: bin, LogDir: dir, Env: append([]string{
		"SHOWROOM_DATA_DIR=" + dir, // nothing is written there: the database and blobs are elsewhere
		"SHOWROOM_DATABASE_URL=" + dbURL,
		"SHOWROOM_BLOB_URL=s3://" + s3.NewBucket(t) + "?endpoint=" + s3.Endpoint + "&region=" + blobtest.Region,
		"AWS_ACCESS_KEY_ID=" + blobtest.AccessKey, "AWS_SECRET_ACCESS_KEY=" + blobtest.SecretKey,
		"SHOWROOM_MIGRATE=false",
	}, env...)})
	t.Cleanup(func() {
		cl.Stop(30 * time.Second)
		if t.Failed() {
			printLogs(t, cl)
		}
	})
	steps := [][]string{{"migrate"}, {"admin", "company", "add", "acme"}}
	if credits > 0 {
		steps = append(steps, []string{"admin", "credits", "set", "--company", "acme", fmt.Sprint(credits)})
	}
	for _, args := range steps {
		if _, err := cl.Run("", args...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.Run("hunter2hunter2\n", "admin", "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	return cl
}

// logIn logs alice in at the auth service and gives every API client her
// access token.
func logIn(t testing.TB, authURL string, apis ...*api) {
	t.Helper()
	var tok tokens
	if code := post(t, authURL+"/login", map[string]string{"username": "alice", "password": "hunter2hunter2", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login: %d", code)
	}
	for _, a := range apis {
		a.token = tok.AccessToken
	}
}

// requireModelFile fails t when a model's file is not there: the test runs
// workers, and 'make test' fetches the models before it.
func requireModelFile(t testing.TB, file string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(defaultModelDir(), file)); err != nil {
		t.Fatalf("no %s in %s: run 'make models' (or set SHOWROOM_MODEL_DIR)", file, defaultModelDir())
	}
}

// buildShowroom builds this program into a temporary folder, once for the
// test, and returns its path.
func buildShowroom(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "showroom")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// connect opens a connection to the cluster's database, for reading the
// books the processes keep there.
func connect(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// riverLeader waits for a River client to lead the queue and returns its
// id.
func riverLeader(t testing.TB, db *pgx.Conn) string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var id string
		err := db.QueryRow(context.Background(), `SELECT leader_id FROM river_leader`).Scan(&id)
		if err == nil {
			return id
		}
		if time.Now().After(deadline) {
			t.Fatalf("no River leader after 20 s: %v", err)
		}
	}
}

// waitRunningOn waits until at least done processing jobs have completed
// and the River client clientID, which runs one job at a time, runs one,
// and returns that job's Showroom id.
func waitRunningOn(t testing.TB, db *pgx.Conn, clientID string, done int) string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		var completed, onIt int
		var running *string
		// River records completions in batches: a job the worker has
		// finished can still read as running for a moment. One job at a
		// time runs on the worker, so wait until one alone reads so, or
		// the kill would have River run the finished one again too.
		err := db.QueryRow(context.Background(), `SELECT
			(SELECT count(*) FROM river_job WHERE kind = 'showroom_process' AND state = 'completed'),
			(SELECT count(*) FROM river_job WHERE kind = 'showroom_process' AND state = 'running'
				AND attempted_by[array_length(attempted_by, 1)] = $1),
			(SELECT args->>'job_id' FROM river_job WHERE kind = 'showroom_process' AND state = 'running'
				AND attempted_by[array_length(attempted_by, 1)] = $1 LIMIT 1)`, clientID).Scan(&completed, &onIt, &running)
		if err != nil {
			t.Fatal(err)
		}
		if completed >= done && onIt == 1 && running != nil {
			return *running
		}
		if time.Now().After(deadline) {
			t.Fatalf("worker %s ran no job after %d had completed, within a minute (%d completed)", clientID, done, completed)
		}
	}
}

// riverState is the state of the River job that runs Showroom job id.
func riverState(t testing.TB, db *pgx.Conn, id string) string {
	t.Helper()
	var state string
	if err := db.QueryRow(context.Background(), `SELECT state FROM river_job WHERE args->>'job_id' = $1`, id).Scan(&state); err != nil {
		t.Fatal(err)
	}
	return state
}

// drawnCars are the batch's photos: the drawn car at a few sizes and
// tilts, so that the results differ.
func drawnCars(t testing.TB) [][]byte {
	t.Helper()
	var photos [][]byte
	for _, p := range []struct {
		w, h int
		tilt float64
	}{{480, 300, 0}, {560, 350, 0.02}, {400, 260, -0.02}, {640, 400, 0}} {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, drawncar.New(p.w, p.h, p.tilt).Photo, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		photos = append(photos, buf.Bytes())
	}
	return photos
}

// printLogs logs the end of every process's log, for a failed test.
func printLogs(t testing.TB, cl *cluster.Cluster) {
	for _, p := range cl.Procs() {
		b, _ := os.ReadFile(p.Log)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		t.Logf("%s (%s, exit %v), last lines of its log:\n%s", p.Name, p.Role, p.Err, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// make test must run the multi-process test, not skip it: it runs go test
// under scripts/postgres.sh, which installs and starts a PostgreSQL server
// and names it in pgtest.EnvURL (so a server that does not start fails the
// tests), and installs versitygw for the S3 ones.
func TestMakefileRunsServerTests(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("../../scripts/postgres.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "export "+pgtest.EnvURL+"=") {
		t.Errorf("scripts/postgres.sh does not set %s", pgtest.EnvURL)
	}
	for _, line := range []string{
		"\ntest: postgres\n",
		"$(WITH_POSTGRES) scripts/gotest.sh ",
		"export " + blobtest.VersitygwEnv + " ?= $(VERSITYGW)\n",
		"\ntest: deps models versitygw\n",
	} {
		if !strings.Contains(string(mk), line) {
			t.Errorf("the Makefile lacks %q", line)
		}
	}
}
