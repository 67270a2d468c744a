package imaging

import (
	"slices"
	"testing"
)

func TestSteps(t *testing.T) {
	// 5×3, one seed at the left of the middle row; the middle column's
	// top two pixels are walls.
	const w, h = 5, 3
	seed := make([]bool, w*h)
	seed[1*w+0] = true
	wall := func(i int) bool { return i != 0*w+2 && i != 1*w+2 }
	got := Steps(seed, w, h, 100, wall)
	want := []int32{
		1, 2, -1, 6, 7,
		0, 1, -1, 5, 6,
		1, 2, 3, 4, 5,
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps around a wall:\n got %v\nwant %v", got, want)
	}
	// A limit stops the flood: nothing beyond two steps.
	got = Steps(seed, w, h, 2, nil)
	want = []int32{
		1, 2, -1, -1, -1,
		0, 1, 2, -1, -1,
		1, 2, -1, -1, -1,
	}
	if !slices.Equal(got, want) {
		t.Errorf("steps within 2:\n got %v\nwant %v", got, want)
	}
	// Rows do not wrap: a seed at a row's end does not reach the next
	// row's start in one step.
	seed = make([]bool, w*h)
	seed[0*w+4] = true
	if d := Steps(seed, w, h, 100, nil)[1*w+0]; d != 5 {
		t.Errorf("steps from the first row's end to the second row's start: %d, want 5", d)
	}
}
