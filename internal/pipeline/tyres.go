package pipeline

import (
	"cmp"
	"image"
	"math"
	"slices"
)

// tyre is where one visible tyre meets the floor, on the working grid:
// the bottom of its lowest run of the car's outline, and that run's half
// width.
type tyre struct {
	at   Point
	half float64
}

// minTyreArch is how far, as a share of the car's height, the bottom
// profile must rise on each side of a tyre's contact between two lower
// stretches of it: the tyre's arch.
const minTyreArch = 0.04

// maxTyreRun is the longest a tyre's lowest run of the bottom profile
// may be, as a share of the car's height.
const maxTyreRun = 0.2

// tyreContacts finds every visible tyre's contact with the floor on the
// working grid: it is the one tyre finder, for the shadows, the ground
// points and (wheelContacts, its two lowest tyres far enough apart) the
// ground line and the tilt. A shadow needs each tyre: in a three-quarter
// view the far front tyre stands higher in the picture than the near
// ones, between them. A tyre is a dip of the car's bottom profile that the profile
// rises from on both sides (a tyre is round), short, dark as rubber is (a
// light bumper's corner or sill riding low is not one) and about as wide
// as the car's other tyres. The result is ordered left to right.
func tyreContacts(g *workGrid, box image.Rectangle) []tyre {
	bw, bh := box.Dx(), box.Dy()
	if bw < 8 || bh < 8 {
		return nil
	}
	bottom := bottomProfile(g, box)
	tol := math.Max(1, float64(bh)/100)
	// A dip must rise by this on each side within a tyre's reach: a
	// little, as in a front view a tyre's bottom shows just beside the
	// bumper that hangs lower. A dip between two lower stretches, not at
	// an end of the car, must rise by its arch: a sill sagging between
	// two tyres rises a few pixels, a tyre's arch, even a far tyre peeking out under the sill, a twentieth of the car's
	// height.
	rise := math.Max(2, 0.008*float64(bh))
	arch := math.Max(rise, minTyreArch*float64(bh))
	reach := max(bw/5, 4)
	var out []tyre
	last := -1
	for m := range bw {
		low := bottom[m]
		if low < 0 || (m > 0 && bottom[m-1] > low) || (m+1 < bw && bottom[m+1] > low) {
			continue // not a lowest point
		}
		// The dip's flat bottom: the columns within tol of its lowest.
		i0, i1 := m, m
		for i0 > 0 && bottom[i0-1] >= low-tol {
			i0--
		}
		for i1+1 < bw && bottom[i1+1] >= low-tol {
			i1++
		}
		if i0 <= last || slices.Max(bottom[i0:i1+1]) > low {
			continue // the same dip, or the shoulder of a lower one
		}
		last = i1
		// How far the profile rises on each side before it comes down
		// below the dip again (a neighbouring, lower tyre) or the car ends.
		side := func(from, step int) float64 {
			top := low
			for j, n := from, 0; n < reach; j, n = j+step, n+1 {
				if j < 0 || j >= bw || bottom[j] < 0 {
					return math.Inf(1) // the car ends beside it
				}
				if bottom[j] > low {
					break
				}
				top = min(top, bottom[j])
			}
			return low - top
		}
		sl, sr := side(i0-1, -1), side(i1+1, 1)
		if min(sl, sr) < rise || (!math.IsInf(sl, 1) && !math.IsInf(sr, 1) && min(sl, sr) < arch) {
			continue
		}
		// A round tyre's lowest run is short, even flattened where it
		// stands; a long flat one is a bumper's or a sill's lower edge.
		// Seen from the side a tyre's diameter is near half the car's
		// height and its run, flattened and blurred by the matte, up to
		// a fifth of it (a sixth cut the side views' tyres off).
		if float64(i1-i0+1) > maxTyreRun*float64(bh) {
			continue
		}
		x := float64(box.Min.X) + float64(i0+i1+1)/2
		if !rubber(g, box, bottom, i0, i1) {
			continue
		}
		out = append(out, tyre{at: Point{x, low}, half: float64(i1-i0+1) / 2})
	}
	// Two dips closer than a tyre's width are one tyre's tread pattern or
	// a tyre and the rim of its arch: the lower is the contact. The tyres
	// of one car look alike, even the far ones: a dip much narrower than
	// the widest is an exhaust's tip or a spoiler's corner.
	slices.SortFunc(out, func(a, b tyre) int { return cmp.Compare(b.at.Y, a.at.Y) })
	widest := 0.0
	for _, t := range out {
		widest = max(widest, t.half)
	}
	var kept []tyre
	for _, t := range out {
		if t.half >= 0.6*widest && !slices.ContainsFunc(kept, func(k tyre) bool { return math.Abs(k.at.X-t.at.X) < float64(bw)/10 }) {
			kept = append(kept, t)
		}
	}
	slices.SortFunc(kept, func(a, b tyre) int { return cmp.Compare(a.at.X, b.at.X) })
	return kept
}

