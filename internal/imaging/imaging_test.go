package imaging

import (
	"math"
	"sync/atomic"
	"testing"
)

func TestResampleTaps(t *testing.T) {
	for _, tc := range []struct{ in, out int }{{10, 10}, {4032, 1024}, {768, 1024}, {3, 1}, {1, 5}} {
		taps := ResampleTaps(tc.in, tc.out)
		if len(taps) != tc.out {
			t.Fatalf("%d→%d: %d taps", tc.in, tc.out, len(taps))
		}
		for o, tp := range taps {
			var sum float64
			for _, w := range tp.W {
				sum += float64(w)
			}
			if math.Abs(sum-1) > 1e-5 || tp.Start < 0 || tp.Start+len(tp.W) > tc.in {
				t.Errorf("%d→%d sample %d: weights sum %.6f, span %d+%d", tc.in, tc.out, o, sum, tp.Start, len(tp.W))
			}
		}
	}
	// Same size: each output sample is its input sample.
	for o, tp := range ResampleTaps(10, 10) {
		for i, w := range tp.W {
			if want := float32(0); tp.Start+i == o {
				want = 1
				if w != want {
					t.Errorf("identity sample %d: weight %v on itself", o, w)
				}
			} else if w != 0 {
				t.Errorf("identity sample %d: weight %v on %d", o, w, tp.Start+i)
			}
		}
	}
}

func TestParallelCoversEveryRowOnce(t *testing.T) {
	for name, parallel := range map[string]func(int, func(lo, hi int)){
		"Parallel":          Parallel,
		"ParallelUneven/1":  func(n int, f func(lo, hi int)) { ParallelUneven(n, 1, f) },
		"ParallelUneven/16": func(n int, f func(lo, hi int)) { ParallelUneven(n, 16, f) },
	} {
		for _, n := range []int{0, 1, 15, 16, 17, 63, 64, 1000} {
			seen := make([]atomic.Int32, n)
			parallel(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			})
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("%s, n=%d: row %d visited %d times", name, n, i, c)
				}
			}
		}
	}
}
