package pipeline

import (
	"image"
	"math"
	"testing"
)

// alphaBounds returns the bounds of the pixels that differ from bg.
func changedBounds(img *image.NRGBA, bg [4]uint8) image.Rectangle {
	r := image.Rectangle{}
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			p := img.Pix[y*img.Stride+4*x:]
			if absDiff(p[0], bg[0]) > 8 || absDiff(p[1], bg[1]) > 8 || absDiff(p[2], bg[2]) > 8 || absDiff(p[3], bg[3]) > 8 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

func absDiff(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }

func TestPlaceCar(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	W, H := 480.0, 300.0
	bw, bh := float64(car.Box.Dx()), float64(car.Box.Dy())
	tests := []struct {
		horizon, width, height float64
	}{
		{0.75, 0.8, 0.7},
		{0.5, 0.5, 0.7},
		{1, 1, 1},
		{0.9, 0.3, 0.1},
		{0.6, 1, 0.2},
	}
	for _, tt := range tests {
		out := render(t, e, car, det(), Step{"processorName": PlaceCar, "horizonLine": tt.horizon,
			"carWidth": tt.width, "carHeight": tt.height, "background": "#000000"})
		got := changedBounds(out, [4]uint8{0, 0, 0, 255})
		sc := math.Min(tt.width*W/bw, tt.height*H/bh)
		if w := float64(got.Dx()); math.Abs(w-bw*sc) > 3 {
			t.Errorf("%+v: car width %.0f, want %.0f", tt, w, bw*sc)
		}
		if h := float64(got.Dy()); math.Abs(h-bh*sc) > 3 {
			t.Errorf("%+v: car height %.0f, want %.0f", tt, h, bh*sc)
		}
		if got.Dx() > int(tt.width*W)+2 || got.Dy() > int(tt.height*H)+2 {
			t.Errorf("%+v: car %v larger than its share of the canvas", tt, got.Size())
		}
		if c := float64(got.Min.X+got.Max.X) / 2; math.Abs(c-W/2) > 2 {
			t.Errorf("%+v: car centred at x=%.1f, want %.1f", tt, c, W/2)
		}
		if b := float64(got.Max.Y); math.Abs(b-tt.horizon*H) > 2 {
			t.Errorf("%+v: car's ground at y=%.0f, want the horizon %.0f", tt, b, tt.horizon*H)
		}
	}
	// carWidth 0: the car disappears; the background stays.
	out := render(t, e, car, det(), Step{"processorName": PlaceCar, "carWidth": 0.0, "background": "#000000"})
	if r := changedBounds(out, [4]uint8{0, 0, 0, 255}); r.Dx() > 1 {
		t.Errorf("carWidth 0: car still %v wide", r.Size())
	}
}

func TestPlaceCarKeypointsLevelATiltedCar(t *testing.T) {
	for _, deg := range []float64{-3, 0, 2.5} {
		tilt := deg * math.Pi / 180
		car := NewSyntheticCar(480, 300, tilt)
		e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
		s := scene(t, e, car, det(), Step{"processorName": PlaceCar, "useKeypoints": true})
		for i, p := range []Point{s.Ground.Left, s.Ground.Right} {
			c := car.Contacts[i]
			if math.Hypot(p.X-c.X, p.Y-c.Y) > 6 {
				t.Errorf("tilt %.1f°: contact %d found at (%.1f,%.1f), want (%.1f,%.1f)", deg, i, p.X, p.Y, c.X, c.Y)
			}
		}
		if got := s.Place.Angle * 180 / math.Pi; math.Abs(got+deg) > 0.6 {
			t.Errorf("tilt %.1f°: turned by %.2f°, want %.2f°", deg, got, -deg)
		}
		// On the rendered canvas both contact points are on the horizon.
		for i, c := range car.Contacts {
			q := s.Place.forward(c)
			if math.Abs(q.Y-0.75*300) > 2 {
				t.Errorf("tilt %.1f°: contact %d lands at y=%.1f, want the horizon %.1f", deg, i, q.Y, 0.75*300)
			}
		}
	}
}
