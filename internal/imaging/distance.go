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

// Chamfer returns, for each pixel, its distance in pixels to the nearest
// set pixel (a chamfer, steps of 1 and √2 to the eight neighbours), 0 on
// set; 1e9 when nothing is set. It is cheaper than Distance, and its level
// sets are octagons rather than circles.
//
// Each of the two passes lowers a pixel's distance to a neighbour's
// behind it in the pass plus the step between them. The neighbours on the
// row before are final, so they are taken for the whole row at once
// (relaxFromRow, no chain from pixel to pixel); only the neighbour before
// it on its own row has to wait for that one. The result is the same as
// taking all four in turn, pixel by pixel: a minimum does not depend on
// the order of its terms.
func Chamfer(set []bool, w, h int) []float32 {
	const inf = float32(1e9)
	d := make([]float32, w*h)
	for i, on := range set {
		d[i] = inf
		if on {
			d[i] = 0
		}
	}
	for y := range h {
		row := d[y*w : (y+1)*w]
		if y > 0 {
			relaxFromRow(row, d[(y-1)*w:y*w])
		}
		for x := 1; x < w; x++ {
			row[x] = min(row[x], row[x-1]+chamferStep)
		}
	}
	for y := h - 1; y >= 0; y-- {
		row := d[y*w : (y+1)*w]
		if y < h-1 {
			relaxFromRow(row, d[(y+1)*w:(y+2)*w])
		}
		for x := w - 2; x >= 0; x-- {
			row[x] = min(row[x], row[x+1]+chamferStep)
		}
	}
	return d
}

// The chamfer's steps: to a side neighbour and to a diagonal one.
const chamferStep, chamferDiagonal = 1, 1.4142

// relaxFromRow lowers each distance on row to that of its three neighbours
// on the adjacent row next plus the step to them.
func relaxFromRow(row, next []float32) {
	n := len(row)
	next = next[:n]
	if n == 1 {
		row[0] = min(row[0], next[0]+chamferStep)
		return
	}
	row[0] = min(row[0], next[0]+chamferStep, next[1]+chamferDiagonal)
	for x := 1; x < n-1; x++ {
		row[x] = min(row[x], next[x]+chamferStep, next[x-1]+chamferDiagonal, next[x+1]+chamferDiagonal)
	}
	row[n-1] = min(row[n-1], next[n-1]+chamferStep, next[n-2]+chamferDiagonal)
}
