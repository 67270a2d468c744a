package pipeline

import (
	"image"
	"math"
	"testing"
)

func TestDetectCarShadowFindsTheShadowUnderTheCar(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	s := scene(t, e, car, det(), Step{"processorName": DetectCarShadow})
	if s.Shadow == nil || !s.ShadowDetected {
		t.Fatal("no shadow detected under a car that casts one")
	}
	g := s.work
	darkness := func(x, y float64) float64 { return float64(s.Shadow.sample(x*g.sx, y*g.sy)) }
	c := car.ShadowCenter
	// Below the car, between the wheels and beyond them, where the floor
	// shows: the layer matches the drawn darkness.
	for _, fx := range []float64{-0.8, -0.5, 0, 0.5, 0.8} {
		x := c.X + fx*car.ShadowRadii.X
		y := c.Y + car.ShadowRadii.Y*0.3
		ex, ey := (x-c.X)/car.ShadowRadii.X, (y-c.Y)/car.ShadowRadii.Y
		// The photo darkens sRGB values; the layer is linear light.
		k := 1 - car.ShadowDarkness*math.Pow(1-(ex*ex+ey*ey), 2)
		want := 1 - float64(srgbToLinear[uint8(math.Round(float64(car.Floor.G)*k))]/srgbToLinear[car.Floor.G])
		if got := darkness(x, y); math.Abs(got-want) > 0.12 {
			t.Errorf("darkness at (%.0f,%.0f) = %.2f, want %.2f", x, y, got, want)
		}
	}
	// The dark object on the floor is not the car's shadow.
	o := car.Object
	for y := o.Min.Y; y < o.Max.Y; y++ {
		for x := o.Min.X; x < o.Max.X; x++ {
			if d := darkness(float64(x)+0.5, float64(y)+0.5); d > 0.02 {
				t.Fatalf("dark object at (%d,%d) taken as shadow, darkness %.2f", x, y, d)
			}
		}
	}
	// Nothing above the car's lower half or far from it.
	for _, p := range []image.Point{{10, 10}, {car.Box.Min.X - 30, car.Box.Min.Y + 10}, {240, 20}} {
		if d := darkness(float64(p.X), float64(p.Y)); d != 0 {
			t.Errorf("darkness %.2f at %v, far from the car's ground", d, p)
		}
	}
}

func TestDetectCarShadowNoneOnAnEvenFloor(t *testing.T) {
	car := testCar(t)
	// Repaint the floor under the car without its shadow.
	photo := image.NewNRGBA(car.Photo.Rect)
	copy(photo.Pix, car.Photo.Pix)
	for y := range photo.Rect.Dy() {
		for x := range photo.Rect.Dx() {
			if car.Matte.GrayAt(x, y).Y == 0 && float64(y) > 0.55*300 && !(image.Point{x, y}).In(car.Object) {
				photo.SetNRGBA(x, y, car.Floor)
			}
		}
	}
	flat := *car
	flat.Photo = photo
	e := newTestEngine(t, &fakeSegmenter{car: &flat}, nil)
	s := scene(t, e, &flat, det(), Step{"processorName": DetectCarShadow})
	if s.ShadowDetected {
		t.Fatal("a shadow detected on an even floor")
	}
}
