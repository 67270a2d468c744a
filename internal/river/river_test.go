package river_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/syncbuf"
)

// invert is a real, small runner: it decodes the PNG photo and encodes its
// negative. Its behaviour for a test is chosen by the configuration name;
// "held" waits until held is closed.
func invert(calls *atomic.Int32, held <-chan struct{}) river.Runner {
	return func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
		calls.Add(1)
		switch j.Configuration {
		case "held":
			select {
			case <-held:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		case "nocar":
			return nil, showroom.Errorf(showroom.ENoCarDetected, "no car in the photo")
		case "broken":
			return nil, errors.New("disk on fire")
		case "slow":
			<-ctx.Done()
			return nil, ctx.Err()
		}
		img, err := png.Decode(bytes.NewReader(photo))
		if err != nil {
			return nil, showroom.Errorf(showroom.EInvalidImage, "not a PNG")
		}
		b := img.Bounds()
		out := image.NewNRGBA(b)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				out.Set(x, y, color.NRGBA{255 - uint8(r>>8), 255 - uint8(g>>8), 255 - uint8(bl>>8), 255})
			}
		}
		var buf bytes.Buffer
		png.Encode(&buf, out)
		res := &river.Output{Image: buf.Bytes(), MediaType: "image/png", Timings: []showroom.Timing{{Name: "invert", Duration: time.Millisecond}}}
		if j.Configuration == "warned" {
			res.Warnings = []showroom.Warning{{Code: showroom.WarnTilted, Message: "the photo is tilted"}}
		}
		return res, nil
	}
}

type fixture struct {
	q     *river.Queue
	db    *testDB
	blobs *blob.Local
	co    *showroom.Company
	calls atomic.Int32
	held  chan struct{} // closing it lets "held" runs finish

	mu      sync.Mutex
	started []string // the job of each run, in the order they started
	log     syncbuf.Buffer

	// finishes and charged count what every queue on the database told its
	// observer: the metrics.
	finishes atomic.Int32
	charged  atomic.Int64
	warned   sync.Map // code → *atomic.Int32
}

// Write keeps the queue's log, written from its workers.
func (f *fixture) Write(p []byte) (int, error) { return f.log.Write(p) }

// logText is the queue's log so far.
func (f *fixture) logText() string { return f.log.String() }

// logged returns the queue's log records whose message is msg.
func (f *fixture) logged(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(f.logText()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("a log line is not JSON: %q", line)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// wantFailureLogged checks that job id's failure was logged once, at
// level, with its company and error code.
func (f *fixture) wantFailureLogged(t *testing.T, id, level, code string) {
	t.Helper()
	recs := f.logged(t, "job failed")
	if len(recs) != 1 {
		t.Fatalf("%d 'job failed' records, want 1:\n%s", len(recs), f.logText())
	}
	rec := recs[0]
	if rec["job_id"] != id || rec["company"] != "acme" || rec["error_code"] != code || rec["level"] != level {
		t.Errorf("job failed record %v, want job_id %s, company acme, error_code %s at %s", rec, id, code, level)
	}
}

// observer counts into f what a queue reports for the metrics.
func (f *fixture) observer() river.Observer {
	return river.Observer{
		JobFinished: func(string, showroom.JobStatus, time.Duration) { f.finishes.Add(1) },
		Charged:     func(_ string, amount int64) { f.charged.Add(amount) },
		Warned: func(code string) {
			n, _ := f.warned.LoadOrStore(code, new(atomic.Int32))
			n.(*atomic.Int32).Add(1)
		},
	}
}

func newFixture(t *testing.T, on backend, cfg river.Config) *fixture {
	t.Helper()
	return newFixtureWith(t, on, cfg, fixtureOptions{})
}

// fixtureOptions change what newFixtureWith makes.
type fixtureOptions struct {
	// blobs, when set, wraps the blob store the queue sees.
	blobs func(river.Blobs) river.Blobs
	// unstarted leaves the queue's workers to the test to start.
	unstarted bool
}

func newFixtureWith(t *testing.T, on backend, cfg river.Config, opts fixtureOptions) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db := on.open(t)
	blobs, err := blob.NewLocal(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	var qblobs river.Blobs = blobs
	if opts.blobs != nil {
		qblobs = opts.blobs(blobs)
	}
	f := &fixture{db: db, blobs: blobs, held: make(chan struct{})}
	log := slog.New(slog.NewJSONHandler(f, nil))
	run := invert(&f.calls, f.held)
	recorded := func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
		f.mu.Lock()
		f.started = append(f.started, j.ID)
		f.mu.Unlock()
		return run(ctx, j, photo)
	}
	f.q, err = db.newQueue(cfg, qblobs, recorded, log, f.observer())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.q.EnableWebhooks(river.Webhooks{Store: db, Render: func(j *showroom.Job) ([]byte, error) {
		return json.Marshal(map[string]string{"id": j.ID, "status": string(j.Status)})
	}}); err != nil {
		t.Fatal(err)
	}
	if !opts.unstarted {
		if err := f.q.Start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		f.release()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		f.q.Stop(sctx)
	})
	if f.co, err = db.CreateCompany(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	return f
}

func testConfig() river.Config {
	cfg := river.DefaultConfig()
	cfg.PollInterval = 20 * time.Millisecond
	cfg.RetryBackoff = 10 * time.Millisecond
	return cfg
}

func photo() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = 200
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}

