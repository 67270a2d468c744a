package pipeline

import (
	"image"
	"image/color"
	"math"
)

// raisedThreeQuarterCar draws a tall car seen from the front
// three-quarters by a raised camera: the near front tyre lowest in the
// picture, the near rear one higher, and the far front tyre peeking out
// under the sill between them, a quarter of the car's height above the
// near rear one (a turntable or a dealer's raised camera shows that much).
// Only a photo and a matte are drawn, enough for a fake segmenter;
// Contacts holds the near front and the far front tyres' contact points.
func raisedThreeQuarterCar(w, h int) *SyntheticCar { return raisedThreeQuarterCarAt(w, h, 0.86) }

// raisedThreeQuarterCarAt is raisedThreeQuarterCar with the near front
// tyre's contact at nf of the photo's height: the larger, the higher the
// camera (0.97: the far front tyre nearly half the car's height above it).
func raisedThreeQuarterCarAt(w, h int, nf float64) *SyntheticCar {
	fw, fh := float64(w), float64(h)
	sc := &SyntheticCar{
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
