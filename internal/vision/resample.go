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

func newPlane(w, h int) plane { return plane{w: w, h: h, p: make([]float32, w*h)} }

// resize resamples p to w×h with resampleTaps' filter, separably.
func (p plane) resize(w, h int) plane {
	tx, ty := imaging.ResampleTaps(p.w, w), imaging.ResampleTaps(p.h, h)
	tmp := newPlane(w, p.h)
	imaging.Parallel(p.h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			src := p.p[y*p.w : (y+1)*p.w]
			dst := tmp.p[y*w : (y+1)*w]
			for x, t := range tx {
				var s float32
				for i, wt := range t.W {
					s += src[t.Start+i] * wt
				}
				dst[x] = s
			}
		}
	})
	out := newPlane(w, h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t := ty[y]
			dst := out.p[y*w : (y+1)*w]
			for i, wt := range t.W {
				src := tmp.p[(t.Start+i)*w : (t.Start+i+1)*w]
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
		out[c] = rgb[c]
		if rgb[c].w != w || rgb[c].h != h {
			out[c] = rgb[c].resize(w, h)
		}
	}
	return out
}
