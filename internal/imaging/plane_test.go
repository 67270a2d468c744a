package imaging

import (
	"math"
	"testing"
)

// TestBoxBlurMatchesDirectMean checks the running-sum blur against the
// plain definition, a (2rx+1)×(2ry+1) mean with edges clamped, applied
// twice, on Planes smaller and larger than the window.
func TestBoxBlurMatchesDirectMean(t *testing.T) {
	direct := func(p Plane, rx, ry int) Plane {
		at := func(q Plane, x, y int) float32 {
			return q.Pix[min(max(y, 0), q.H-1)*q.W+min(max(x, 0), q.W-1)]
		}
		for range 2 {
			out := NewPlane(p.W, p.H)
			for y := range p.H {
				for x := range p.W {
					var s float64
					for dy := -ry; dy <= ry; dy++ {
						for dx := -rx; dx <= rx; dx++ {
							s += float64(at(p, x+dx, y+dy))
						}
					}
					out.Pix[y*p.W+x] = float32(s / float64((2*rx+1)*(2*ry+1)))
				}
			}
			p = out
		}
		return p
	}
	for _, size := range [][2]int{{1, 1}, {5, 3}, {3, 40}, {64, 48}} {
		for _, r := range [][2]int{{1, 1}, {0, 2}, {2, 0}, {3, 7}, {9, 9}} {
			p := NewPlane(size[0], size[1])
			for i := range p.Pix {
				p.Pix[i] = float32((i*7919)%1000) / 1000
			}
			want := direct(p, r[0], r[1])
			p.BoxBlurXY(r[0], r[1])
			for i := range p.Pix {
				if math.Abs(float64(p.Pix[i]-want.Pix[i])) > 1e-5 {
					t.Fatalf("%dx%d, radius %v: sample %d is %v, want %v", size[0], size[1], r, i, p.Pix[i], want.Pix[i])
				}
			}
		}
	}
}
