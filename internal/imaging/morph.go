package imaging

// Dilate returns set, a w×h grid, grown by r pixels: a pixel is set when
// any pixel of the (2r+1)² square around it is (off the grid counts as
// not set). It is separable, a row pass then a column pass of running
// counts, each split over the cores.
func Dilate(set []bool, w, h, r int) []bool {
	tmp := make([]bool, len(set))
	Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row := set[y*w : (y+1)*w]
			out := tmp[y*w : (y+1)*w]
			n := 0
			for x := 0; x < min(r, w); x++ {
				if row[x] {
					n++
				}
			}
			for x := range w {
				if x+r < w && row[x+r] {
					n++
				}
				if x-r-1 >= 0 && row[x-r-1] {
					n--
				}
				out[x] = n > 0
			}
		}
	})
	// The column pass runs down the rows with a count per column, so it
	// reads memory in order.
	out := make([]bool, len(set))
	Parallel(w, func(lo, hi int) {
		count := make([]int32, hi-lo)
		for y := 0; y < min(r, h); y++ {
			for x, s := range tmp[y*w+lo : y*w+hi] {
				if s {
					count[x]++
				}
			}
		}
		for y := range h {
			if y+r < h {
				for x, s := range tmp[(y+r)*w+lo : (y+r)*w+hi] {
					if s {
						count[x]++
					}
				}
			}
			if y-r-1 >= 0 {
				for x, s := range tmp[(y-r-1)*w+lo : (y-r-1)*w+hi] {
					if s {
						count[x]--
					}
				}
			}
			row := out[y*w+lo : y*w+hi]
			for x, n := range count {
				row[x] = n > 0
			}
		}
	})
	return out
}

// Erode returns set shrunk by r pixels: a pixel stays set when every pixel
// of the (2r+1)² square around it that is on the grid is set. Off the grid
// counts as set, so a region cut by the grid's edge keeps its pixels along
// it (the complement of Dilate of the complement).
func Erode(set []bool, w, h, r int) []bool {
	inv := make([]bool, len(set))
	for i, s := range set {
		inv[i] = !s
	}
	d := Dilate(inv, w, h, r)
	for i := range d {
		d[i] = !d[i]
	}
	return d
}

// Open is the morphological opening of set by a square of radius r:
// Erode then Dilate, which keeps the parts of set at least 2r+1 thick.
func Open(set []bool, w, h, r int) []bool {
	return Dilate(Erode(set, w, h, r), w, h, r)
}

// ErodeFromEdge is Erode with off the grid counting as not set: the
// grid's edge eats into a region like any unset pixel, so nothing within
// r of the edge stays set.
func ErodeFromEdge(set []bool, w, h, r int) []bool {
	d := Erode(set, w, h, r)
	for y := range h {
		row := d[y*w : (y+1)*w]
		if y < r || y >= h-r {
			clear(row)
			continue
		}
		clear(row[:min(r, w)])
		clear(row[max(w-r, 0):])
	}
	return d
}
