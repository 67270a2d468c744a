package pipeline

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBoxBlurMatchesDirectMean checks the running-sum blur against the
// plain definition, a (2rx+1)×(2ry+1) mean with edges clamped, applied
// twice, on planes smaller and larger than the window.
func TestBoxBlurMatchesDirectMean(t *testing.T) {
	direct := func(p plane, rx, ry int) plane {
		at := func(q plane, x, y int) float32 {
			return q.p[min(max(y, 0), q.h-1)*q.w+min(max(x, 0), q.w-1)]
		}
		for range 2 {
			out := newPlane(p.w, p.h)
			for y := range p.h {
				for x := range p.w {
					var s float64
					for dy := -ry; dy <= ry; dy++ {
						for dx := -rx; dx <= rx; dx++ {
							s += float64(at(p, x+dx, y+dy))
						}
					}
					out.p[y*p.w+x] = float32(s / float64((2*rx+1)*(2*ry+1)))
				}
			}
			p = out
		}
		return p
	}
	for _, size := range [][2]int{{1, 1}, {5, 3}, {3, 40}, {64, 48}} {
		for _, r := range [][2]int{{1, 1}, {0, 2}, {2, 0}, {3, 7}, {9, 9}} {
			p := newPlane(size[0], size[1])
			for i := range p.p {
				p.p[i] = float32((i*7919)%1000) / 1000
			}
			want := direct(p, r[0], r[1])
			p.boxBlurXY(r[0], r[1])
			for i := range p.p {
				if math.Abs(float64(p.p[i]-want.p[i])) > 1e-5 {
					t.Fatalf("%dx%d, radius %v: sample %d is %v, want %v", size[0], size[1], r, i, p.p[i], want.p[i])
				}
			}
		}
	}
}

// TestKth checks the selection against a sort, on shuffled, sorted,
// reversed and tied values.
func TestKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 300; n += 7 {
		for kind := range 4 {
			v := make([]float32, n)
			for i := range v {
				switch kind {
				case 0:
					v[i] = rng.Float32()
				case 1:
					v[i] = float32(i)
				case 2:
					v[i] = float32(n - i)
				case 3:
					v[i] = float32(rng.IntN(3))
				}
			}
			sorted := slices.Sorted(slices.Values(v))
			for _, k := range []int{0, n / 4, n / 2, n * 3 / 4, n - 1} {
				if got := kth(slices.Clone(v), k); got != sorted[k] {
					t.Fatalf("n %d, kind %d: kth %d is %v, sorted %v", n, kind, k, got, sorted[k])
				}
			}
		}
	}
}
