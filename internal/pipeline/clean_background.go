package pipeline

import (
	"context"
	"image/color"
	"math"

	"github.com/showroom/showroom/internal/catalog"
)

// cleanBackground is CleanBackgroundProcessor: the background becomes one
// colour. With enableShadow the car keeps a shadow: the detected one as it
// was in the photo, or, when none was detected, a soft synthetic contact
// shadow under the wheels, because a car on a flat colour without any
// shadow looks like it floats.
type cleanBackground struct {
	shadow bool
	color  color.NRGBA
}

func newCleanBackground(p catalog.CleanBackgroundParams) step {
	return cleanBackground{shadow: p.EnableShadow, color: p.Color}
}

func (c cleanBackground) apply(ctx context.Context, r *run, s *Scene) error {
	s.Background, s.Floor = Background{Kind: BackgroundColor, Color: c.color}, 0
	if !c.shadow {
		s.ShadowOpacity = 0
		return nil
	}
	if s.Shadow == nil || !s.ShadowDetected {
		if !s.hasCar() {
			return nil
		}
		d := contactShadow(s)
		s.Shadow, s.ShadowDetected = &d, false
		s.ShadowOpacity = 1
		return nil
	}
	// A detected shadow already placed keeps its opacity; otherwise it is
	// kept as dark as it was in the photo.
	if s.ShadowOpacity == 0 {
		s.ShadowOpacity = 1
	}
	return nil
}

// contactShadow draws, on the working grid, the shadow a car casts under
// soft studio light: dark where the tyres meet the floor, lighter under
// the raised body, fading below the car's outline within a few percent of
// its height. It follows the car's own bottom edge column by column, so in
// a three-quarter view each wheel gets its own contact shadow instead of
// one straight bar under the lowest wheel, and each tyre found stands on
// a dark contact patch.
func contactShadow(s *Scene) plane {
	g := s.workGrid()
	d := newPlane(g.w, g.h)
	box := g.toWork(s.Box)
	bw, bh := box.Dx(), box.Dy()
	if bw < 4 || bh < 4 {
		return d
	}
	// Without two contact points there is no floor line to shade down
	// to: every column then only gets the shade right under it.
	tyres := tyreContacts(g, box)
	l, r, ok := groundTyres(tyres, box)
	if !ok {
		l, r = Point{math.Inf(1), 0}, Point{math.Inf(1), 0}
	}
	ground := func(x float64) float64 { return l.Y + (r.Y-l.Y)*(x-l.X)/math.Max(r.X-l.X, 1) }
	reach := math.Max(0.05*float64(bh), 2)
	for x := box.Min.X; x < box.Max.X; x++ {
		bottom := -1
		for y := box.Max.Y - 1; y >= box.Min.Y; y-- {
			if g.matte.Pix[y*g.w+x] > 0.5 {
				bottom = y + 1
				break
			}
		}
		if bottom < 0 {
			continue
		}
		// How far this part of the car is above the floor: a tyre touches
		// it, a sill or bumper rides higher and casts a lighter, wider
		// shadow.
		fx := float64(x) + 0.5
		gy := ground(fx)
		gap := math.Max(gy-float64(bottom), 0)
		strength := 0.3 + 0.45*math.Exp(-gap/(0.03*float64(bh)))
		if !(fx >= l.X-reach && fx <= r.X+reach) {
			// Beyond the wheels the overhang's floor is not on the line
			// between them (in a three-quarter view it recedes): only a
			// light shade right under the bumper.
			gy, strength = float64(bottom), 0.25
		}
		// The floor under the car, down to the ground line, is in shade;
		// beyond it the shadow fades.
		end := math.Max(gy, float64(bottom)) + reach
		for y := max(bottom-int(reach), 0); y < min(int(end)+1, g.h); y++ {
			v := strength
			if t := (float64(y) - math.Max(gy, float64(bottom))) / reach; t > 0 {
				v *= sq(math.Max(0, 1-t))
			}
			d.Pix[y*g.w+x] = float32(v)
		}
	}
	d.BoxBlur(max(bw/150, 1))
	addContactShadows(d, tyres, box)
	return d
}

func sq(v float64) float64 { return v * v }
