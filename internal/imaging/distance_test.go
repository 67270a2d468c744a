package imaging

import (
	"math"
	"testing"
)

func TestDistanceIsEuclidean(t *testing.T) {
	const w, h = 17, 11
	set := make([]bool, w*h)
	pts := [][2]int{{2, 3}, {12, 8}, {15, 1}}
	for _, p := range pts {
		set[p[1]*w+p[0]] = true
	}
	d := Distance(set, w, h)
	for y := range h {
		for x := range w {
			want := math.Inf(1)
			for _, p := range pts {
				want = math.Min(want, math.Hypot(float64(x-p[0]), float64(y-p[1])))
			}
			if math.Abs(float64(d[y*w+x])-want) > 1e-4 {
				t.Fatalf("(%d,%d): %.4f, want %.4f", x, y, d[y*w+x], want)
			}
		}
	}
	if d := Distance(make([]bool, 4), 2, 2); !math.IsInf(float64(d[0]), 1) {
		t.Errorf("nothing set: %v, want +Inf", d[0])
	}
}
