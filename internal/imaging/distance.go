package imaging

import "math"

// Distance returns, for each sample of a w×h grid, the exact Euclidean
// distance to the nearest sample where set is true (0 on set; +Inf when
// nothing is set). Its level sets are round: a layer cut at a distance
// from a region's edge has a smooth outline however the region is
// stair-stepped (Felzenszwalb and Huttenlocher's two-pass transform).
func Distance(set []bool, w, h int) []float32 {
	inf := math.Inf(1)
	d := make([]float64, w*h)
	for i, on := range set {
		if !on {
			d[i] = inf
		}
	}
	// Columns, then rows, each a 1-D transform of squared distances.
	Parallel(w, func(lo, hi int) {
		f, out := make([]float64, h), make([]float64, h)
		v, z := make([]int, h), make([]float64, h+1)
		for x := lo; x < hi; x++ {
			for y := range h {
				f[y] = d[y*w+x]
			}
			distance1D(f, out, v, z)
			for y := range h {
				d[y*w+x] = out[y]
			}
		}
	})
	Parallel(h, func(lo, hi int) {
		out := make([]float64, w)
		v, z := make([]int, w), make([]float64, w+1)
		for y := lo; y < hi; y++ {
			row := d[y*w : (y+1)*w]
			distance1D(row, out, v, z)
			copy(row, out)
		}
	})
	res := make([]float32, w*h)
	for i, v := range d {
		res[i] = float32(math.Sqrt(v))
	}
	return res
}

// distance1D is the lower envelope of the parabolas (q−p)² + f(p): out[q]
// is the smallest squared distance. v and z are scratch of len(f) and
// len(f)+1.
func distance1D(f, out []float64, v []int, z []float64) {
	n := len(f)
	k := -1
	for q := range n {
		if math.IsInf(f[q], 1) {
			continue
		}
		for k >= 0 {
			p := v[k]
			s := ((f[q] + float64(q*q)) - (f[p] + float64(p*p))) / float64(2*(q-p))
			if s > z[k] {
				break
			}
			k--
		}
		k++
		v[k] = q
		if k == 0 {
			z[k] = math.Inf(-1)
		} else {
			p := v[k-1]
			z[k] = ((f[q] + float64(q*q)) - (f[p] + float64(p*p))) / float64(2*(q-p))
		}
		z[k+1] = math.Inf(1)
	}
	if k < 0 {
		for q := range out {
			out[q] = math.Inf(1)
		}
		return
	}
	j := 0
	for q := range n {
		for z[j+1] < float64(q) {
			j++
		}
		dq := float64(q - v[j])
		out[q] = dq*dq + f[v[j]]
	}
}