// rubber reports whether the car just above the run [i0, i1] of the
// bottom profile is dark and grey, as a tyre is in any light a car is
// photographed in: linear luminance below a quarter (white paint in shade
// is brighter), its colour's channels within maxRubberChroma of each
// other (a red or blue sill riding low is as dark, but coloured).
func rubber(g *workGrid, box image.Rectangle, bottom []float64, i0, i1 int) bool {
	depth := max(int(0.03*float64(box.Dy())), 2)
	var sum float64
	var rgb [3]float64
	n := 0
	for i := i0; i <= i1; i++ {
		x := box.Min.X + i
		for y := int(bottom[i]) - depth; y < int(bottom[i]); y++ {
			if y < 0 || y >= g.h {
				continue
			}
			if j := y*g.w + x; g.matte.Pix[j] > 0.9 {
				sum += float64(g.lum.Pix[j])
				for c := range rgb {
					rgb[c] += float64(g.rgb[c].Pix[j])
				}
				n++
			}
		}
	}
	if n == 0 || sum/float64(n) >= 0.25 {
		return false
	}
	hi, lo := max(rgb[0], rgb[1], rgb[2]), min(rgb[0], rgb[1], rgb[2])
	return hi-lo <= maxRubberChroma*hi
}

// maxRubberChroma is how far apart a tyre's colour channels may be, as a
// share of the brightest: rubber is grey, tinted a little by the floor
// and the sky it reflects.
const maxRubberChroma = 0.7

// contactShadowDarkness is the darkness right under a tyre: the floor a
// tyre stands on sees almost no sky, whatever the light.
const contactShadowDarkness = 0.7

// addContactShadows darkens d under each tyre: a flat ellipse as wide as
// the tyre's footprint in the picture, darkest at the contact, continued
// upwards under the tyre so that no light seam shows once the car is
// moved. It is combined with the darkness already there as two shadows
// are, multiplying what light each lets through.
func addContactShadows(d plane, tyres []tyre, box image.Rectangle) {
	for _, t := range tyres {
		a := math.Max(2.2*t.half, 0.035*float64(box.Dx()))
		b := math.Max(0.22*a, 1.5)
		x0, x1 := int(t.at.X-2*a), int(math.Ceil(t.at.X+2*a))
		y0, y1 := int(t.at.Y-b*8), int(math.Ceil(t.at.Y+3*b))
		for y := max(y0, 0); y < min(y1, d.H); y++ {
			dy := (float64(y) + 0.5 - t.at.Y) / b
			if dy < 0 {
				// Under the tyre, hidden by it, and fading beside it.
				dy /= 3
			}
			for x := max(x0, 0); x < min(x1, d.W); x++ {
				dx := (float64(x) + 0.5 - t.at.X) / a
				v := contactShadowDarkness * math.Exp(-dx*dx-dy*dy)
				i := y*d.W + x
				d.Pix[i] = float32(1 - (1-float64(d.Pix[i]))*(1-v))
			}
		}
	}
}
