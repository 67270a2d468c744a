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
	input := make([]float32, 3*320*320)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range input {
		input[i] = r.Float32()*4 - 2
	}
	run := func(shrink bool) []float32 {
		cfg := DefaultConfig(dir)
		cfg.Model, cfg.MemArena, cfg.MemPattern, cfg.ArenaShrinkage = ModelU2Netp, true, true, shrink
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
		var out []float32
		for range 2 { // the second run reuses (or, shrunk, reallocates) the arena
			sal, _, err := seg.model.run(context.Background(), input)
			if err != nil {
				t.Fatal(err)
			}
			out = sal
		}
		return out
	}
	with, without := run(true), run(false)
	for i := range with {
		if with[i] != without[i] {
			t.Fatalf("output %d: %v with shrinkage, %v without", i, with[i], without[i])
		}
	}
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

// TestExactArena runs U2-Netp twice with the environment's exact arena (the
// second run reuses what the first left in it): the answers are those of a
// session without an arena. (That the arena is in use shows in memory:
// BenchmarkInference's arena=exact row peaks between off and on.)
func TestExactArena(t *testing.T) {
	dir := modelDir(t)
	input := make([]float32, 3*320*320)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range input {
		input[i] = r.Float32()*4 - 2
	}
	run := func(exact bool) []float32 {
		cfg := DefaultConfig(dir)
		cfg.Model, cfg.MemArena, cfg.ExactArena = ModelU2Netp, exact, exact
		seg, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer seg.Close()
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
	with, without := run(true), run(false)
	for i := range with {
		if with[i] != without[i] {
			t.Fatalf("output %d: %v from the exact arena, %v without an arena", i, with[i], without[i])
		}
	}
	for _, c := range []struct{ arena, pattern bool }{{false, false}, {true, true}} {
		cfg := DefaultConfig(dir)
		cfg.ExactArena, cfg.MemArena, cfg.MemPattern = true, c.arena, c.pattern
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "exact arena") {
			t.Errorf("arena %v, pattern %v: Validate = %v, want an error about the exact arena", c.arena, c.pattern, err)
		}
	}
}
