package imaging

import "testing"

// TestWatershedMeetsOnTheEdge: two floods from the ends of a row meet on
// its highest level, and a negative pixel stops them.
func TestWatershedMeetsOnTheEdge(t *testing.T) {
	const u = 0 // unsure
	label := []int8{1, u, u, u, u, u, 2, -1, u}
	levels := []int{0, 1, 1, 9, 2, 2, 0, 0, 0}
	Watershed(label, len(label), 10, func(i int) int { return levels[i] }, u)
	want := []int8{1, 1, 1, 1, 2, 2, 2, -1, u}
	for i := range want {
		if label[i] != want[i] {
			t.Fatalf("labels %v, want %v", label, want)
		}
	}
}

// TestWatershedFloodsInTwoDimensions: a wall of high levels down a 5×5
// grid keeps each side's flood on its side.
func TestWatershedFloodsInTwoDimensions(t *testing.T) {
	const w, u = 5, 0
	label := make([]int8, w*w)
	label[0], label[w*w-1] = 1, 2
	level := func(i int) int {
		if i%w == 2 {
			return 5
		}
		return 0
	}
	Watershed(label, w, 6, level, u)
	for i, l := range label {
		switch x := i % w; {
		case x < 2 && l != 1, x > 2 && l != 2, l == u:
			t.Fatalf("pixel (%d,%d) is %d: %v", x, i/w, l, label)
		}
	}
}

// BenchmarkWatershed floods a band 40 pixels wide around an ellipse, on a
// grid the size of a 12 MP photo's glass neighbourhood (the glass edge's
// snap, internal/pipeline), from the ellipse inside and the rest outside.
func BenchmarkWatershed(b *testing.B) {
	w, h := 1222, 528
	state := make([]int8, w*h)
	lv := make([]uint8, w*h)
	for y := range h {
		for x := range w {
			i := y*w + x
			dx, dy := x-w/2, y-h/2
			switch d := dx*dx/9 + dy*dy; {
			case d < 150*150:
				state[i] = 1
			case d < 190*190:
				state[i] = 0
			default:
				state[i] = 2
			}
			lv[i] = uint8((x*7 + y*13) % 40)
		}
	}
	label := make([]int8, w*h)
	for b.Loop() {
		copy(label, state)
		Watershed(label, w, 256, func(i int) int { return int(lv[i]) }, 0)
	}
}
