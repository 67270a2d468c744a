package imaging

import (
	"fmt"
	"image"
	"testing"
)

// floodLabel is Label done the plain way, a flood fill from each unlabelled
// pixel: the reference Label's runs must agree with.
func floodLabel(set []bool, w, h int, eight bool) (labels []int32, comps []Component) {
	labels = make([]int32, w*h)
	for i := range labels {
		labels[i] = -1
	}
	stack := make([]int32, 0, 1024)
	for start := range set {
		if !set[start] || labels[start] >= 0 {
			continue
		}
		id := int32(len(comps))
		c := Component{}
		x0, y0, x1, y1 := w, h, -1, -1
		labels[start] = id
		stack = append(stack[:0], int32(start))
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			y := i / w
			x := i - y*w
			c.Area++
			c.SumX += x
			c.SumY += y
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				c.Border++
			}
			for dy := -1; dy <= 1; dy++ {
				ny := y + dy
				if ny < 0 || ny >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					nx := x + dx
					if nx < 0 || nx >= w || (dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0) {
						continue
					}
					j := ny*w + nx
					if set[j] && labels[j] < 0 {
						labels[j] = id
						stack = append(stack, int32(j))
					}
				}
			}
		}
		c.Box = image.Rect(x0, y0, x1+1, y1+1)
		comps = append(comps, c)
	}
	return labels, comps
}

func TestLabelMatchesFloodFill(t *testing.T) {
	for seed := range 300 {
		// Grids from 1×1 up, one row and one column among them, with
		// densities from sparse specks to nearly full.
		w, h := 1+seed%37, 1+(seed*7)%29
		set := make([]bool, w*h)
		x := uint32(seed*2654435761 + 1)
		for i := range set {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			set[i] = x%100 < uint32(20+seed%60)
		}
		for _, eight := range []bool{false, true} {
			gotL, gotC := Label(set, w, h, eight)
			wantL, wantC := floodLabel(set, w, h, eight)
			if fmt.Sprint(gotL, gotC) != fmt.Sprint(wantL, wantC) {
				t.Fatalf("%dx%d grid (seed %d, eight %v):\nlabels %v\n  want %v\nregions %v\n   want %v",
					w, h, seed, eight, gotL, wantL, gotC, wantC)
			}
		}
	}
}

func TestFillHoles(t *testing.T) {
	// A ring with a 1-pixel hole and a 4-pixel hole, and a notch open to
	// the grid's edge, which stays.
	grid := []string{
		"#######",
		"#.##..#",
		"####..#",
		"#######",
		"##.####",
	}
	w, h := len(grid[0]), len(grid)
	set := make([]bool, w*h)
	for y, row := range grid {
		for x, c := range row {
			set[y*w+x] = c == '#'
		}
	}
	for _, tc := range []struct {
		maxArea int
		want    []string
	}{
		{1, []string{"#######", "####..#", "####..#", "#######", "##.####"}},
		{w * h, []string{"#######", "#######", "#######", "#######", "##.####"}},
	} {
		got := append([]bool(nil), set...)
		FillHoles(got, w, h, tc.maxArea)
		for y, row := range tc.want {
			for x, c := range row {
				if got[y*w+x] != (c == '#') {
					t.Fatalf("maxArea %d: pixel (%d,%d) %v, want %v", tc.maxArea, x, y, got[y*w+x], c == '#')
				}
			}
		}
	}
}

func BenchmarkLabel(b *testing.B) {
	w, h := 1024, 768
	set := make([]bool, w*h)
	for y := 200; y < 600; y++ {
		for x := 150; x < 900; x++ {
			set[y*w+x] = (x*7+y*13)%11 != 0
		}
	}
	for _, eight := range []bool{false, true} {
		b.Run(fmt.Sprint("eight=", eight), func(b *testing.B) {
			for b.Loop() {
				Label(set, w, h, eight)
			}
		})
	}
}
