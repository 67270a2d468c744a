package imaging

import (
	"math"
	"testing"
)

func TestBoxMeanMatchesDirectMean(t *testing.T) {
	const w, h, r = 13, 9, 2
	src := make([]float32, w*h)
	for i := range src {
		src[i] = float32((i*37)%11) / 10
	}
	dst, tmp := make([]float32, w*h), make([]float32, w*h)
	BoxMean(dst, tmp, src, w, h, r)
	for y := range h {
		for x := range w {
			var s float64
			n := 0
			for yy := max(y-r, 0); yy <= min(y+r, h-1); yy++ {
				for xx := max(x-r, 0); xx <= min(x+r, w-1); xx++ {
					s += float64(src[yy*w+xx])
					n++
				}
			}
			if got := float64(dst[y*w+x]); math.Abs(got-s/float64(n)) > 1e-5 {
				t.Fatalf("(%d,%d) = %.6f, want %.6f", x, y, got, s/float64(n))
			}
		}
	}
}

// TestGuidedCoefficientsFollowTheGuide: a layer that is a linear function
// of the guide is reproduced exactly, edges included.
func TestGuidedCoefficientsFollowTheGuide(t *testing.T) {
	const w, h = 20, 10
	I, p := make([]float32, w*h), make([]float32, w*h)
	for i := range I {
		if i%w >= 9 {
			I[i] = 0.8
		} else {
			I[i] = 0.2
		}
		p[i] = 1.5*I[i] - 0.3
	}
	a, b := GuidedCoefficients(I, p, w, h, 2, 1e-6, nil)
	for i := range I {
		if q := a[i]*I[i] + b[i]; math.Abs(float64(q-p[i])) > 1e-3 {
			t.Fatalf("sample %d: q %.4f, want %.4f", i, q, p[i])
		}
	}
}

func TestBilinearIndex(t *testing.T) {
	// Four outputs over two inputs: centres at -0.25, 0.25, 0.75, 1.25.
	i0, i1, f := BilinearIndex(0, 4, 0.5, 0, 2)
	want := []struct {
		i0, i1 int
		f      float32
	}{{0, 1, 0}, {0, 1, 0.25}, {0, 1, 0.75}, {1, 1, 0}}
	for o, w := range want {
		if i0[o] != w.i0 || i1[o] != w.i1 || math.Abs(float64(f[o]-w.f)) > 1e-6 {
			t.Errorf("output %d: %d,%d,%.2f; want %d,%d,%.2f", o, i0[o], i1[o], f[o], w.i0, w.i1, w.f)
		}
	}
	// An origin crops the input: outputs 2 and 3 of the same map over the
	// inputs from 1 on.
	i0, i1, f = BilinearIndex(2, 4, 0.5, 1, 2)
	if i0[0] != 0 || i1[0] != 1 || f[0] != 0 || i0[1] != 0 || math.Abs(float64(f[1])-0.25) > 1e-6 {
		t.Errorf("cropped: %v %v %v, want [0 0] [1 1] [0 0.25]", i0, i1, f)
	}
}
