package vision

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
)

// Guided-filter settings on the working grid: radius in working pixels and
// the regularisation (in 0..1 intensity units squared), which sets how
// strong an edge in the photo must be for the matte to follow it.
const (
	guideRadius = 2
	guideEps    = 1e-4
)

// refine brings the working-grid matte p to the photo's full resolution
// with a fast guided filter (He and Sun, 2015): the local linear model
// q = a·I + b between the photo's luminance I and the matte is fitted on
// the working grid, where it is cheap, and its coefficients are upsampled
// bilinearly and applied to the full-resolution luminance, so the edges
// come from the photo's own pixels rather than from an enlarged mask.
func refine(img *image.NRGBA, work [3]plane, p plane) *image.Gray {
	w, h := p.W, p.H
	I := newPlane(w, h)
	for i := range I.Pix {
		I.Pix[i] = (0.299*work[0].Pix[i] + 0.587*work[1].Pix[i] + 0.114*work[2].Pix[i]) / 255
	}
	ca, cb := imaging.GuidedCoefficients(I.Pix, p.Pix, w, h, guideRadius, guideEps, floatPool{})
	a, b := plane{W: w, H: h, Pix: ca}, plane{W: w, H: h, Pix: cb}
	I.Release(floatPool{})
	alpha := applyCoefficients(img, a, b)
	a.Release(floatPool{})
	b.Release(floatPool{})
	return alpha
}

// floatPool lends the package's float free list to the shared filters.
type floatPool struct{}

func (floatPool) Get(n int) []float32 { return getFloats(n) }
func (floatPool) Put(b []float32)     { putFloats(b) }

// applyCoefficients computes q = a·I + b at img's resolution, a and b
// bilinearly interpolated from their grid, I img's luminance.
func applyCoefficients(img *image.NRGBA, a, b plane) *image.Gray {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, W, H))
	if W == a.W && H == a.H {
		imaging.Parallel(H, func(lo, hi int) {
			for y := lo; y < hi; y++ {
				src := img.Pix[y*img.Stride:]
				dst := out.Pix[y*out.Stride:]
				for x := range W {
					lum := (0.299*float32(src[4*x]) + 0.587*float32(src[4*x+1]) + 0.114*float32(src[4*x+2])) / 255
					dst[x] = imaging.ToByte(a.Pix[y*a.W+x]*lum + b.Pix[y*a.W+x])
				}
			}
		})
		return out
	}
	x0, x1, fx := imaging.BilinearIndex(0, W, float64(a.W)/float64(W), 0, a.W)
	y0, y1, fy := imaging.BilinearIndex(0, H, float64(a.H)/float64(H), 0, a.H)
	// Away from the car the coefficients give 0 (a flat, b well under half
	// a level), and out is 0 already: only the rows and columns that
	// interpolate from a cell of the box where some do not are worked out.
	live := liveCells(a, b)
	if live.Empty() {
		return out
	}
	// The output columns interpolated between coefficient columns k and
	// k+1 are span[k] to span[k+1]: x0 never falls as x rises.
	span := make([]int, a.W+1)
	k := 0
	for x := range W {
		for ; k <= x0[x]; k++ {
			span[k] = x
		}
	}
	for ; k <= a.W; k++ {
		span[k] = W
	}
	imaging.Parallel(H, func(lo, hi int) {
		ra, rb := make([]float32, a.W), make([]float32, a.W)
		// Columns k and k+1 are interpolated for k in kLo..kHi-1.
		kLo, kHi := max(live.Min.X-1, 0), live.Max.X
		for y := lo; y < hi; y++ {
			if y1[y] < live.Min.Y || y0[y] >= live.Max.Y {
				continue
			}
			// Interpolate the two coefficient rows once per output row.
			r0, r1, f := y0[y]*a.W, y1[y]*a.W, fy[y]
			for x := kLo; x < min(kHi+1, a.W); x++ {
				ra[x] = a.Pix[r0+x] + f*(a.Pix[r1+x]-a.Pix[r0+x])
				rb[x] = b.Pix[r0+x] + f*(b.Pix[r1+x]-b.Pix[r0+x])
			}
			src := img.Pix[y*img.Stride:]
			dst := out.Pix[y*out.Stride : y*out.Stride+W]
			for k := kLo; k < kHi; k++ {
				xa, xb := span[k], span[k+1]
				if xa >= xb {
					continue
				}
				k1 := min(k+1, a.W-1)
				if flat(ra[k]) && flat(ra[k1]) {
					// No edge to follow between these two columns (most
					// of the photo: the car's inside and the background):
					// the matte is b alone, often one value all along.
					if v := imaging.ToByte(rb[k]); v == imaging.ToByte(rb[k1]) {
						fillBytes(dst[xa:xb], v)
						continue
					}
				}
				for x := xa; x < xb; x++ {
					i0, i1, g := x0[x], x1[x], fx[x]
					ca := ra[i0] + g*(ra[i1]-ra[i0])
					cb := rb[i0] + g*(rb[i1]-rb[i0])
					if flat(ca) {
						dst[x] = imaging.ToByte(cb)
						continue
					}
					lum := (0.299*float32(src[4*x]) + 0.587*float32(src[4*x+1]) + 0.114*float32(src[4*x+2])) / 255
					dst[x] = imaging.ToByte(ca*lum + cb)
				}
			}
		}
	})
	return out
}

// liveCells returns the box of the coefficient cells that can give a
// pixel other than 0: a not flat, or b not well under half a level (a
// quarter: no rounding of b·255 + 0.5 reaches 1).
func liveCells(a, b plane) image.Rectangle {
	var r image.Rectangle
	for y := range a.H {
		row := y * a.W
		for x := range a.W {
			if !flat(a.Pix[row+x]) || b.Pix[row+x] >= 0.25/255 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// flat reports whether a guided-filter slope is too small to matter: the
// matte does not follow the photo there.
func flat(a float32) bool { return a > -1e-3 && a < 1e-3 }

func fillBytes(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}
