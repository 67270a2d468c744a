package vision

import (
	"image"
	"testing"
)

// TestCleanupDropsANeighboursSlice: beside the car, the photo cuts a
// neighbouring car parked behind it, whose visible slice the model joins
// to the car's front at less than its certainty about the car; the slice
// floats above the ground where it leaves the photo. A car the photo
// itself cuts keeps its cut end, which reaches down to its wheels.
func TestCleanupDropsANeighboursSlice(t *testing.T) {
	sal, _ := sideCar()
	slice := image.Rect(0, 95, 70, 180)
	fill(sal, slice, 0.85)
	fill(sal, image.Rect(60, 140, 330, 240), 0.98) // the car's body, in front
	got, c := keptOf(t, sal)
	if s := share(got, sal.W, image.Rect(0, 95, 50, 180)); s > 0.02 {
		t.Errorf("kept %.2f of the neighbour's slice at the photo's side, want none", s)
	}
	if s := share(got, sal.W, image.Rect(60, 140, 330, 240)); s < 0.98 {
		t.Errorf("kept %.2f of the car's body, want all", s)
	}
	if c.box.Min.X == 0 {
		t.Errorf("box %v still runs out of the photo's side", c.box)
	}
	// The car itself cut by the photo's left side, its cut end less sure.
	sal, _ = boxCar(image.Rect(0, 140, 330, 240), image.Rect(60, 85, 270, 140))
	fill(sal, image.Rect(0, 140, 40, 240), 0.85)
	got, _ = keptOf(t, sal)
	if s := share(got, sal.W, image.Rect(0, 140, 330, 240)); s < 0.98 {
		t.Errorf("kept %.2f of a car the photo cuts, want all", s)
	}
	// A mirror the photo cuts at its side, less sure than the body: a small
	// part of the car, kept.
	sal, _ = boxCar(image.Rect(20, 140, 330, 240), image.Rect(80, 85, 270, 140))
	mirror := image.Rect(0, 120, 22, 138)
	fill(sal, mirror, 0.85)
	fill(sal, image.Rect(18, 130, 24, 142), 0.85) // its arm, onto the body
	got, _ = keptOf(t, sal)
	if s := share(got, sal.W, mirror); s < 0.9 {
		t.Errorf("kept %.2f of a mirror the photo cuts, want all", s)
	}
}
