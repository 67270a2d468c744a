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
	w, h := p.w, p.h
	I := newPlane(w, h)
	for i := range I.p {
		I.p[i] = (0.299*work[0].p[i] + 0.587*work[1].p[i] + 0.114*work[2].p[i]) / 255
	}
	a, b := guidedCoefficients(I, p, guideRadius, guideEps)
	I.release()
	alpha := applyCoefficients(img, a, b)
	a.release()
	b.release()
	return alpha
}

// guidedCoefficients returns the box-averaged a and b of the guided filter
// of p guided by I.
func guidedCoefficients(I, p plane, r int, eps float32) (plane, plane) {
	n := len(I.p)
	Ip, II := newPlane(I.w, I.h), newPlane(I.w, I.h)
	for i := range n {
		Ip.p[i] = I.p[i] * p.p[i]
		II.p[i] = I.p[i] * I.p[i]
	}
	mI, mp, mIp, mII := boxMean(I, r), boxMean(p, r), boxMean(Ip, r), boxMean(II, r)
	Ip.release()
	II.release()
	a, b := newPlane(I.w, I.h), newPlane(I.w, I.h)
	for i := range n {
		v := mII.p[i] - mI.p[i]*mI.p[i]
		cov := mIp.p[i] - mI.p[i]*mp.p[i]
		a.p[i] = cov / (v + eps)
		b.p[i] = mp.p[i] - a.p[i]*mI.p[i]
	}
	for _, m := range []plane{mI, mp, mIp, mII} {
		m.release()
	}
	ma, mb := boxMean(a, r), boxMean(b, r)
	a.release()
	b.release()
	return ma, mb
}

// boxMean is the mean over the (2r+1)² window, the window clipped at the
// edges, with running sums (time independent of r).
func boxMean(p plane, r int) plane {
	w, h := p.w, p.h
	tmp := newPlane(w, h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row, out := p.p[y*w:(y+1)*w], tmp.p[y*w:(y+1)*w]
			var s float32
			for x := 0; x < min(r, w); x++ {
				s += row[x]
			}
			for x := range w {
				if x+r < w {
					s += row[x+r]
				}
				if x-r-1 >= 0 {
					s -= row[x-r-1]
				}
				out[x] = s / float32(min(x+r, w-1)-max(x-r, 0)+1)
			}
		}
	})
	// The column pass runs down the rows with a sum per column, so it reads
	// memory in order; the columns are split over the cores.
	out := newPlane(w, h)
	imaging.Parallel(w, func(lo, hi int) {
		sum := make([]float32, hi-lo)
		for y := 0; y < min(r, h); y++ {
			for x, v := range tmp.p[y*w+lo : y*w+hi] {
				sum[x] += v
			}
		}
		for y := range h {
			if y+r < h {
				for x, v := range tmp.p[(y+r)*w+lo : (y+r)*w+hi] {
					sum[x] += v
				}
			}
			if y-r-1 >= 0 {
				for x, v := range tmp.p[(y-r-1)*w+lo : (y-r-1)*w+hi] {
					sum[x] -= v
				}
			}
			inv := 1 / float32(min(y+r, h-1)-max(y-r, 0)+1)
			for x, s := range sum {
				out.p[y*w+lo+x] = s * inv
			}
		}
	})
	tmp.release()
	return out
}

// applyCoefficients computes q = a·I + b at img's resolution, a and b
// bilinearly interpolated from their grid, I img's luminance.
func applyCoefficients(img *image.NRGBA, a, b plane) *image.Gray {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, W, H))
	if W == a.w && H == a.h {
		imaging.Parallel(H, func(lo, hi int) {
			for y := lo; y < hi; y++ {
				src := img.Pix[y*img.Stride:]
				dst := out.Pix[y*out.Stride:]
				for x := range W {
					lum := (0.299*float32(src[4*x]) + 0.587*float32(src[4*x+1]) + 0.114*float32(src[4*x+2])) / 255
					dst[x] = toByte(a.p[y*a.w+x]*lum + b.p[y*a.w+x])
				}
			}
		})
		return out
	}
	x0, x1, fx := bilinearIndex(W, a.w)
	y0, y1, fy := bilinearIndex(H, a.h)
	// The output columns interpolated between coefficient columns k and
	// k+1 are span[k] to span[k+1]: x0 never falls as x rises.
	span := make([]int, a.w+1)
	k := 0
	for x := range W {
		for ; k <= x0[x]; k++ {
			span[k] = x
		}
	}
	for ; k <= a.w; k++ {
		span[k] = W
	}
	imaging.Parallel(H, func(lo, hi int) {
		ra, rb := make([]float32, a.w), make([]float32, a.w)
		for y := lo; y < hi; y++ {
			// Interpolate the two coefficient rows once per output row.
			r0, r1, f := y0[y]*a.w, y1[y]*a.w, fy[y]
			for x := range a.w {
				ra[x] = a.p[r0+x] + f*(a.p[r1+x]-a.p[r0+x])
				rb[x] = b.p[r0+x] + f*(b.p[r1+x]-b.p[r0+x])
			}
			src := img.Pix[y*img.Stride:]
			dst := out.Pix[y*out.Stride : y*out.Stride+W]
			for k := range a.w {
				xa, xb := span[k], span[k+1]
				if xa >= xb {
					continue
				}
				k1 := min(k+1, a.w-1)
				if flat(ra[k]) && flat(ra[k1]) {
					// No edge to follow between these two columns (most
					// of the photo: the car's inside and the background):
					// the matte is b alone, often one value all along.
					if v := toByte(rb[k]); v == toByte(rb[k1]) {
						fillBytes(dst[xa:xb], v)
						continue
					}
				}
				for x := xa; x < xb; x++ {
					i0, i1, g := x0[x], x1[x], fx[x]
					ca := ra[i0] + g*(ra[i1]-ra[i0])
					cb := rb[i0] + g*(rb[i1]-rb[i0])
					if flat(ca) {
						dst[x] = toByte(cb)
						continue
					}
					lum := (0.299*float32(src[4*x]) + 0.587*float32(src[4*x+1]) + 0.114*float32(src[4*x+2])) / 255
					dst[x] = toByte(ca*lum + cb)
				}
			}
		}
	})
	return out
}

// flat reports whether a guided-filter slope is too small to matter: the
// matte does not follow the photo there.
func flat(a float32) bool { return a > -1e-3 && a < 1e-3 }

func fillBytes(b []byte, v byte) {
	for i := range b {
		b[i] = v
	}
}

// bilinearIndex maps each of n output samples to its two nearest of m
// input samples (centres aligned) and the weight of the second.
func bilinearIndex(n, m int) (i0, i1 []int, f []float32) {
	i0, i1, f = make([]int, n), make([]int, n), make([]float32, n)
	s := float32(m) / float32(n)
	for o := range n {
		c := (float32(o)+0.5)*s - 0.5
		if c < 0 {
			c = 0
		}
		k := int(c)
		if k >= m-1 {
			k, c = m-1, float32(m-1)
		}
		i0[o], i1[o], f[o] = k, min(k+1, m-1), c-float32(k)
	}
	return i0, i1, f
}

func toByte(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 1:
		return 255
	}
	return uint8(v*255 + 0.5)
}