func (f *fixture) submit(t *testing.T, config string, cost int64) (*showroom.Job, error) {
	t.Helper()
	return f.submitFor(f.co, config, cost)
}

// submitFor submits a job of company c.
func (f *fixture) submitFor(c *showroom.Company, config string, cost int64) (*showroom.Job, error) {
	return f.q.Submit(context.Background(), showroom.Submission{
		Company: c, User: "alice", Name: config, Cost: cost,
		Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"}]`), Photo: bytes.NewReader(photo()),
	})
}

// company creates another company.
func (f *fixture) company(t *testing.T, name string) *showroom.Company {
	t.Helper()
	c, err := f.db.CreateCompany(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// release lets "held" runs finish.
func (f *fixture) release() {
	select {
	case <-f.held:
	default:
		close(f.held)
	}
}

// runs returns the jobs of the runs started so far, in order.
func (f *fixture) runs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.started)
}

func (f *fixture) wait(t *testing.T, id string) *showroom.Job {
	t.Helper()
	return f.waitFor(t, f.co, id)
}

func (f *fixture) waitFor(t *testing.T, c *showroom.Company, id string) *showroom.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := f.q.Wait(ctx, c.ID, id)
	if err != nil {
		t.Fatalf("wait for %s: %v", id, err)
	}
	return j
}

func TestRunAndCharge(t *testing.T) { onBoth(t, testRunAndCharge) }

func testRunAndCharge(t *testing.T, on backend) {
	f := newFixture(t, on, testConfig())
	ten := int64(10)
	f.db.SetCredits(context.Background(), f.co.ID, &ten)
	j, err := f.submit(t, "ok", 3)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != showroom.JobQueued {
		t.Errorf("submitted job is %s", j.Status)
	}
	done := f.wait(t, j.ID)
	if done.Status != showroom.JobSucceeded || done.Attempts != 1 || done.ResultType != "image/png" || len(done.Timings) != 1 {
		t.Fatalf("job %+v", done)
	}
	r, err := f.q.Result(context.Background(), done)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatal(err)
	}
	if got := color.NRGBAModel.Convert(img.At(3, 3)).(color.NRGBA); got.R != 55 {
		t.Errorf("result pixel %v, want the negative of 200", got)
	}
	u, _ := f.db.Usage(context.Background(), f.co.ID, 10)
	if u.Balance != 7 || len(u.Charges) != 1 {
		t.Errorf("usage %+v, want balance 7 after one charge", u)
	}
	if _, err := f.submit(t, "ok", 8); showroom.ErrorCode(err) != showroom.EInsufficientCredits {
		t.Errorf("cost over the balance: %v", err)
	}
}

