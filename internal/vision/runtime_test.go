package vision

import (
	"context"
	"errors"
	"image"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestModelRunsTakeTurns holds the only turn of a one-run Segmenter: a run
// waits for it, gives up when its context ends, and goes when the turn is
// handed back, reporting how long it waited; a two-run Segmenter runs
// beside the held turn.
func TestModelRunsTakeTurns(t *testing.T) {
	dir := modelDir(t)
	input := make([]float32, 3*320*320)
	waits := make(chan time.Duration, 4)
	open := func(runs int) *Segmenter {
		cfg := DefaultConfig(dir)
		cfg.Model, cfg.IntraOpThreads, cfg.ConcurrentRuns = ModelU2Netp, 1, runs
		cfg.ObserveWait = func(_ string, d time.Duration) { waits <- d }
		seg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { seg.Close() })
		return seg
	}

	one := open(1)
	one.model.turns <- struct{}{} // another job's run
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := one.model.run(ctx, input); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("run while the turn is taken, context ending: %v, want %v", err, context.DeadlineExceeded)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := one.model.run(context.Background(), input)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("run went while the turn was taken (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	<-one.model.turns
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The goroutine's clock starts when it is scheduled, after the hold's
	// timer did, so the reported wait can fall short of 200ms by however
	// long a loaded machine took to start it.
	if w := <-waits; w < 100*time.Millisecond {
		t.Errorf("the run waited %v for its turn, reported; want most of the 200ms it was held", w)
	}

	two := open(2)
	two.model.turns <- struct{}{}
	ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, _, err := two.model.run(ctx, input); err != nil {
		t.Fatalf("second of two runs: %v", err)
	}
	if w := <-waits; w > time.Second { // nothing to wait for: only a stalled machine
		t.Errorf("a run with a free turn reported waiting %v", w)
	}
}

func TestConcurrentRunsDefault(t *testing.T) {
	cfg := DefaultConfig(t.TempDir())
	cores := runtime.NumCPU()
	for _, c := range []struct{ threads, runs, want int }{
		{1, 0, cores},
		{cores, 0, 1},
		{2 * cores, 0, 1},
		{2, 3, 3},
	} {
		cfg.IntraOpThreads, cfg.ConcurrentRuns = c.threads, c.runs
		if got := cfg.concurrentRuns(); got != c.want {
			t.Errorf("%d threads, ConcurrentRuns %d: %d runs at once, want %d", c.threads, c.runs, got, c.want)
		}
	}
	cfg.ConcurrentRuns = -1
	if err := cfg.Validate(); err == nil {
		t.Error("Validate accepted ConcurrentRuns -1")
	}
}

// A segmentation that waited for the model's turn says how long.
func TestSegmentReportsTheModelWait(t *testing.T) {
	cfg := DefaultConfig(modelDir(t))
	cfg.Model, cfg.IntraOpThreads, cfg.ConcurrentRuns = ModelU2Netp, 1, 1
	seg, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	img := image.NewNRGBA(image.Rect(0, 0, 96, 64))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	seg.model.turns <- struct{}{} // another job's run
	time.AfterFunc(300*time.Millisecond, func() { <-seg.model.turns })
	m, err := seg.Segment(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	// Held 300ms from before the segmentation began; its preprocessing
	// took some of that.
	if m.ModelWait < 200*time.Millisecond {
		t.Errorf("ModelWait %v, want most of the 300ms the turn was held", m.ModelWait)
	}
}

// TestNothingWrittenOutsideTheData loads the model and runs it in a child
// process whose temp folder and home are fresh, empty folders, with ONNX
// Runtime's telemetry left as the environment says (not turned off), and
// checks both are empty after: ONNX Runtime 1.30 wrote a .ses file and a
// mat-debug-<pid>.log to the first and its telemetry database to the
// second. A child, because ONNX Runtime's environment is made once per
// process and may already exist in this one.
func TestNothingWrittenOutsideTheData(t *testing.T) {
	if os.Getenv("SHOWROOM_VISION_CHILD") == "1" {
		seg, err := New(func() Config {
			cfg := DefaultConfig(os.Getenv("SHOWROOM_MODEL_DIR"))
			cfg.Model, cfg.IntraOpThreads = ModelU2Netp, 1
			return cfg
		}())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := seg.model.run(context.Background(), make([]float32, 3*320*320)); err != nil {
			t.Fatal(err)
		}
		if err := seg.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := modelDir(t)
	tmp, home := t.TempDir(), t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestNothingWrittenOutsideTheData$", "-test.count=1")
	env := []string{"SHOWROOM_VISION_CHILD=1", "SHOWROOM_MODEL_DIR=" + dir, "TMPDIR=" + tmp, "HOME=" + home}
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "TMPDIR", "HOME", "XDG_CACHE_HOME", "SHOWROOM_MODEL_DIR", telemetryVar:
		default:
			env = append(env, kv)
		}
	}
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, d := range []string{tmp, home} {
		var found []string
		filepath.WalkDir(d, func(p string, _ fs.DirEntry, err error) error {
			if p != d {
				found = append(found, strings.TrimPrefix(p, d+"/"))
			}
			return err
		})
		if len(found) > 0 {
			t.Errorf("loading and running the model wrote to %s: %v", d, found)
		}
	}
}
