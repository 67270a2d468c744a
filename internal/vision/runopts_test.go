package vision

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestArenaShrinkage runs U2-Netp with the arena and shrinkage after each
// run, and without shrinkage: the entry is set on the run options the
// session uses, and the answers are the same.
func TestArenaShrinkage(t *testing.T) {
	dir := modelDir(t)
	input := u2netpInput(1)
	run := func(shrink bool) []float32 {
		cfg := DefaultConfig(dir)
		cfg.Model, cfg.Recycle = ModelU2Netp, false
		cfg.MemArena, cfg.MemPattern, cfg.ArenaShrinkage = true, true, shrink
		seg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer seg.Close()
		if shrink {
			got, err := runConfigEntry(dir+"/"+LibraryFile, seg.model.runOpts, arenaShrinkage)
			if err != nil || got != "cpu:0" {
				t.Fatalf("run option %s = %q, %v; want cpu:0", arenaShrinkage, got, err)
			}
		}
		// The second run reuses (or, shrunk, reallocates) the arena.
		return runTwice(t, seg, input)
	}
	sameOutput(t, run(true), run(false), "with shrinkage", "without")
}

func TestArenaShrinkageNeedsArena(t *testing.T) {
	cfg := DefaultConfig(t.TempDir())
	cfg.ArenaShrinkage = true
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "arena") {
		t.Fatalf("Validate = %v, want an error about the arena", err)
	}
}

// memStatus returns a /proc/self/status entry (VmHWM, VmRSS) in MB.
func memStatus(b testing.TB, key string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == key+":" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1000
		}
	}
	return 0
}

// u2netpInput is a random U2-Netp input (3×320×320, normalised range), the
// same for the same seed.
func u2netpInput(seed uint64) []float32 {
	input := make([]float32, 3*320*320)
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := range input {
		input[i] = r.Float32()*4 - 2
	}
	return input
}

// runTwice runs seg's model on input twice and returns the second answer.
func runTwice(t *testing.T, seg *Segmenter, input []float32) []float32 {
	t.Helper()
	var out []float32
	for range 2 {
		sal, _, err := seg.model.run(context.Background(), input)
		if err != nil {
			t.Fatal(err)
		}
		out = sal
	}
	return out
}

// sameOutput fails t at the first value where a and b differ.
func sameOutput(t *testing.T, a, b []float32, aName, bName string) {
	t.Helper()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("output %d: %v %s, %v %s", i, a[i], aName, b[i], bName)
		}
	}
}

// TestSignatureNamesWhatMasksCarry: the mask cache keys by the signature,
// so it must change with the model, the second opinion and the
// activations read (a decoder stage added to the glass detector's).
func TestSignatureNamesWhatMasksCarry(t *testing.T) {
	isnet := &Segmenter{cfg: DefaultConfig("")}
	alone := &Segmenter{cfg: Config{Model: ModelISNet}}
	u2 := &Segmenter{cfg: Config{Model: ModelU2Netp, SecondOpinion: true}}
	sigs := map[string]bool{isnet.Signature(): true, alone.Signature(): true, u2.Signature(): true}
	if len(sigs) != 3 {
		t.Errorf("signatures %q, %q, %q are not all different", isnet.Signature(), alone.Signature(), u2.Signature())
	}
	for _, f := range models[ModelISNet].features {
		if !strings.Contains(isnet.Signature(), f) {
			t.Errorf("IS-Net's signature %q does not name its activation %s", isnet.Signature(), f)
		}
	}
}
