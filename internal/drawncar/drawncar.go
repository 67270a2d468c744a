// Package drawncar draws a car with every answer known (its matte, windows,
// wheels' contact points, shadow): a photo for tests, the docs' pictures and
// the server's warm-up, so none of them needs a licensed photo. It is its own
// package, not the pipeline's, because it is drawn art, not processing
// (issue 28); it may not import the pipeline, whose tests import it.
package drawncar

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"

	"github.com/showroom/showroom/internal/imaging"
)

// Point is a point in photo pixels, as the pipeline's Point (convert with
// pipeline.Point(p)).
type Point struct{ X, Y float64 }

// Car is a drawn side view of a car with every answer known: its
// matte, its windows, its wheels' contact points and the shadow under it,
// plus a dark object on the floor that is not its shadow. Tests use it as
// a photo with known answers, the docs for their pictures (so the docs
// ship no licensed photo).
type Car struct {
	Photo *image.NRGBA
	// Matte is the car's exact coverage, soft at the edges; Box bounds it.
	Matte *image.Gray
	Box   image.Rectangle
	// Windows is 255 where the car is glass.
	Windows *image.Gray
	// Raw is a segmentation model's typical answer: the car without its
	// see-through windows.
	Raw *image.Gray
	// Contacts are the wheels' ground-contact points.
	Contacts [2]Point
	// ShadowCenter and ShadowRadii describe the elliptical shadow on the
	// floor; ShadowDarkness is its darkness at the centre.
	ShadowCenter, ShadowRadii Point
	ShadowDarkness            float64
	// Object is the dark box on the floor far from the car.
	Object image.Rectangle
	// Body, Wall and Floor are the flat colours drawn.
	Body, Wall, Floor color.NRGBA
	// Tilt is the angle the car was drawn turned by, radians.
	Tilt float64
}

// New draws the car on a w×h photo, turned by tilt radians
// about its ground centre (0 for level).
func New(w, h int, tilt float64) *Car {
	return NewInView(w, h, tilt, 0)
}

// NewInView draws the car as New does, its left
// wheel raised by rise (a share of the photo's height): the far wheel of
// a car seen from slightly above and from the side, whose contact point
// stands higher in the photo than the near wheel's while the body stays
// level.
func NewInView(w, h int, tilt, rise float64) *Car {
	fw, fh := float64(w), float64(h)
	sc := &Car{
		Photo:   image.NewNRGBA(image.Rect(0, 0, w, h)),
		Matte:   image.NewGray(image.Rect(0, 0, w, h)),
		Windows: image.NewGray(image.Rect(0, 0, w, h)),
		Raw:     image.NewGray(image.Rect(0, 0, w, h)),
		Body:    color.NRGBA{190, 30, 35, 255},
		Wall:    color.NRGBA{225, 225, 228, 255},
		Floor:   color.NRGBA{200, 200, 204, 255},
		Tilt:    tilt,
	}
	horizon := 0.55 * fh
	wheelR := 0.085 * fh
	wheelY := 0.70 * fh
	ground := wheelY + wheelR
	wheels := [2]float64{0.30 * fw, 0.70 * fw}
	pivot := Point{0.5 * fw, ground}
	sc.ShadowCenter, sc.ShadowRadii, sc.ShadowDarkness = Point{0.5 * fw, ground}, Point{0.36 * fw, 0.035 * fh}, 0.55
	sc.Object = image.Rect(int(0.91*fw), int(0.86*fh), int(0.98*fw), int(0.93*fh))
	sin, cos := math.Sincos(tilt)
	// wheelYs are the wheels' centres in the car's own frame.
	wheelYs := [2]float64{wheelY - rise*fh, wheelY}
	for i, x := range wheels {
		dx, dy := x-pivot.X, wheelYs[i]+wheelR-pivot.Y
		sc.Contacts[i] = Point{pivot.X + cos*dx - sin*dy, pivot.Y + sin*dx + cos*dy}
	}

	// shape classifies a photo point in the car's own (untilted) frame:
	// 0 background, 1 body, 2 glass, 3 tyre, 4 rim.
	shape := func(px, py float64) int {
		dx, dy := px-pivot.X, py-pivot.Y
		x, y := pivot.X+cos*dx+sin*dy, pivot.Y-sin*dx+cos*dy
		for i, wx := range wheels {
			if d := math.Hypot(x-wx, y-wheelYs[i]); d < wheelR {
				if d < wheelR*0.6 {
					return 4
				}
				return 3
			}
		}
		// Lower body: a rounded slab.
		if x > 0.14*fw && x < 0.86*fw && y > 0.45*fh && y < 0.71*fh {
			cx := math.Max(0, math.Max(0.17*fw-x, x-0.83*fw))
			cy := math.Max(0, 0.48*fh-y)
			if math.Hypot(cx, cy) < 0.03*fh {
				return 1
			}
		}
		// Cabin: a trapezoid on the body, its windows inset, split by a
		// pillar.
		if y >= 0.28*fh && y <= 0.45*fh {
			t := (y - 0.28*fh) / (0.17 * fh)
			l, r := 0.36*fw-t*0.10*fw, 0.62*fw+t*0.12*fw
			if x > l && x < r {
				in := 0.018 * fw
				if y > 0.30*fh && y < 0.435*fh && x > l+in && x < r-in && math.Abs(x-0.49*fw) > 0.012*fw {
					return 2
				}
				return 1
			}
		}
		return 0
	}
	floorAt := func(x, y float64) [3]float64 {
		base := sc.Wall
		if y >= horizon {
			base = sc.Floor
		}
		c := [3]float64{float64(base.R), float64(base.G), float64(base.B)}
		// The shadow: a smooth ellipse, exactly zero outside its radii.
		ex, ey := (x-sc.ShadowCenter.X)/sc.ShadowRadii.X, (y-sc.ShadowCenter.Y)/sc.ShadowRadii.Y
		if r2 := ex*ex + ey*ey; r2 < 1 && y >= horizon {
			k := 1 - sc.ShadowDarkness*(1-r2)*(1-r2)
			for i := range c {
				c[i] *= k
			}
		}
		if (image.Point{int(x), int(y)}).In(sc.Object) {
			c = [3]float64{20, 20, 22}
		}
		return c
	}
	sc.rasterize(shape, floorAt)
	return sc
}

