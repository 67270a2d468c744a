package vision

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
)

// plane is a single-channel float32 image, row-major.
type plane struct {
	w, h int
	p    []float32
}

// newPlane returns a zeroed w×h plane.
func newPlane(w, h int) plane { return plane{w: w, h: h, p: getFloats(w * h)} }

// release hands p's buffer back for later planes: p, and any plane sharing
// its buffer, must not be used afterwards.
func (p plane) release() { putFloats(p.p) }

// releaseUnless releases p unless it shares its buffer with one of keep (a
// resample to the same size returns its input).
func releaseUnless(p plane, keep ...plane) {
	if len(p.p) == 0 {
		return
	}
	for _, k := range keep {
		if len(k.p) > 0 && &k.p[0] == &p.p[0] {
			return
		}
	}
	p.release()
}

// resize resamples p to w×h with resampleTaps' filter, separably.
func (p plane) resize(w, h int) plane {
	x := p.resizeX(w)
	out := x.resizeY(h)
	releaseUnless(x, p, out)
	return out
}

// resizeX resamples the rows of p to w samples.
func (p plane) resizeX(w int) plane {
	if w == p.w {
		return p
	}
	tx := imaging.ResampleTaps(p.w, w)
	out := newPlane(w, p.h)
	imaging.Parallel(p.h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			src := p.p[y*p.w : (y+1)*p.w]
			dst := out.p[y*w : (y+1)*w]
			for x, t := range tx {
				var s float32
				for i, wt := range t.W {
					s += src[t.Start+i] * wt
				}
				dst[x] = s
			}
		}
	})
	return out
}

// resizeY resamples the columns of p to h samples.
func (p plane) resizeY(h int) plane {
	if h == p.h {
		return p
	}
	ty := imaging.ResampleTaps(p.h, h)
	w := p.w
	out := newPlane(w, h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t := ty[y]
			dst := out.p[y*w : (y+1)*w]
			for i, wt := range t.W {
				src := p.p[(t.Start+i)*w : (t.Start+i+1)*w]
				for x := range dst {
					dst[x] += src[x] * wt
				}
			}
		}
	})
	return out
}

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
				out[0].p[y*w+x] = float32(acc[3*x]) * inv
				out[1].p[y*w+x] = float32(acc[3*x+1]) * inv
				out[2].p[y*w+x] = float32(acc[3*x+2]) * inv
			}
		}
	})
	return out
}

// resizeRGB resamples three planes to w×h with the triangle filter.
func resizeRGB(rgb [3]plane, w, h int) [3]plane {
	var out [3]plane
	for c := range rgb {
		out[c] = rgb[c].resize(w, h)
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
			x := p.resizeX(w1)
			a[c], b[c] = x.resizeY(h1), x.resizeY(h2)
			releaseUnless(x, p, a[c], b[c])
		case h1 == h2:
			y := p.resizeY(h1)
			a[c], b[c] = y.resizeX(w1), y.resizeX(w2)
			releaseUnless(y, p, a[c], b[c])
		default:
			a[c], b[c] = p.resize(w1, h1), p.resize(w2, h2)
		}
	}
	return a, b
}
