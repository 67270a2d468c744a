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

// TestSeedOf walks back from flooded pixels to the seed that reached them:
// two seeds at the ends of a row, a wall between the rows but at the left.
func TestSeedOf(t *testing.T) {
	const w, h = 5, 2
	seed := make([]bool, w*h)
	seed[0], seed[4] = true, true
	wall := func(i int) bool { return i == 1*w+0 || i < w }
	steps := Steps(seed, w, h, 100, wall)
	for i, want := range map[int]int{0: 0, 1: 0, 3: 4, 4: 4, 1*w + 0: 0} {
		if got := SeedOf(steps, w, i); got != want {
			t.Errorf("pixel %d walks back to %d, want seed %d", i, got, want)
		}
	}
}
