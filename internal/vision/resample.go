package vision

import (
	"image"
	"math"
	"runtime"
	"sync"
)

// plane is a single-channel float32 image, row-major.
type plane struct {
	w, h int
	p    []float32
}

func newPlane(w, h int) plane { return plane{w: w, h: h, p: make([]float32, w*h)} }

// taps are the weights of one output sample of a 1-D resampling.
type taps struct {
	start int
	w     []float32
}

// resampleTaps returns, for each of out output samples, the input samples
// and weights of an antialiased linear (triangle) filter from in samples:
// bilinear when enlarging, a triangle as wide as the scale when reducing,
// so no input pixel is skipped (the same filter as Pillow's BILINEAR).
func resampleTaps(in, out int) []taps {
	scale := float64(in) / float64(out)
	support := max(scale, 1)
	t := make([]taps, out)
	for o := range t {
		c := (float64(o) + 0.5) * scale
		lo := max(int(math.Floor(c-support)), 0)
		hi := min(int(math.Ceil(c+support)), in)
		ws := make([]float32, 0, hi-lo)
		var sum float64
		for i := lo; i < hi; i++ {
			w := 1 - math.Abs((float64(i)+0.5-c)/support)
			if w < 0 {
				w = 0
			}
			ws = append(ws, float32(w))
			sum += w
		}
		if sum == 0 {
			// Only possible at the very edge; take the nearest sample.
			lo, ws, sum = min(int(c), in-1), []float32{1}, 1
		}
		for i := range ws {
			ws[i] /= float32(sum)
		}
		t[o] = taps{start: lo, w: ws}
	}
	return t
}

// parallel runs f over [0,n) split in chunks, one per CPU.
func parallel(n int, f func(lo, hi int)) {
	k := min(runtime.GOMAXPROCS(0), n)
	if k <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := range k {
		lo, hi := i*n/k, (i+1)*n/k
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// resize resamples p to w×h with resampleTaps' filter, separably.
func (p plane) resize(w, h int) plane {
	tx, ty := resampleTaps(p.w, w), resampleTaps(p.h, h)
	tmp := newPlane(w, p.h)
	parallel(p.h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			src := p.p[y*p.w : (y+1)*p.w]
			dst := tmp.p[y*w : (y+1)*w]
			for x, t := range tx {
				var s float32
				for i, wt := range t.w {
					s += src[t.start+i] * wt
				}
				dst[x] = s
			}
		}
	})
	out := newPlane(w, h)
	parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t := ty[y]
			dst := out.p[y*w : (y+1)*w]
			for i, wt := range t.w {
				src := tmp.p[(t.start+i)*w : (t.start+i+1)*w]
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
	parallel(h, func(lo, hi int) {
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
