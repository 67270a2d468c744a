package pipeline

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
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
		// A car that would be enlarged keeps its pixels on a smaller
		// canvas instead (TestPlaceCarDoesNotEnlargeTheCar).
		W, H := W, H
		if sc > 1 {
			W, H = float64(out.Rect.Dx()), float64(out.Rect.Dy())
			sc = math.Min(tt.width*W/bw, tt.height*H/bh)
		}
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
		car := drawncar.New(480, 300, tilt)
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
		H := float64(s.Canvas.Y)
		for i, c := range car.Contacts {
			q := s.Place.forward(Point(c))
			if math.Abs(q.Y-0.75*H) > 2 {
				t.Errorf("tilt %.1f°: contact %d lands at y=%.1f, want the horizon %.1f", deg, i, q.Y, 0.75*H)
			}
		}
	}
}

// TestPlaceCarFarTyresOnTheHorizon: on a plain colour the horizon is the
// ground line of the far wheels; the near wheel stands lower, as
// photographed, whether or not useKeypoints is set (its levelling leaves
// a difference this large alone: it is perspective, not tilt).
func TestPlaceCarFarTyresOnTheHorizon(t *testing.T) {
	car := drawncar.NewInView(480, 300, 0, 0.05)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	for _, keypoints := range []bool{false, true} {
		out := render(t, e, car, det(), Step{"processorName": PlaceCar, "horizonLine": 0.7, "carWidth": 0.6,
			"background": "#FFFFFF", "useKeypoints": keypoints})
		c, ok := tyres(out)
		if !ok {
			t.Fatal("no tyres in the output")
		}
		H := float64(out.Rect.Dy())
		if math.Abs(c[0].Y-0.7*H) > 2 {
			t.Errorf("useKeypoints %v: far tyre meets the ground at y=%.0f, want the horizon %.0f", keypoints, c[0].Y, 0.7*H)
		}
		scale := float64(changedBounds(out, [4]uint8{255, 255, 255, 255}).Dx()) / float64(car.Box.Dx())
		if want := (car.Contacts[1].Y - car.Contacts[0].Y) * scale; math.Abs(c[1].Y-c[0].Y-want) > 2 {
			t.Errorf("useKeypoints %v: near tyre %.0f px below the far one, want %.0f", keypoints, c[1].Y-c[0].Y, want)
		}
	}
}

// TestPlaceCarDoesNotEnlargeTheCar: the canvas is the photo's size
// whatever the car's share of it: a car smaller than carWidth of it is
// enlarged, never the output made smaller than the photo.
func TestPlaceCarDoesNotEnlargeTheCar(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	for _, width := range []float64{0.5, 0.95} {
		out := render(t, e, car, det(), Step{"processorName": PlaceCar, "carWidth": width, "carHeight": 1.0, "background": "#000000"})
		got := changedBounds(out, [4]uint8{0, 0, 0, 255})
		if w, h := out.Rect.Dx(), out.Rect.Dy(); w != 480 || h != 300 {
			t.Errorf("carWidth %.2f: canvas %dx%d, want the photo's 480x300", width, w, h)
		}
		if share := float64(got.Dx()) / 480; math.Abs(share-width) > 0.01 {
			t.Errorf("carWidth %.2f: car %.3f of the canvas wide", width, share)
		}
	}
}

// TestPlaceCarKeepsAnEarlierBackground: PlaceCarProcessor without its own
// background re-places the car on the background an earlier processor
// set (an uploaded studio, a colour) instead of painting it white; with
// one of its own, on a configuration without another, it paints it.
func TestPlaceCarKeepsAnEarlierBackground(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{"room": studio(640, 400, 0.7)})
	add := Step{"processorName": AddBackgroundAndCrop, "background": "room", "horizonLine": 0.7}
	place := Step{"processorName": PlaceCar, "carWidth": 0.5}
	for _, tt := range []struct {
		name  string
		steps []Step
		wall  func(color.NRGBA) bool
	}{
		{"studio", []Step{det(), add, place}, isWall},
		{"colour", []Step{det(), {"processorName": CleanBackground, "color": "#102030"}, place},
			func(c color.NRGBA) bool { return near(c, color.NRGBA{0x10, 0x20, 0x30, 255}, 3) }},
		{"own colour", []Step{det(), {"processorName": PlaceCar, "background": "#000000"}},
			func(c color.NRGBA) bool { return near(c, color.NRGBA{0, 0, 0, 255}, 3) }},
	} {
		out := render(t, e, car, tt.steps...)
		if c := at(out, 2, 2); !tt.wall(c) {
			t.Errorf("%s: top-left corner %v, not the earlier background", tt.name, c)
		}
	}
}
