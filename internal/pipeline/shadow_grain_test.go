package pipeline

import (
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
)

// darknessOf returns how much darker than bg each pixel of out is, in
// linear light: what the shadow layer did to the background.
func darknessOf(out *image.NRGBA, bg color.NRGBA) plane {
	w, h := out.Rect.Dx(), out.Rect.Dy()
	d := newPlane(w, h)
	lin := func(r, g, b uint8) float64 {
		return 0.2126*float64(srgbToLinear[r]) + 0.7152*float64(srgbToLinear[g]) + 0.0722*float64(srgbToLinear[b])
	}
	ref := lin(bg.R, bg.G, bg.B)
	for y := range h {
		for x := range w {
			c := out.NRGBAAt(x, y)
			d.Pix[y*w+x] = float32(1 - lin(c.R, c.G, c.B)/ref)
		}
	}
	return d
}

// grain returns the root mean square of d's departure from its own
// smooth fit (a box blur of radius r, twice) over the pixels in area: the
// energy of the layer's detail finer than r.
func grain(d plane, area []bool, r int) float64 {
	fit := newPlane(d.W, d.H)
	copy(fit.Pix, d.Pix)
	fit.BoxBlur(r)
	var sum, n float64
	for i, in := range area {
		if in {
			e := float64(d.Pix[i] - fit.Pix[i])
			sum += e * e
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(sum / n)
}

// TestShadowWithoutGroundGrain renders the kept shadow of a car on
// asphalt onto white: the shadow is there, as dark as photographed on
// average, but carries none of the asphalt's grain at any scale, and each
// tyre stands on a contact shadow darker than the cast shadow around it.
func TestShadowWithoutGroundGrain(t *testing.T) {
	car, cast := drawncar.NewAsphalt(true)
	flat, _ := drawncar.NewAsphalt(false)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	eFlat := newTestEngine(t, &fakeSegmenter{car: flat}, nil)
	white := color.NRGBA{255, 255, 255, 255}
	for _, tt := range []struct {
		name  string
		steps []Step
	}{
		{"PlaceShadow", []Step{det(), {"processorName": DetectCarShadow},
			{"processorName": CleanBackground, "enableShadow": false, "color": "#FFFFFF"},
			{"processorName": PlaceShadow, "opacity": 1.0}}},
		{"CleanBackground", []Step{det(), {"processorName": DetectCarShadow},
			{"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, e, car, tt.steps...)
			d := darknessOf(out, white)
			// The same car on the same floor without its grain: what the
			// shadow should look like.
			want := darknessOf(render(t, eFlat, flat, tt.steps...), white)
			w := d.W
			// The umbra of the cast shadow, away from its drawn edge and
			// from the car (whose edge is a real step in the picture),
			// within the reach a shadow is kept from the car.
			umbra := make([]bool, len(d.Pix))
			var photographed, kept, n float64
			for y := range d.H {
				for x := range w {
					if cast(x, y) < 0.49 || nearCar(car, x, y, 5) || !nearCar(car, x, y, 20) ||
						cast(x-6, y) < 0.49 || cast(x+6, y) < 0.49 || cast(x, y-6) < 0.49 || cast(x, y+6) < 0.49 {
						continue
					}
					umbra[y*w+x] = true
					photographed += cast(x, y)
					kept += float64(d.Pix[y*w+x])
					n++
				}
			}
			if n < 500 {
				t.Fatalf("only %.0f pixels of umbra to measure", n)
			}
			photographed, kept = photographed/n, kept/n
			t.Logf("umbra: %.0f pixels, darkness photographed %.3f, kept %.3f", n, photographed, kept)
			if math.Abs(kept-photographed) > 0.2*photographed {
				t.Errorf("kept shadow darkness %.3f, photographed %.3f: more than 20%% apart", kept, photographed)
			}
			// The ground's grain at any scale: the rendered darkness
			// against the same render on a floor without grain; and its
			// fine detail against a smooth fit of itself.
			var diff float64
			for i, in := range umbra {
				if in {
					diff += sq(float64(d.Pix[i] - want.Pix[i]))
				}
			}
			diff = math.Sqrt(diff / n)
			t.Logf("grain: %.4f rms from the shadow on a floor without grain", diff)
			if diff > 0.02 {
				t.Errorf("the shadow carries the ground's grain: %.4f rms from the shadow on a floor without grain, want at most 0.02", diff)
			}
			for _, r := range []int{1, 2, 4} {
				g, g0 := grain(d, umbra, r), grain(want, umbra, r)
				t.Logf("detail finer than %d px: %.4f rms (%.4f without grain)", r, g, g0)
				if g > g0+0.005 {
					t.Errorf("the shadow carries the ground's grain: %.4f rms finer than %d px, %.4f without grain", g, r, g0)
				}
			}
			// A contact shadow under each tyre, darker than the cast
			// shadow beside it.
			for _, c := range car.Contacts {
				x, y := int(c.X), int(c.Y+1.5)
				beside := (float64(d.Pix[y*w+x-40]) + float64(d.Pix[y*w+x+40])) / 2
				under := float64(d.Pix[y*w+x])
				t.Logf("tyre at %.0f: darkness under it %.2f, beside it %.2f", c.X, under, beside)
				if under < 0.6 || under < beside+0.1 {
					t.Errorf("tyre at (%.0f,%.0f): darkness under it %.2f, beside it %.2f; want a contact shadow (at least 0.6, 0.1 darker)",
						c.X, c.Y, under, beside)
				}
			}
		})
	}
}

// threeQuarterCar draws a car seen from the front three-quarters on a
// smooth studio floor: two near tyres low in the picture, the far front
// one higher and half hidden by the body, each standing on the floor, a
// soft shadow under the car. It returns the car and its tyres' contact
// points.
func threeQuarterCar() (*drawncar.Car, []Point) {
	const w, h = 480, 300
	sc := &drawncar.Car{
		Photo: image.NewNRGBA(image.Rect(0, 0, w, h)),
		Matte: image.NewGray(image.Rect(0, 0, w, h)),
		Raw:   image.NewGray(image.Rect(0, 0, w, h)),
		Body:  color.NRGBA{40, 90, 170, 255},
		Wall:  color.NRGBA{230, 230, 232, 255},
		Floor: color.NRGBA{205, 205, 208, 255},
	}
	sc.Windows = image.NewGray(sc.Photo.Rect)
	type tyre struct{ x, bottom, r float64 }
	tyres := []tyre{{0.27 * w, 0.86 * h, 0.09 * h}, {0.74 * w, 0.80 * h, 0.08 * h}, {0.44 * w, 0.745 * h, 0.06 * h}}
	var contacts []Point
	for _, t := range tyres {
		contacts = append(contacts, Point{t.x, t.bottom})
	}
	inside := func(px, py float64) (car bool, c [3]float64) {
		for _, t := range tyres {
			if math.Hypot(px-t.x, py-(t.bottom-t.r)) < t.r {
				return true, [3]float64{26, 26, 28}
			}
		}
		// The body's lower edge runs from the near front corner, low, up
		// to the far rear one.
		lower := 0.76*h - 0.10*h*(px/w)
		if px > 0.12*w && px < 0.9*w && py > 0.33*h && py < lower {
			return true, [3]float64{float64(sc.Body.R), float64(sc.Body.G), float64(sc.Body.B)}
		}
		return false, [3]float64{}
	}
	floorAt := func(px, py float64) [3]float64 {
		base := sc.Wall
		if py >= 0.5*h {
			base = sc.Floor
		}
		k := 1.0
		if py >= 0.5*h {
			// A soft shadow under the car, darkness 0.3 at its middle.
			ex, ey := (px-0.5*w)/(0.42*w), (py-0.8*h)/(0.09*h)
			if r2 := ex*ex + ey*ey; r2 < 1 {
				k = 1 - 0.3*(1-r2)*(1-r2)
			}
		}
		var c [3]float64
		for i, v := range []uint8{base.R, base.G, base.B} {
			c[i] = float64(linearToSRGB(srgbToLinear[v] * float32(k)))
		}
		return c
	}
	const ss = 4
	for y := range h {
		for x := range w {
			var col [3]float64
			var cover float64
			for sy := range ss {
				for sx := range ss {
					px, py := float64(x)+(float64(sx)+0.5)/ss, float64(y)+(float64(sy)+0.5)/ss
					c := floorAt(px, py)
					if in, cc := inside(px, py); in {
						c = cc
						cover++
					}
					for i := range c {
						col[i] += c[i]
					}
				}
			}
			p := sc.Photo.Pix[y*sc.Photo.Stride+4*x:]
			for i := range 3 {
				p[i] = uint8(math.Round(col[i] / ss / ss))
			}
			p[3] = 255
			sc.Matte.Pix[y*sc.Matte.Stride+x] = uint8(math.Round(cover / ss / ss * 255))
			if cover > 0 {
				sc.Box = sc.Box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	copy(sc.Raw.Pix, sc.Matte.Pix)
	return sc, contacts
}

// TestShadowContactUnderEachTyreThreeQuarter checks that in a
// three-quarter view every visible tyre, the far one too, stands on its
// own contact shadow, whether the photographed shadow is kept or a
// synthetic one drawn.
func TestShadowContactUnderEachTyreThreeQuarter(t *testing.T) {
	car, contacts := threeQuarterCar()
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	for _, tt := range []struct {
		name  string
		steps []Step
	}{
		{"detected", []Step{det(), {"processorName": DetectCarShadow},
			{"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"}}},
		{"synthetic", []Step{det(), {"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, e, car, tt.steps...)
			d := darknessOf(out, color.NRGBA{255, 255, 255, 255})
			for _, c := range contacts {
				x, y := int(c.X), int(c.Y+1.5)
				under := float64(d.Pix[y*d.W+x])
				t.Logf("tyre at (%.0f,%.0f): darkness under it %.2f", c.X, c.Y, under)
				if under < 0.55 {
					t.Errorf("tyre at (%.0f,%.0f): darkness under it %.2f, want a contact shadow of at least 0.55", c.X, c.Y, under)
				}
			}
		})
	}
}
