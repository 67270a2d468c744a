package pipeline

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
)

func TestDetectCarShadowFindsTheShadowUnderTheCar(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	s := scene(t, e, car, det(), Step{"processorName": DetectCarShadow})
	if s.Shadow == nil || !s.ShadowDetected {
		t.Fatal("no shadow detected under a car that casts one")
	}
	g := s.work
	darkness := func(x, y float64) float64 { return float64(s.Shadow.Sample(x*g.sx, y*g.sy)) }
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

// TestDetectCarShadowInTheShade parks the test car in a building's shade,
// with the sun on the ground further off, as outdoor photos often show:
// the shaded ground around the car is not its shadow, while the darker
// shadow under it still is.
func TestDetectCarShadowInTheShade(t *testing.T) {
	car := widen(testCar(t), 240)
	w, h := car.Photo.Rect.Dx(), car.Photo.Rect.Dy()
	shade := car.Box.Inset(-120)
	for y := int(0.55 * float64(h)); y < h; y++ {
		for x := range w {
			if car.Matte.GrayAt(x, y).Y != 0 || !(image.Point{x, y}).In(shade) {
				continue
			}
			p := car.Photo.Pix[y*car.Photo.Stride+4*x:]
			for c := range 3 {
				p[c] = uint8(math.Round(float64(p[c]) * 0.6))
			}
		}
	}
	checkShadowOnly(t, car)
}

// TestDetectCarShadowNotABuildingsShade parks the test car in a
// building's shade that reaches the photo's left and bottom edges, the sun
// on the floor beyond the car's right end, as the 12 MP Fords stand: the
// floor around the car is partly sunlit, so the shade looks dark against
// it. The shade is not the car's shadow (it runs far beyond the car, to
// the photo's edges, and its edge is not shaped by the car): only the
// car's own shadow under it is kept.
func TestDetectCarShadowNotABuildingsShade(t *testing.T) {
	car := widen(testCar(t), 240)
	w, h := car.Photo.Rect.Dx(), car.Photo.Rect.Dy()
	ground := car.ShadowCenter.Y
	// The shade's edge: a straight line from above the car's right end
	// down to the left, as a building's corner casts it.
	edge := func(y int) float64 { return float64(car.Box.Max.X) + 20 - 8*(float64(y)-ground) }
	for y := int(0.55 * float64(h)); y < h; y++ {
		for x := range w {
			if car.Matte.GrayAt(x, y).Y != 0 || float64(x) > edge(y) {
				continue
			}
			p := car.Photo.Pix[y*car.Photo.Stride+4*x:]
			for c := range 3 {
				p[c] = uint8(math.Round(float64(p[c]) * 0.6))
			}
		}
	}
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	s := scene(t, e, car, det(), Step{"processorName": DetectCarShadow})
	if s.Shadow == nil || !s.ShadowDetected {
		t.Fatal("no shadow detected under a car that casts one")
	}
	g := s.work
	darkness := func(x, y float64) float64 { return float64(s.Shadow.Sample(x*g.sx, y*g.sy)) }
	c, r := car.ShadowCenter, car.ShadowRadii
	var under, n float64
	for x := c.X - 0.7*r.X; x <= c.X+0.7*r.X; x += 4 {
		if car.Matte.GrayAt(int(x), int(c.Y+0.3*r.Y)).Y == 0 {
			under += darkness(x, c.Y+0.3*r.Y)
			n++
		}
	}
	if under/n < 0.25 {
		t.Errorf("the shadow under the car has darkness %.2f on average, want at least 0.25", under/n)
	}
	// The shaded floor beside the car, beyond its shadow: to its left,
	// in front of it, and behind its left end.
	bw := float64(car.Box.Dx())
	for _, p := range []Point{
		{float64(car.Box.Min.X) - 0.12*bw, c.Y},
		{float64(car.Box.Min.X) - 0.2*bw, c.Y + 3*r.Y},
		{c.X - 0.2*bw, c.Y + 4*r.Y},
		{float64(car.Box.Min.X) - 0.1*bw, c.Y - 2*r.Y},
	} {
		if d := darkness(p.X, p.Y); d > 0.08 {
			t.Errorf("the building's shade at (%.0f,%.0f) kept as the car's shadow, darkness %.2f", p.X, p.Y, d)
		}
	}
}

// TestDetectCarShadowOnGravel draws the test car on a coarse floor, each
// pixel up to 20% lighter or darker: the floor's texture around the car is
// not its shadow.
func TestDetectCarShadowOnGravel(t *testing.T) {
	car := testCar(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for y := int(0.55 * float64(car.Photo.Rect.Dy())); y < car.Photo.Rect.Dy(); y++ {
		for x := range car.Photo.Rect.Dx() {
			if car.Matte.GrayAt(x, y).Y != 0 || (image.Point{x, y}).In(car.Object) {
				continue
			}
			k := 0.8 + 0.4*rng.Float64()
			p := car.Photo.Pix[y*car.Photo.Stride+4*x:]
			for c := range 3 {
				p[c] = uint8(min(255, math.Round(float64(p[c])*k)))
			}
		}
	}
	checkShadowOnly(t, car)
}

// checkShadowOnly runs shadow detection on car and checks that its
// shadow is found, and no darkness on the floor away from it.
func checkShadowOnly(t *testing.T, car *drawncar.Car) {
	t.Helper()
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	s := scene(t, e, car, det(), Step{"processorName": DetectCarShadow})
	if s.Shadow == nil || !s.ShadowDetected {
		t.Fatal("no shadow detected under a car that casts one")
	}
	g := s.work
	darkness := func(x, y int) float64 {
		return float64(s.Shadow.Sample((float64(x)+0.5)*g.sx, (float64(y)+0.5)*g.sy))
	}
	c, r := car.ShadowCenter, car.ShadowRadii
	var under, n float64
	for y := int(c.Y - r.Y); y <= int(c.Y+2*r.Y); y++ {
		for x := car.Box.Min.X - 40; x < car.Box.Max.X+40; x++ {
			if car.Matte.GrayAt(x, y).Y != 0 {
				continue
			}
			ex, ey := (float64(x)-c.X)/r.X, (float64(y)-c.Y)/r.Y
			switch e := ex*ex + ey*ey; {
			// The kept shadow's edge is soft, so it reaches a few pixels
			// beyond the drawn one's: the floor is checked beyond that.
			case e > 2.2 && !nearCar(car, x, y, 6) && darkness(x, y) > 0.08:
				t.Fatalf("floor at (%d,%d), off the car's shadow, has darkness %.2f", x, y, darkness(x, y))
			case e < 0.25:
				under += darkness(x, y)
				n++
			}
		}
	}
	if under/n < 0.25 {
		t.Errorf("the shadow under the car has darkness %.2f on average, want at least 0.25", under/n)
	}
}

// widen returns car on a photo pad pixels wider on each side, the wall
// and floor continued.
func widen(car *drawncar.Car, pad int) *drawncar.Car {
	w, h := car.Photo.Rect.Dx(), car.Photo.Rect.Dy()
	out := *car
	out.Photo = image.NewNRGBA(image.Rect(0, 0, w+2*pad, h))
	out.Matte = image.NewGray(out.Photo.Rect)
	out.Raw = image.NewGray(out.Photo.Rect)
	out.Windows = image.NewGray(out.Photo.Rect)
	for y := range h {
		for x := range w + 2*pad {
			out.Photo.SetNRGBA(x, y, car.Photo.NRGBAAt(min(max(x-pad, 0), w-1), y))
		}
		for _, m := range [][2]*image.Gray{{out.Matte, car.Matte}, {out.Raw, car.Raw}, {out.Windows, car.Windows}} {
			copy(m[0].Pix[y*m[0].Stride+pad:], m[1].Pix[y*m[1].Stride:y*m[1].Stride+w])
		}
	}
	d := image.Pt(pad, 0)
	out.Box, out.Object = car.Box.Add(d), car.Object.Add(d)
	out.ShadowCenter.X += float64(pad)
	for i := range out.Contacts {
		out.Contacts[i].X += float64(pad)
	}
	return &out
}

// nearCar reports whether the car covers any pixel within r of (x, y).
func nearCar(car *drawncar.Car, x, y, r int) bool {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if car.Matte.GrayAt(x+dx, y+dy).Y != 0 {
				return true
			}
		}
	}
	return false
}
