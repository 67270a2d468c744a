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

// carWithWatermark is a car seen from the front (boxCar's body and
// cabin, a mirror, the bumper's corners a little wider than the body) and
// a seller's logo stamped in the photo's corner over the bumper's right
// corner and out onto the floor, held as sure as the car (032-037 of
// glass-more); car is the car alone, beyond the logo's part outside it.
func carWithWatermark() (sal plane, car []bool, corners []image.Rectangle, beyond image.Rectangle) {
	sal, car = boxCar(image.Rect(80, 130, 320, 250), image.Rect(110, 70, 290, 130))
	corners = []image.Rectangle{image.Rect(74, 215, 80, 245), image.Rect(320, 215, 326, 245)}
	for _, r := range append([]image.Rectangle{image.Rect(290, 110, 310, 125)}, corners...) {
		fill(sal, r, 0.98)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				car[y*sal.W+x] = true
			}
		}
	}
	fill(sal, image.Rect(300, 205, 370, 262), 0.95)
	return sal, car, corners, image.Rect(335, 205, 370, 262)
}

// TestCleanupDropsAWatermarkAtTheFoot: a logo the model joins to the
// bumper it touches stands out, at the car's foot, beyond the sides of the
// body above, where no bumper or tyre does. The bumper's corners, a little
// wider than the body, stay, and so does the foot of a car the photo cuts
// at that side.
func TestCleanupDropsAWatermarkAtTheFoot(t *testing.T) {
	sal, _, corners, beyond := carWithWatermark()
	got, c := keptOf(t, sal)
	if s := share(got, sal.W, beyond); s > 0 {
		t.Errorf("kept %.2f of the watermark beyond the car, want none", s)
	}
	for _, r := range corners {
		if s := share(got, sal.W, r); s < 0.95 {
			t.Errorf("kept %.2f of the bumper's corner %v, want all", s, r)
		}
	}
	if body := image.Rect(80, 130, 320, 250); share(got, sal.W, body) < 0.98 {
		t.Errorf("kept %.2f of the car's body, want all", share(got, sal.W, body))
	}
	if c.box.Max.X > beyond.Min.X {
		t.Errorf("box %v reaches the watermark", c.box)
	}
	// The same car cut by the photo's right side: its foot runs out of
	// the photo with it, and is kept.
	sal, _ = boxCar(image.Rect(80, 130, 400, 250), image.Rect(110, 70, 330, 130))
	low := image.Rect(330, 215, 400, 262)
	fill(sal, low, 0.98)
	got, _ = keptOf(t, sal)
	if s := share(got, sal.W, low); s < 0.95 {
		t.Errorf("kept %.2f of the foot of a car the photo cuts, want all", s)
	}
}
