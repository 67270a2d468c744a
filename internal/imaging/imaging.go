// Package imaging holds the raster primitives that the vision and pipeline
// packages share, in pure Go: the antialiased resampling filter, the guided
// filter that brings a coarse layer to full resolution, the row-band
// parallel loop, the morphology of binary grids (Dilate, Erode), their
// connected components (Label, FillHoles), distance transforms (Distance,
// Chamfer) and the scalar ramps (Smoothstep, Clamp01).
package imaging

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Taps are the input samples and weights of one output sample of a 1-D
// resampling.
type Taps struct {
	Start int
	W     []float32
}

// ResampleTaps returns, for each of out output samples, the input samples
// and weights of an antialiased linear (triangle) filter from in samples:
// bilinear when enlarging, a triangle as wide as the scale when reducing,
// so no input pixel is skipped (the same filter as Pillow's BILINEAR).
func ResampleTaps(in, out int) []Taps {
	scale := float64(in) / float64(out)
	support := max(scale, 1)
	t := make([]Taps, out)
	for o := range t {
		c := (float64(o) + 0.5) * scale
		lo := max(int(math.Floor(c-support)), 0)
		hi := min(int(math.Ceil(c+support)), in)
		ws := make([]float32, 0, hi-lo)
		var sum float64
		for i := lo; i < hi; i++ {
			w := max(0, 1-math.Abs((float64(i)+0.5-c)/support))
			ws = append(ws, float32(w))
			sum += w
		}
		if sum == 0 {
			// Only possible at the very edge; take the nearest sample.
			lo, ws, sum = min(int(c), in-1), []float32{1}, 1
		}
		for i := range ws {
			ws[i] /= float32(sum)
		}
		t[o] = Taps{Start: lo, W: ws}
	}
	return t
}

// Parallel runs f over [0,n) in one band per CPU: full-resolution passes
// are memory-bound row loops that split cleanly. Small n runs inline.
func Parallel(n int, f func(lo, hi int)) {
	k := min(runtime.GOMAXPROCS(0), n)
	if k <= 1 || n < 64 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range k {
		lo, hi := n*i/k, n*(i+1)/k
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// ParallelUneven runs f over [0,n) like Parallel, for passes whose rows
// differ in cost (a car in the middle of a canvas, its shadow below it):
// bands of grain rows go to one goroutine per CPU as each finishes, so no
// core waits idle while another still has the expensive rows.
func ParallelUneven(n, grain int, f func(lo, hi int)) {
	k := min(runtime.GOMAXPROCS(0), (n+grain-1)/grain)
	if k <= 1 {
		f(0, n)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range k {
		wg.Go(func() {
			for {
				lo := int(next.Add(int64(grain))) - grain
				if lo >= n {
					return
				}
				f(lo, min(lo+grain, n))
			}
		})
	}
	wg.Wait()
}