func TestWarningsStoredAndCounted(t *testing.T) { onBoth(t, testWarningsStoredAndCounted) }

// testWarningsStoredAndCounted: a run's warnings are the job's, and the
// metrics hear of each once; a clean run's job has an empty list.
func testWarningsStoredAndCounted(t *testing.T, on backend) {
	f := newFixture(t, on, testConfig())
	clean, err := f.submit(t, "ok", 0)
	if err != nil {
		t.Fatal(err)
	}
	warned, err := f.submit(t, "warned", 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.wait(t, clean.ID); got.Status != showroom.JobSucceeded || got.Warnings == nil || len(got.Warnings) != 0 {
		t.Errorf("clean job %+v, want succeeded with an empty list of warnings", got)
	}
	got := f.wait(t, warned.ID)
	if len(got.Warnings) != 1 || got.Warnings[0].Code != showroom.WarnTilted || got.Warnings[0].Message != "the photo is tilted" {
		t.Errorf("warned job's warnings %+v, want one TILTED", got.Warnings)
	}
	// The worker tells the metrics just after it records the job, which
	// Wait's poll may see first.
	count := func() int32 {
		if n, ok := f.warned.Load(showroom.WarnTilted); ok {
			return n.(*atomic.Int32).Load()
		}
		return 0
	}
	for deadline := time.Now().Add(5 * time.Second); count() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := count(); n != 1 {
		t.Errorf("TILTED counted %d times, want once", n)
	}
}

func TestClientErrorFailsAtOnce(t *testing.T) { onBoth(t, testClientErrorFailsAtOnce) }

func testClientErrorFailsAtOnce(t *testing.T, on backend) {
	f := newFixture(t, on, testConfig())
	j, _ := f.submit(t, "nocar", 1)
	done := f.wait(t, j.ID)
	if done.Status != showroom.JobFailed || done.Error == nil || done.Error.Code != showroom.ENoCarDetected {
		t.Fatalf("job %+v", done)
	}
	time.Sleep(100 * time.Millisecond) // a retry would have run by now
	if n := f.calls.Load(); n != 1 {
		t.Errorf("runner called %d times for a client error, want 1", n)
	}
	f.wantFailureLogged(t, j.ID, "WARN", showroom.ENoCarDetected)
	if _, err := f.q.Result(context.Background(), done); showroom.ErrorCode(err) != showroom.EConflict {
		t.Errorf("result of a failed job: %v", err)
	}
	if u, _ := f.db.Usage(context.Background(), f.co.ID, 10); len(u.Charges) != 0 {
		t.Errorf("a failed job was charged: %+v", u.Charges)
	}
}

func TestInternalErrorIsRetried(t *testing.T) { onBoth(t, testInternalErrorIsRetried) }

func testInternalErrorIsRetried(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.MaxAttempts = 3
	f := newFixture(t, on, cfg)
	j, _ := f.submit(t, "broken", 1)
	done := f.wait(t, j.ID)
	if done.Status != showroom.JobFailed || done.Error.Code != showroom.EInternal || done.Attempts != 3 {
		t.Fatalf("job %+v (error %+v)", done, done.Error)
	}
	if done.Error.Message == "disk on fire" {
		t.Error("the internal cause leaked into the job's error")
	}
	if n := f.calls.Load(); n != 3 {
		t.Errorf("runner called %d times, want 3", n)
	}
	f.wantFailureLogged(t, j.ID, "ERROR", showroom.EInternal)
	if retries := f.logged(t, "job attempt failed; will retry"); len(retries) != 2 || retries[0]["company"] != "acme" {
		t.Errorf("retries logged: %v", retries)
	}
}

func TestQueueBound(t *testing.T) { onBoth(t, testQueueBound) }

func testQueueBound(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.Work = false // nothing runs: jobs stay queued
	cfg.MaxQueued = 2
	cfg.CompanyShare = 2 // the whole queue: this is about its length
	f := newFixture(t, on, cfg)
	for range 2 {
		if _, err := f.submit(t, "ok", 0); err != nil {
			t.Fatal(err)
		}
	}
	_, err := f.submit(t, "ok", 0)
	var e *showroom.Error
	if !errors.As(err, &e) || e.Code != showroom.EServiceOverloaded || e.RetryAfter <= 0 {
		t.Fatalf("third submission: %v", err)
	}
	if n, _ := f.q.Depth(context.Background()); n != 2 {
		t.Errorf("depth %d, want 2", n)
	}
}

func TestCancelRunningJob(t *testing.T) { onBoth(t, testCancelRunningJob) }

func testCancelRunningJob(t *testing.T, on backend) {
	f := newFixture(t, on, testConfig())
	j, _ := f.submit(t, "slow", 1)
	for {
		got, _ := f.db.FindJob(context.Background(), f.co.ID, j.ID)
		if got.Status == showroom.JobRunning {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := f.q.Cancel(context.Background(), j.ID); err != nil {
		t.Fatal(err)
	}
	done := f.wait(t, j.ID)
	if done.Status != showroom.JobFailed || done.Error.Code != showroom.ECancelled {
		t.Fatalf("cancelled job %+v", done)
	}
	deadline := time.Now().Add(5 * time.Second)
	for f.q.Running() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled run is still running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := f.calls.Load(); n != 1 {
		t.Errorf("a cancelled job ran %d times", n)
	}
}

func TestCleanup(t *testing.T) { onBoth(t, testCleanup) }

func testCleanup(t *testing.T, on backend) {
	f := newFixture(t, on, testConfig())
	j, _ := f.submit(t, "ok", 0)
	done := f.wait(t, j.ID)
	if err := f.q.Cleanup(context.Background(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.FindJob(context.Background(), f.co.ID, j.ID); showroom.ErrorCode(err) != showroom.EJobNotFound {
		t.Errorf("job after cleanup: %v", err)
	}
	for _, k := range []string{done.InputKey, done.ResultKey} {
		if _, err := f.blobs.Size(context.Background(), k); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("blob %s after cleanup: %v", k, err)
		}
	}
}

// TestCompanyShare: a company that floods the queue is refused at its
// share, with the 503 that says so, while another company is still
// admitted until the queue is full.
func TestCompanyShare(t *testing.T) { onBoth(t, testCompanyShare) }

func testCompanyShare(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.Work = false // nothing runs: jobs stay queued
	cfg.MaxQueued = 6
	cfg.CompanyShare = 4
	f := newFixture(t, on, cfg)
	beta := f.company(t, "beta")
	for i := range 4 {
		if _, err := f.submit(t, "ok", 0); err != nil {
			t.Fatalf("acme's job %d: %v", i+1, err)
		}
	}
	_, err := f.submit(t, "ok", 0)
	var e *showroom.Error
	if !errors.As(err, &e) || e.Code != showroom.EServiceOverloaded || e.RetryAfter <= 0 || !strings.Contains(e.Message, "share") {
		t.Fatalf("acme's job over its share: %v; want SERVICE_OVERLOADED about its share, with Retry-After", err)
	}
	for i := range 2 {
		if _, err := f.submitFor(beta, "ok", 0); err != nil {
			t.Fatalf("beta's job %d while acme has its share: %v", i+1, err)
		}
	}
	if _, err := f.submitFor(beta, "ok", 0); !errors.As(err, &e) || e.Code != showroom.EServiceOverloaded || strings.Contains(e.Message, "share") {
		t.Fatalf("beta's job in a full queue: %v; want SERVICE_OVERLOADED, queue full", err)
	}
	if n, _ := f.q.Depth(context.Background()); n != 6 {
		t.Errorf("depth %d, want 6", n)
	}
}

// TestDefaultCompanyShare: without a share set, a company gets half the
// queue.
func TestDefaultCompanyShare(t *testing.T) { onBoth(t, testDefaultCompanyShare) }

func testDefaultCompanyShare(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.Work = false
	cfg.MaxQueued = 4
	f := newFixture(t, on, cfg)
	for i := range 2 {
		if _, err := f.submit(t, "ok", 0); err != nil {
			t.Fatalf("job %d: %v", i+1, err)
		}
	}
	if _, err := f.submit(t, "ok", 0); showroom.ErrorCode(err) != showroom.EServiceOverloaded {
		t.Errorf("third job with a queue of 4: %v; want SERVICE_OVERLOADED at half the queue", err)
	}
}

// TestFairOrder: while one company's backlog waits, another company's job
// runs next, not behind the whole backlog; the flooding company's own jobs
// keep their order.
func TestFairOrder(t *testing.T) { onBoth(t, testFairOrder) }

func testFairOrder(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.Workers = 1
	cfg.MaxQueued = 16
	cfg.CompanyShare = 8
	f := newFixture(t, on, cfg)
	beta := f.company(t, "beta")
	// acme's first job holds the one worker while the rest queue up.
	first, err := f.submit(t, "held", 0)
	if err != nil {
		t.Fatal(err)
	}
	acme := []*showroom.Job{first}
	for len(acme) < cfg.CompanyShare {
		j, err := f.submit(t, "ok", 0)
		if err != nil {
			t.Fatalf("acme's job %d: %v", len(acme)+1, err)
		}
		acme = append(acme, j)
	}
	b, err := f.submitFor(beta, "ok", 0)
	if err != nil {
		t.Fatalf("beta's job behind acme's backlog: %v", err)
	}
	f.release()
	if got := f.waitFor(t, beta, b.ID); got.Status != showroom.JobSucceeded {
		t.Fatalf("beta's job %+v", got)
	}
	for _, j := range acme {
		if got := f.wait(t, j.ID); got.Status != showroom.JobSucceeded {
			t.Fatalf("acme's job %+v", got)
		}
	}
	// Runs by job, and by company for the failure message.
	var want, wantCo []string
	for i, j := range acme {
		want, wantCo = append(want, j.ID), append(wantCo, "acme")
		if i == 0 {
			want, wantCo = append(want, b.ID), append(wantCo, "beta")
		}
	}
	if got := f.runs(); !slices.Equal(got, want) {
		gotCo := make([]string, len(got))
		for i, id := range got {
			gotCo[i] = wantCo[slices.Index(want, id)]
		}
		t.Errorf("runs started in the order %v, want %v: beta's one job must run next, acme's jobs in the order sent", gotCo, wantCo)
	}
}

// TestAdmissionBurst: a parallel burst of submissions from two companies
// admits exactly the queue's length, no company beyond its share.
func TestAdmissionBurst(t *testing.T) { onBoth(t, testAdmissionBurst) }

func testAdmissionBurst(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.Work = false
	cfg.MaxQueued = 6
	cfg.CompanyShare = 4
	f := newFixture(t, on, cfg)
	beta := f.company(t, "beta")
	var admitted [2]atomic.Int32
	var wg sync.WaitGroup
	for i := range 32 {
		c := []*showroom.Company{f.co, beta}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := f.submitFor(c, "ok", 0)
			switch showroom.ErrorCode(err) {
			case "":
				admitted[i%2].Add(1)
			case showroom.EServiceOverloaded:
			default:
				t.Errorf("submission %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	a, b := admitted[0].Load(), admitted[1].Load()
	if a+b != 6 || a > 4 || b > 4 {
		t.Errorf("admitted %d of acme's and %d of beta's; want 6 in all, at most 4 each", a, b)
	}
	if n, _ := f.q.Depth(context.Background()); n != 6 {
		t.Errorf("depth %d, want 6", n)
	}
}

// TestLastAttemptInterrupted: a job whose last attempt never reports back
// (its process died mid-run) ends failed when River rescues it, instead
// of keeping its record "running" for good, and with it a place in the
// queue and in its company's share.
func TestLastAttemptInterrupted(t *testing.T) { onBoth(t, testLastAttemptInterrupted) }

func testLastAttemptInterrupted(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.MaxAttempts = 1
	cfg.JobTimeout = time.Second
	cfg.RescueAfter = 2 * time.Second
	f := newFixture(t, on, cfg)
	j, _ := f.submit(t, "slow", 1)
	f.waitRunning(t, j.ID)
	f.crash(t, j.ID)
	// Another process takes over; its rescuer finds the job at once.
	next := f.takeOver(t, cfg, invert(&f.calls, f.held))
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		got, _ := f.db.FindJob(context.Background(), f.co.ID, j.ID)
		if got.Status == showroom.JobFailed {
			if got.Error == nil || got.Error.Code != showroom.EInternal {
				t.Errorf("failed with %+v, want INTERNAL", got.Error)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job after its only attempt died: %s, want failed", got.Status)
		}
	}
	if n := f.calls.Load(); n != 1 {
		t.Errorf("the runner ran %d times; one attempt is allowed", n)
	}
	if n, _ := next.Depth(context.Background()); n != 0 {
		t.Errorf("queue depth %d after the job failed", n)
	}
}

// waitRunning waits until job id runs.
func (f *fixture) waitRunning(t *testing.T, id string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, _ := f.db.FindJob(context.Background(), f.co.ID, id); got.Status == showroom.JobRunning {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s did not start", id)
		}
	}
}

// crash stops f's queue and leaves job id's River record as a process
// that died while running it would: running, one attempt used, long ago.
// (A stop hands the job back to River untried, so this is written here.)
func (f *fixture) crash(t *testing.T, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	f.q.Stop(ctx)
	cancel()
	if err := f.db.crashed(id); err != nil {
		t.Fatal(err)
	}
}

// takeOver starts another queue on f's database, as another process.
func (f *fixture) takeOver(t *testing.T, cfg river.Config, run river.Runner) *river.Queue {
	t.Helper()
	next, err := f.db.newQueue(cfg, f.blobs, run, slog.New(slog.NewTextHandler(io.Discard, nil)), f.observer())
	if err != nil {
		t.Fatal(err)
	}
	if err := next.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		next.Stop(ctx)
	})
	return next
}

// TestRescuedJobKeepsItsPlace: a job whose process died runs, once
// rescued, before the jobs queued after it, not behind them (the soak saw
// a killed worker's job finish last, its client waiting minutes). The
// later jobs are other companies' first, so the fair order ranks them all
// alike and only the place in line decides.
func TestRescuedJobKeepsItsPlace(t *testing.T) { onBoth(t, testRescuedJobKeepsItsPlace) }

func testRescuedJobKeepsItsPlace(t *testing.T, on backend) {
	cfg := testConfig()
	cfg.Workers = 1
	cfg.JobTimeout = 20 * time.Second // longer than a run waits below
	cfg.RescueAfter = 21 * time.Second
	f := newFixture(t, on, cfg)
	first, _ := f.submit(t, "held", 0)
	f.waitRunning(t, first.ID)
	var later []string
	companies := map[string]*showroom.Company{}
	for _, name := range []string{"beta", "gamma", "delta"} {
		c := f.company(t, name)
		j, err := f.submitFor(c, "ok", 0)
		if err != nil {
			t.Fatal(err)
		}
		later = append(later, j.ID)
		companies[j.ID] = c
	}
	f.crash(t, first.ID)
	f.release()

	var mu sync.Mutex
	var order []string
	run := invert(&f.calls, f.held)
	f.takeOver(t, cfg, func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
		mu.Lock()
		order = append(order, j.ID)
		mu.Unlock()
		// The new process takes a later job at once, and finishes it only
		// when the first is due again, rescued: the next pick is between
		// the rescued job and the rest of the line.
		for deadline := time.Now().Add(15 * time.Second); j.ID != first.ID && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if state := f.db.riverState(first.ID); state != "running" && state != "retryable" { // due again, or done
				break
			}
		}
		return run(ctx, j, photo)
	})
	companies[first.ID] = f.co
	for id, c := range companies {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if got, _ := f.db.FindJob(context.Background(), c.ID, id); got.Status == showroom.JobSucceeded {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("job %s: %s", id, got.Status)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := append([]string{later[0], first.ID}, later[1:]...); !slices.Equal(order, want) {
		t.Errorf("runs after the rescue: %v, want the rescued job next: %v", order, want)
	}
}

// TestFinishedTwiceCountsOnce: a job run by two workers at once (River
// handed it out again, as its rescuer does when a worker seems dead, while
// the first worker was only slow) is recorded, charged and counted in the
// metrics once, by the run that finished it first; the late run's success
// changes nothing.
func TestFinishedTwiceCountsOnce(t *testing.T) { onBoth(t, testFinishedTwiceCountsOnce) }

func testFinishedTwiceCountsOnce(t *testing.T, on backend) {
	ctx := context.Background()
	cfg := testConfig()
	cfg.Workers = 1 // the first worker cannot take the job again itself
	f := newFixture(t, on, cfg)
	ten := int64(10)
	if err := f.db.SetCredits(ctx, f.co.ID, &ten); err != nil {
		t.Fatal(err)
	}
	j, err := f.submit(t, "held", 3)
	if err != nil {
		t.Fatal(err)
	}
	f.waitRunning(t, j.ID)
	if err := f.db.handedOut(j.ID); err != nil {
		t.Fatal(err)
	}
	through := make(chan struct{})
	close(through)
	f.takeOver(t, cfg, invert(&f.calls, through)) // runs it through at once
	if done := f.wait(t, j.ID); done.Status != showroom.JobSucceeded || done.Attempts != 2 {
		t.Fatalf("job after the second worker's run: %+v", done)
	}
	f.release() // the first worker finishes too, late
	for deadline := time.Now().Add(10 * time.Second); f.q.Running() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first run did not end")
		}
	}
	if calls := f.calls.Load(); calls != 2 {
		t.Fatalf("%d runs, want 2: the test needs the job run by both workers", calls)
	}
	if n, c := f.finishes.Load(), f.charged.Load(); n != 1 || c != 3 {
		t.Errorf("metrics counted %d finished jobs and %d credits charged, want 1 and 3", n, c)
	}
	if u, err := f.db.Usage(ctx, f.co.ID, 10); err != nil || u.Balance != 7 || len(u.Charges) != 1 {
		t.Errorf("usage %+v, %v; want one charge of 3, balance 7", u, err)
	}
}

// TestConfigValidate: settings that cannot work are refused before a
// queue is made; MaxAttempts must stay below River's own bound, else a
// job whose process keeps dying would be dropped by River with its record
// left running.
func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*river.Config)
		ok     bool
	}{
		{"defaults", func(*river.Config) {}, true},
		{"no workers", func(c *river.Config) { c.Workers = 0 }, false},
		{"no attempts", func(c *river.Config) { c.MaxAttempts = 0 }, false},
		{"most attempts", func(c *river.Config) { c.MaxAttempts = 24 }, true},
		{"River's own bound", func(c *river.Config) { c.MaxAttempts = 25 }, false},
		{"rescue before timeout", func(c *river.Config) { c.RescueAfter = c.JobTimeout }, false},
	} {
		cfg := river.DefaultConfig()
		tc.change(&cfg)
		if err := cfg.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
