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
