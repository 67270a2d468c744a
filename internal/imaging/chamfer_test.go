package imaging

import (
	"math/rand/v2"
	"testing"
)

// TestChamferIsPlain checks Chamfer against the chamfer done
// the plain way, each pixel taking its four neighbours behind it in turn:
// the same distances to the bit, on grids of one row or column, with
// nothing set, a few pixels or most of them.
func TestChamferIsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, size := range [][2]int{{1, 1}, {1, 9}, {9, 1}, {2, 2}, {37, 23}, {200, 150}} {
		for _, share := range []float64{0, 0.002, 0.3, 0.97} {
			w, h := size[0], size[1]
			set := make([]bool, w*h)
			for i := range set {
				set[i] = r.Float64() < share
			}
			got, want := Chamfer(set, w, h), plainChamfer(set, w, h)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%dx%d, %.3f set: pixel %d at %v, want %v", w, h, share, i, got[i], want[i])
				}
			}
		}
	}
}

// plainChamfer is the two-pass chamfer distance, each pixel in turn.
func plainChamfer(set []bool, w, h int) []float32 {
	d := make([]float32, w*h)
	for i, on := range set {
		d[i] = 1e9
		if on {
			d[i] = 0
		}
	}
	const a, b = 1, 1.4142
	for y := range h {
		for x := range w {
			i, v := y*w+x, d[y*w+x]
			if x > 0 {
				v = min(v, d[i-1]+a)
			}
			if y > 0 {
				v = min(v, d[i-w]+a)
				if x > 0 {
					v = min(v, d[i-w-1]+b)
				}
				if x < w-1 {
					v = min(v, d[i-w+1]+b)
				}
			}
			d[i] = v
		}
	}
	for y := h - 1; y >= 0; y-- {
		for x := w - 1; x >= 0; x-- {
			i, v := y*w+x, d[y*w+x]
			if x < w-1 {
				v = min(v, d[i+1]+a)
			}
			if y < h-1 {
				v = min(v, d[i+w]+a)
				if x < w-1 {
					v = min(v, d[i+w+1]+b)
				}
				if x > 0 {
					v = min(v, d[i+w-1]+b)
				}
			}
			d[i] = v
		}
	}
	return d
}

func BenchmarkChamfer(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	w, h := 1024, 768
	set := make([]bool, w*h)
	for y := 200; y < 600; y++ {
		for x := 150; x < 900; x++ {
			set[y*w+x] = r.Float64() < 0.9
		}
	}
	b.Run("rows", func(b *testing.B) {
		for b.Loop() {
			Chamfer(set, w, h)
		}
	})
	b.Run("plain", func(b *testing.B) {
		for b.Loop() {
			plainChamfer(set, w, h)
		}
	})
}
