package vision

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

// TestRecyclerBlocks drives the recycler as ONNX Runtime does, with blocks
// of a few bytes to 48 MB allocated and freed in a random order, each
// filled with its own pattern: a block shared by two live tensors (a split
// or a merge gone wrong) or moved without its contents (a bad mremap) shows
// as a changed pattern. Throughout, the recycler holds no more than the
// most it ever had in use, and once all is freed nothing is in use.
func TestRecyclerBlocks(t *testing.T) {
	type live struct {
		p    unsafe.Pointer
		n    int
		fill byte
	}
	bytesOf := func(b live) []byte { return unsafe.Slice((*byte)(b.p), b.n) }
	// Every 64th byte and the last: blocks are 64-byte aligned, so two
	// that overlap share some of these places.
	fill := func(b live) {
		s := bytesOf(b)
		for i := 0; i < len(s); i += 64 {
			s[i] = b.fill
		}
		s[len(s)-1] = b.fill
	}
	check := func(b live) {
		t.Helper()
		s := bytesOf(b)
		for i := 0; i < len(s); i += 64 {
			if s[i] != b.fill {
				t.Fatalf("block of %d bytes: byte %d is %d, want %d", b.n, i, s[i], b.fill)
			}
		}
		if s[len(s)-1] != b.fill {
			t.Fatalf("block of %d bytes: last byte is %d, want %d", b.n, s[len(s)-1], b.fill)
		}
	}
	before := readRecycleStats()
	r := rand.New(rand.NewPCG(7, 13))
	var blocks []live
	for step := range 400 {
		if len(blocks) > 0 && (len(blocks) > 12 || r.IntN(2) == 0) {
			i := r.IntN(len(blocks))
			check(blocks[i])
			recycleFree(blocks[i].p)
			blocks = append(blocks[:i], blocks[i+1:]...)
		} else {
			n := 1 + r.IntN(48<<20)
			if r.IntN(4) == 0 {
				n = 1 + r.IntN(4096) // under the large size: malloc's
			}
			p := recycleAlloc(n)
			if p == nil {
				t.Fatalf("step %d: no memory for %d bytes", step, n)
			}
			if uintptr(p)%64 != 0 {
				t.Fatalf("step %d: block at %p is not 64-byte aligned", step, p)
			}
			b := live{p, n, byte(step)}
			fill(b)
			blocks = append(blocks, b)
		}
		if s := readRecycleStats(); s.Live+s.Held > s.Peak {
			t.Fatalf("step %d: %d bytes in use and %d kept, over the most ever in use, %d", step, s.Live, s.Held, s.Peak)
		}
	}
	for _, b := range blocks {
		check(b)
		recycleFree(b.p)
	}
	after := readRecycleStats()
	if after.Live != before.Live {
		t.Errorf("%d bytes in use after all was freed, %d before", after.Live, before.Live)
	}
	if after.Reused == before.Reused {
		t.Error("no block was served again from kept memory")
	}
	// The end of a run hands back what is kept over the budget.
	recycleRunStarted()
	recycleRunDone(1 << 20)
	if s := readRecycleStats(); s.Held > 1<<20 {
		t.Errorf("%d bytes kept after a run ended with a budget of 1 MiB", s.Held)
	}
	t.Logf("mapped anew %d MB, served again %d MB, handed back %d blocks",
		(after.Fresh-before.Fresh)>>20, (after.Reused-before.Reused)>>20, after.Unmaps-before.Unmaps)
}

// TestRecyclerModel runs U2-Netp twice on the recycler, the second run on
// pages the first one wrote, and checks the answers are those of a session
// without it, bit for bit, that the runs did use it, and that closing the
// last session hands back what it kept between runs.
func TestRecyclerModel(t *testing.T) {
	dir := modelDir(t)
	input := u2netpInput(3)
	var between recycleStats
	run := func(recycle bool) []float32 {
		cfg := DefaultConfig(dir)
		cfg.Model, cfg.Recycle, cfg.RecycleKeep = ModelU2Netp, recycle, 1<<30
		seg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer seg.Close()
		out := runTwice(t, seg, input)
		between = readRecycleStats()
		return out
	}
	before := readRecycleStats()
	recycled := run(true)
	if between.Held == 0 {
		t.Error("nothing kept after the runs, with 1 GiB to keep")
	}
	closed := readRecycleStats()
	sameOutput(t, recycled, run(false), "on the recycler", "without it")
	if closed.Reused == before.Reused || closed.Fresh == before.Fresh {
		t.Errorf("the runs took nothing from the recycler: %+v before, %+v after", before, closed)
	}
	if closed.Live != 0 || closed.Held != 0 {
		t.Errorf("after the session closed: %d bytes in use, %d kept; want none", closed.Live, closed.Held)
	}
	if after := readRecycleStats(); after.Fresh != closed.Fresh {
		t.Errorf("a session without the recycler allocated from it: %+v, then %+v", closed, after)
	}
}

func TestRecyclerConfig(t *testing.T) {
	cfg := DefaultConfig(t.TempDir())
	cfg.MemArena = true
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Errorf("recycler and arena: Validate = %v, want an error saying they exclude each other", err)
	}
	cfg = DefaultConfig(t.TempDir())
	cfg.RecycleKeep = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("keep -1: Validate = %v, want an error saying it is negative", err)
	}
}
