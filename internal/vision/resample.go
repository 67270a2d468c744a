package vision

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
)

// plane is imaging's plane; the package's come from its float pool
// (floatPool), and a plane released hands its buffer back to it.
type plane = imaging.Plane

// newPlane returns a zeroed w×h plane from the pool.
func newPlane(w, h int) plane { return imaging.GetPlane(floatPool{}, w, h) }

// releaseUnless releases p unless it shares its buffer with one of keep (a
// resample to the same size returns its input).
func releaseUnless(p plane, keep ...plane) { p.ReleaseUnless(floatPool{}, keep...) }

// shrinkRGB box-averages img by whole factors fx×fy into three float
// planes (0..255). It is the cheap first step of every downscale of a large
// photo: one pass over the full-resolution pixels.
func shrinkRGB(img *image.NRGBA, fx, fy int) [3]plane {
	b := img.Rect
	w, h := b.Dx()/fx, b.Dy()/fy
	var out [3]plane
	for c := range out {
		out[c] = newPlane(w, h)
	}
	inv := 1 / float32(fx*fy)
	imaging.Parallel(h, func(lo, hi int) {
		acc := make([]uint32, 3*w)
		for y := lo; y < hi; y++ {
			clear(acc)
			for dy := range fy {
				row := img.Pix[(y*fy+dy)*img.Stride:]
				for x := range w {
					px := row[x*fx*4:]
					var r, g, bl uint32
					for dx := range fx {
						r += uint32(px[dx*4])
						g += uint32(px[dx*4+1])
						bl += uint32(px[dx*4+2])
					}
					acc[3*x] += r
					acc[3*x+1] += g
					acc[3*x+2] += bl
				}
			}
			for x := range w {
				out[0].Pix[y*w+x] = float32(acc[3*x]) * inv
				out[1].Pix[y*w+x] = float32(acc[3*x+1]) * inv
				out[2].Pix[y*w+x] = float32(acc[3*x+2]) * inv
			}
		}
	})
	return out
}

// resizeRGB resamples three planes to w×h with the triangle filter.
func resizeRGB(rgb [3]plane, w, h int) [3]plane {
	var out [3]plane
	for c := range rgb {
		out[c] = rgb[c].Resize(floatPool{}, w, h)
	}
	return out
}

// resizeRGB2 resamples three planes to two sizes, as resizeRGB twice, but
// with one pass along a side the two sizes share: the model's input and
// the working grid usually have the same width.
func resizeRGB2(rgb [3]plane, w1, h1, w2, h2 int) (a, b [3]plane) {
	for c := range rgb {
		switch p := rgb[c]; {
		case w1 == w2:
			x := p.ResizeX(floatPool{}, w1)
			a[c], b[c] = x.ResizeY(floatPool{}, h1), x.ResizeY(floatPool{}, h2)
			releaseUnless(x, p, a[c], b[c])
		case h1 == h2:
			y := p.ResizeY(floatPool{}, h1)
			a[c], b[c] = y.ResizeX(floatPool{}, w1), y.ResizeX(floatPool{}, w2)
			releaseUnless(y, p, a[c], b[c])
		default:
			a[c], b[c] = p.Resize(floatPool{}, w1, h1), p.Resize(floatPool{}, w2, h2)
		}
	}
	return a, b
}
