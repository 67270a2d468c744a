package imaging

// The fast guided filter (He and Sun, 2015) brings a soft layer found on a
// coarse grid (the car's matte, the glass) to a photo's full resolution:
// the local linear model q = a·I + b between a guide I (the photo's
// luminance) and the layer is fitted on the coarse grid, where it is cheap,
// and a and b are interpolated and applied to the full-resolution guide, so
// the layer's edges come from the photo's own pixels rather than from an
// enlarged grid.

// Buffers hands out scratch float buffers and takes them back, so a caller
// that keeps a pool can lend it to the filters here. Get returns n zeroed
// floats; Put hands a buffer back, after which nothing may use it.
type Buffers interface {
	Get(n int) []float32
	Put(b []float32)
}

// heap is the Buffers of a caller without a pool.
type heap struct{}

func (heap) Get(n int) []float32 { return make([]float32, n) }
func (heap) Put([]float32)       {}

// BoxMean writes to dst the mean of src (w×h, row-major) over the
// (2r+1)² window around each sample, the window clipped at the edges, with
// running sums (time independent of r). tmp is scratch of w*h floats; dst
// may be src.
func BoxMean(dst, tmp, src []float32, w, h, r int) {
	Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row, out := src[y*w:(y+1)*w], tmp[y*w:(y+1)*w]
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
	Parallel(w, func(lo, hi int) {
		sum := make([]float32, hi-lo)
		for y := 0; y < min(r, h); y++ {
			for x, v := range tmp[y*w+lo : y*w+hi] {
				sum[x] += v
			}
		}
		for y := range h {
			if y+r < h {
				for x, v := range tmp[(y+r)*w+lo : (y+r)*w+hi] {
					sum[x] += v
				}
			}
			if y-r-1 >= 0 {
				for x, v := range tmp[(y-r-1)*w+lo : (y-r-1)*w+hi] {
					sum[x] -= v
				}
			}
			inv := 1 / float32(min(y+r, h-1)-max(y-r, 0)+1)
			for x, s := range sum {
				dst[y*w+lo+x] = s * inv
			}
		}
	})
}

// GuidedCoefficients returns the box-averaged coefficients a and b of the
// guided filter of p guided by I (both w×h): q = a·I + b. r is the window
// radius in samples and eps the regularisation, in I's units squared: it
// sets how strong an edge of I must be for q to follow it. buf lends the
// scratch and the results (nil: the heap).
func GuidedCoefficients(I, p []float32, w, h, r int, eps float32, buf Buffers) (a, b []float32) {
	if buf == nil {
		buf = heap{}
	}
	n := w * h
	tmp := buf.Get(n)
	mean := func(src []float32) []float32 {
		out := buf.Get(n)
		BoxMean(out, tmp, src, w, h, r)
		return out
	}
	Ip, II := buf.Get(n), buf.Get(n)
	for i := range n {
		Ip[i] = I[i] * p[i]
		II[i] = I[i] * I[i]
	}
	mI, mp := mean(I), mean(p)
	BoxMean(Ip, tmp, Ip, w, h, r)
	BoxMean(II, tmp, II, w, h, r)
	a, b = buf.Get(n), buf.Get(n)
	for i := range n {
		v := II[i] - mI[i]*mI[i]
		cov := Ip[i] - mI[i]*mp[i]
		a[i] = cov / (v + eps)
		b[i] = mp[i] - a[i]*mI[i]
	}
	for _, s := range [][]float32{mI, mp, Ip, II} {
		buf.Put(s)
	}
	BoxMean(a, tmp, a, w, h, r)
	BoxMean(b, tmp, b, w, h, r)
	buf.Put(tmp)
	return a, b
}

// BilinearIndex maps the output samples lo..hi-1 of a resampling to their
// two nearest input samples of m and the weight of the second: output
// sample o's centre lies at input coordinate (o+0.5)·scale − 0.5 − origin,
// clamped to the input's first and last samples.
func BilinearIndex(lo, hi int, scale, origin float64, m int) (i0, i1 []int, f []float32) {
	n := hi - lo
	i0, i1, f = make([]int, n), make([]int, n), make([]float32, n)
	for o := range n {
		c := (float64(lo+o)+0.5)*scale - 0.5 - origin
		if c < 0 {
			c = 0
		}
		k := int(c)
		if k >= m-1 {
			k, c = m-1, float64(m-1)
		}
		i0[o], i1[o], f[o] = k, min(k+1, m-1), float32(c-float64(k))
	}
	return i0, i1, f
}

// ToByte maps 0..1 (clamped) to 0..255, rounded.
func ToByte(v float32) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 1:
		return 255
	}
	return uint8(v*255 + 0.5)
}