// rasterize draws sc's photo, matte, raw answer, windows (when sc has
// them) and box from shape, which classifies a photo point (0 background,
// 1 body, 2 glass, 3 tyre, 4 rim), and background, the scene behind the car
// at a point. Each pixel is supersampled for soft, exact edges.
func (sc *Car) rasterize(shape func(px, py float64) int, background func(px, py float64) [3]float64) {
	colours := map[int][3]float64{
		1: {float64(sc.Body.R), float64(sc.Body.G), float64(sc.Body.B)},
		3: {28, 28, 30},
		4: {165, 168, 172},
	}
	box := image.Rectangle{}
	const ss = 4 // supersampling per axis
	w, h := sc.Photo.Rect.Dx(), sc.Photo.Rect.Dy()
	for y := range h {
		for x := range w {
			var car, glass, raw float64
			var col [3]float64
			for sy := range ss {
				for sx := range ss {
					px, py := float64(x)+(float64(sx)+0.5)/ss, float64(y)+(float64(sy)+0.5)/ss
					var c [3]float64
					switch k := shape(px, py); k {
					case 0:
						c = background(px, py)
					case 2:
						// Tinted glass: the scene behind, darkened.
						bg := background(px, py)
						c = [3]float64{bg[0] * 0.42, bg[1] * 0.42, bg[2] * 0.45}
						car++
						glass++
					default:
						c = colours[k]
						car++
						raw++
					}
					for i := range c {
						col[i] += c[i]
					}
				}
			}
			n := float64(ss * ss)
			p := sc.Photo.Pix[y*sc.Photo.Stride+4*x:]
			for i := range 3 {
				p[i] = uint8(math.Round(col[i] / n))
			}
			p[3] = 255
			sc.Matte.Pix[y*sc.Matte.Stride+x] = uint8(math.Round(car / n * 255))
			if sc.Windows != nil && glass/n >= 0.5 {
				sc.Windows.Pix[y*sc.Windows.Stride+x] = 255
			}
			if raw/n >= 0.5 {
				sc.Raw.Pix[y*sc.Raw.Stride+x] = 255
			}
			if car > 0 {
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	sc.Box = box
}

// Crop returns the part r of car's photo as a photo of its
// own, origin (0,0), with its answers cropped alike: a car cut by the
// frame where r cuts it. Contacts, the shadow and the object keep their
// coordinates shifted by r's origin.
func Crop(car *Car, r image.Rectangle) *Car {
	r = r.Intersect(car.Photo.Rect)
	off := Point{float64(r.Min.X), float64(r.Min.Y)}
	shift := func(p Point) Point { return Point{p.X - off.X, p.Y - off.Y} }
	gray := func(g *image.Gray) *image.Gray {
		if g == nil {
			return nil // a layer the car was drawn without (RaisedThreeQuarter's windows)
		}
		out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
		for y := range r.Dy() {
			copy(out.Pix[y*out.Stride:y*out.Stride+r.Dx()], g.Pix[g.PixOffset(r.Min.X, r.Min.Y+y):])
		}
		return out
	}
	photo := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		copy(photo.Pix[y*photo.Stride:y*photo.Stride+4*r.Dx()], car.Photo.Pix[car.Photo.PixOffset(r.Min.X, r.Min.Y+y):])
	}
	out := *car
	out.Photo, out.Matte, out.Windows, out.Raw = photo, gray(car.Matte), gray(car.Windows), gray(car.Raw)
	out.Box = car.Box.Intersect(r).Sub(r.Min)
	out.Object = car.Object.Intersect(r).Sub(r.Min)
	out.Contacts = [2]Point{shift(car.Contacts[0]), shift(car.Contacts[1])}
	out.ShadowCenter = shift(car.ShadowCenter)
	return &out
}

// What PaintBrightGlass paints at a window pixel.
const (
	GlassSky      = iota // the flat sky reflection, sRGB 200
	GlassStreak          // a lighter streak of reflection, 245
	GlassHeadrest        // the dark interior behind the glass, 40
)

// PaintBrightGlass paints sc's windows as glass photographed in daylight:
// a flat, bright sky reflection crossed by lighter diagonal streaks, with
// a dark headrest behind the front window. It returns what it painted at
// each window pixel (GlassSky, GlassStreak, GlassHeadrest).
func (sc *Car) PaintBrightGlass() func(x, y int) int {
	fw, fh := float64(sc.Photo.Rect.Dx()), float64(sc.Photo.Rect.Dy())
	period := max(8, int(fw/20))
	kind := func(x, y int) int {
		switch {
		case math.Hypot(float64(x)+0.5-0.43*fw, float64(y)+0.5-0.40*fh) < 0.03*fh:
			return GlassHeadrest
		case (x+y)%period < period/6:
			return GlassStreak
		}
		return GlassSky
	}
	for y := range sc.Photo.Rect.Dy() {
		for x := range sc.Photo.Rect.Dx() {
			if sc.Windows.GrayAt(x, y).Y != 255 {
				continue
			}
			v := [...]uint8{GlassSky: 200, GlassStreak: 245, GlassHeadrest: 40}[kind(x, y)]
			copy(sc.Photo.Pix[sc.Photo.PixOffset(x, y):], []uint8{v, v, v})
		}
	}
	return kind
}

// RaisedThreeQuarter draws a tall car seen from the front
// three-quarters by a raised camera: the near front tyre lowest in the
// picture, the near rear one higher, and the far front tyre peeking out
// under the sill between them, a quarter of the car's height above the
// near rear one (a turntable or a dealer's raised camera shows that much).
// Only a photo and a matte are drawn, enough for a fake segmenter;
// Contacts holds the near front and the far front tyres' contact points.
func RaisedThreeQuarter(w, h int) *Car { return RaisedThreeQuarterAt(w, h, 0.86) }

// RaisedThreeQuarterAt is RaisedThreeQuarter with the near front
// tyre's contact at nf of the photo's height: the larger, the higher the
// camera (0.97: the far front tyre nearly half the car's height above it).
func RaisedThreeQuarterAt(w, h int, nf float64) *Car {
	fw, fh := float64(w), float64(h)
	sc := &Car{
		Photo: image.NewNRGBA(image.Rect(0, 0, w, h)),
		Matte: image.NewGray(image.Rect(0, 0, w, h)),
		Raw:   image.NewGray(image.Rect(0, 0, w, h)),
		Body:  color.NRGBA{40, 70, 160, 255},
		Wall:  color.NRGBA{225, 225, 228, 255},
		Floor: color.NRGBA{200, 200, 204, 255},
	}
	type wheel struct{ x, bottom, r float64 }
	nearFront, nearRear := wheel{0.25 * fw, nf * fh, 0.09 * fh}, wheel{0.75 * fw, 0.80 * fh, 0.08 * fh}
	farFront := wheel{0.45 * fw, 0.64 * fh, 0.06 * fh}
	sc.Contacts = [2]Point{{nearFront.x, nearFront.bottom}, {farFront.x, farFront.bottom}}
	// shape: 0 background, 1 body, 3 tyre, 4 rim.
	shape := func(x, y float64) int {
		for _, wh := range []wheel{nearFront, nearRear, farFront} {
			switch d := math.Hypot(x-wh.x, y-(wh.bottom-wh.r)); {
			case d < 0.6*wh.r:
				return 4
			case d < wh.r:
				return 3
			}
		}
		// The sill: low at the near front wheel, high where the far
		// front wheel shows under it, then down to the near rear wheel.
		lower := 0.70 * fh
		switch {
		case x < 0.35*fw:
			lower = (nf - 0.08) * fh
		case x < 0.55*fw:
			lower = 0.61 * fh
		}
		if x > 0.12*fw && x < 0.90*fw && y > 0.38*fh && y < lower {
			return 1
		}
		if x > 0.30*fw && x < 0.80*fw && y > 0.25*fh && y <= 0.38*fh {
			return 1
		}
		return 0
	}
	sc.rasterize(shape, func(_, py float64) [3]float64 {
		base := sc.Wall
		if py >= 0.5*fh {
			base = sc.Floor
		}
		return [3]float64{float64(base.R), float64(base.G), float64(base.B)}
	})
	return sc
}

// NewAsphalt returns the drawn car (480×300) on a mid-grey
// asphalt-like floor: grain at every scale (single pixels, blotches a few
// pixels wide, scattered stones) multiplied into the floor, and a cast
// shadow of low sun with a soft edge reaching out in front of the car,
// darkness 0.5 in linear light, as drawn by cast; without grainy the
// floor is flat.
func NewAsphalt(grainy bool) (car *Car, cast func(x, y int) float64) {
	car = New(480, 300, 0)
	w, h := car.Photo.Rect.Dx(), car.Photo.Rect.Dy()
	fw, fh := float64(w), float64(h)
	ground := car.Contacts[0].Y
	// Low sun from behind the camera's left: the car's shadow falls
	// towards the front (right) and a little towards the camera.
	cast = func(x, y int) float64 {
		px, py := float64(x)+0.5, float64(y)+0.5
		edge := func(v, lo, hi float64) float64 {
			return imaging.Smoothstep(lo-2, lo+2, v) * (1 - imaging.Smoothstep(hi-2, hi+2, v))
		}
		return 0.5 * edge(px, 0.18*fw, 0.92*fw) * edge(py, ground-0.08*fh, ground+0.06*fh)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	// Blotches: value noise on a 5-pixel lattice.
	const cell = 5
	lw, lh := w/cell+2, h/cell+2
	lattice := make([]float64, lw*lh)
	for i := range lattice {
		lattice[i] = 2*rng.Float64() - 1
	}
	blotch := func(x, y int) float64 {
		fx, fy := float64(x)/cell, float64(y)/cell
		x0, y0 := int(fx), int(fy)
		tx, ty := fx-float64(x0), fy-float64(y0)
		l := func(i, j int) float64 { return lattice[j*lw+i] }
		a := l(x0, y0) + (l(x0+1, y0)-l(x0, y0))*tx
		b := l(x0, y0+1) + (l(x0+1, y0+1)-l(x0, y0+1))*tx
		return a + (b-a)*ty
	}
	floor := color.NRGBA{112, 113, 116, 255}
	car.Floor = floor
	for y := int(0.55 * fh); y < h; y++ {
		for x := range w {
			if car.Matte.GrayAt(x, y).Y != 0 || (image.Point{x, y}).In(car.Object) {
				continue
			}
			k := 1 + 0.14*(2*rng.Float64()-1) + 0.10*blotch(x, y)
			if u := rng.Float64(); u < 0.02 {
				k *= 0.6
			} else if u < 0.04 {
				k *= 1.35
			}
			if !grainy {
				k = 1
			}
			k *= 1 - cast(x, y)
			p := car.Photo.Pix[y*car.Photo.Stride+4*x:]
			for c, v := range []uint8{floor.R, floor.G, floor.B} {
				p[c] = imaging.LinearToSRGB(imaging.SRGBToLinear[v] * float32(k))
			}
		}
	}
	return car, cast
}
