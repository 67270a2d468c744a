package vision

import (
	"context"
	"errors"
	"image"
	"runtime"
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
	if w := <-waits; w < 200*time.Millisecond {
		t.Errorf("the run waited %v for its turn, reported; want at least the 200ms it was held", w)
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
