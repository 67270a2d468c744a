package queue_test

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/queue"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// invert is a real, small runner: it decodes the PNG photo and encodes its
// negative. Its behaviour for a test is chosen by the configuration name.
func invert(calls *atomic.Int32) queue.Runner {
	return func(ctx context.Context, j *showroom.Job, photo []byte) (*queue.Output, error) {
		calls.Add(1)
		switch j.Configuration {
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
		return &queue.Output{Image: buf.Bytes(), MediaType: "image/png", Timings: []showroom.Timing{{Name: "invert", Duration: time.Millisecond}}}, nil
	}
}

type fixture struct {
	q     *queue.Queue
	db    *sqlite.DB
	blobs *blob.Local
	co    *showroom.Company
	calls atomic.Int32
}

func newFixture(t *testing.T, cfg queue.Config) *fixture {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	blobs, err := blob.NewLocal(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{db: db, blobs: blobs}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.q, err = queue.New(ctx, cfg, db.SQL(), db, blobs, invert(&f.calls), log, queue.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		f.q.Stop(sctx)
	})
	if f.co, err = db.CreateCompany(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	return f
}

func testConfig() queue.Config {
	cfg := queue.DefaultConfig()
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
	return f.q.Submit(context.Background(), queue.Submission{
		Company: f.co, User: "alice", Name: config, Cost: cost,
		Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"}]`), Photo: bytes.NewReader(photo()),
	})
}

func (f *fixture) wait(t *testing.T, id string) *showroom.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	j, err := f.q.Wait(ctx, f.co.ID, id)
	if err != nil {
		t.Fatalf("wait for %s: %v", id, err)
	}
	return j
}

func TestRunAndCharge(t *testing.T) {
	f := newFixture(t, testConfig())
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

func TestClientErrorFailsAtOnce(t *testing.T) {
	f := newFixture(t, testConfig())
	j, _ := f.submit(t, "nocar", 1)
	done := f.wait(t, j.ID)
	if done.Status != showroom.JobFailed || done.Error == nil || done.Error.Code != showroom.ENoCarDetected {
		t.Fatalf("job %+v", done)
	}
	time.Sleep(100 * time.Millisecond) // a retry would have run by now
	if n := f.calls.Load(); n != 1 {
		t.Errorf("runner called %d times for a client error, want 1", n)
	}
	if _, err := f.q.Result(context.Background(), done); showroom.ErrorCode(err) != showroom.EConflict {
		t.Errorf("result of a failed job: %v", err)
	}
	if u, _ := f.db.Usage(context.Background(), f.co.ID, 10); len(u.Charges) != 0 {
		t.Errorf("a failed job was charged: %+v", u.Charges)
	}
}

func TestInternalErrorIsRetried(t *testing.T) {
	cfg := testConfig()
	cfg.MaxAttempts = 3
	f := newFixture(t, cfg)
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
}

func TestQueueBound(t *testing.T) {
	cfg := testConfig()
	cfg.Work = false // nothing runs: jobs stay queued
	cfg.MaxQueued = 2
	cfg.CompanyShare = 2 // the whole queue: this is about its length
	f := newFixture(t, cfg)
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

func TestCancelRunningJob(t *testing.T) {
	f := newFixture(t, testConfig())
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

func TestCleanup(t *testing.T) {
	f := newFixture(t, testConfig())
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
