package imaging

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// plainMorph is the square filter done pixel by pixel: set when any
// (grow) or every (shrink) pixel within r is set, off the grid counting as
// outside.
func plainMorph(set []bool, w, h, r int, grow, outside bool) []bool {
	out := make([]bool, w*h)
	for y := range h {
		for x := range w {
			any, all := false, true
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					nx, ny := x+dx, y+dy
					v := outside
					if nx >= 0 && ny >= 0 && nx < w && ny < h {
						v = set[ny*w+nx]
					}
					any = any || v
					all = all && v
				}
			}
			if grow {
				out[y*w+x] = any
			} else {
				out[y*w+x] = all
			}
		}
	}
	return out
}

func TestMorphologyMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range [][2]int{{1, 1}, {1, 7}, {9, 1}, {5, 5}, {37, 23}, {70, 90}} {
		for _, share := range []float64{0, 0.05, 0.5, 0.95, 1} {
			w, h := size[0], size[1]
			set := make([]bool, w*h)
			for i := range set {
				set[i] = rng.Float64() < share
			}
			for _, r := range []int{0, 1, 2, 5, 40} {
				name := fmt.Sprintf("%dx%d %.2f r%d", w, h, share, r)
				check := func(op string, got, want []bool) {
					t.Helper()
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("%s %s:\n got %v\nwant %v", op, name, got, want)
					}
				}
				check("Dilate", Dilate(set, w, h, r), plainMorph(set, w, h, r, true, false))
				check("Erode", Erode(set, w, h, r), plainMorph(set, w, h, r, false, true))
				check("ErodeFromEdge", ErodeFromEdge(set, w, h, r), plainMorph(set, w, h, r, false, false))
			}
		}
	}
}

func BenchmarkDilate(b *testing.B) {
	w, h := 1024, 768
	set := make([]bool, w*h)
	for y := 200; y < 600; y++ {
		for x := 150; x < 900; x++ {
			set[y*w+x] = (x*7+y*13)%11 != 0
		}
	}
	for _, r := range []int{2, 12} {
		b.Run(fmt.Sprint("r", r), func(b *testing.B) {
			for b.Loop() {
				Dilate(set, w, h, r)
			}
		})
	}
}
