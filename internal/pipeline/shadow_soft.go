package pipeline

import (
	"image"
	"math"

	"github.com/showroom/showroom/internal/imaging"
)

// normalizedBlur averages v over the pixels where wt is set, with a box of
// radius rx across and ry down (twice, close to a Gaussian): a normalised
// convolution, so pixels that do not vote (the car, its mixed edge) are
// filled from their neighbours instead of pulling the average to zero. It
// returns the average and where it is defined (1) or not (0: no voter
// near).
func normalizedBlur(v, wt plane, rx, ry int) (avg, defined plane) {
	avg, defined = newPlane(v.W, v.H), newPlane(v.W, v.H)
	for i := range v.Pix {
		avg.Pix[i] = v.Pix[i] * wt.Pix[i]
	}
	copy(defined.Pix, wt.Pix)
	avg.BoxBlurXY(rx, ry)
	defined.BoxBlurXY(rx, ry)
	for i, s := range defined.Pix {
		if s < 0.1 {
			avg.Pix[i], defined.Pix[i] = 0, 0
			continue
		}
		avg.Pix[i] /= s
		defined.Pix[i] = 1
	}
	return avg, defined
}

// penumbraGrowth is how much a shadow's soft edge widens per pixel of
// distance from the nearest tyre: the edge of a shadow is as soft as the
// light is large seen from the floor there, and the further the floor is
// from where the car stands on it, the higher above it is the part of the
// car that casts the shadow.
const penumbraGrowth = 0.1

// penumbra softens the smoothed darkness (on roi, where defined) with a
// radius that grows with distance from the nearest tyre, sharp at the
// contact and softer further out; it never exceeds half the distance to
// the car, so the thin band of shadow along a sill keeps its darkness.
// Without tyres the distance to the car alone sets it.
func penumbra(smooth, defined plane, tyres []tyre, dist []float32, gridW int, roi image.Rectangle, bw int) plane {
	r1 := max(1, int(math.Round(0.01*float64(bw))))
	radii := []float64{0, float64(r1), float64(2 * r1)}
	levels := []plane{smooth}
	for _, r := range radii[1:] {
		l, _ := normalizedBlur(smooth, defined, int(r), int(r))
		levels = append(levels, l)
	}
	out := newPlane(smooth.W, smooth.H)
	for y := range smooth.H {
		gy := float64(y+roi.Min.Y) + 0.5
		for x := range smooth.W {
			li := y*smooth.W + x
			if defined.Pix[li] == 0 {
				continue
			}
			gx := float64(x+roi.Min.X) + 0.5
			r := 0.5 * float64(dist[(y+roi.Min.Y)*gridW+x+roi.Min.X])
			if len(tyres) > 0 {
				dc := math.Inf(1)
				for _, t := range tyres {
					dc = min(dc, math.Hypot(gx-t.at.X, gy-t.at.Y))
				}
				r = min(r, penumbraGrowth*dc)
			}
			j := 1
			for j < len(radii)-1 && radii[j] < r {
				j++
			}
			f := float32(imaging.Clamp01((r - radii[j-1]) / (radii[j] - radii[j-1])))
			// The edge spreads outwards only: inside a thin band the blur
			// would wash out the darkness the photo shows.
			out.Pix[li] = max(levels[0].Pix[li], levels[j-1].Pix[li]*(1-f)+levels[j].Pix[li]*f)
		}
	}
	return out
}
