package imaging

import "image"

// Component is one connected region of a binary grid.
type Component struct {
	Area int
	Box  image.Rectangle
	// SumX and SumY sum the pixels' coordinates, for the centroid.
	SumX, SumY int
	// Border counts the region's pixels on the grid's edge.
	Border int
}

// Label finds the connected regions of the pixels where set, a w×h grid,
// is true (8-connected when eight, else 4-connected). labels holds each
// pixel's index in comps, -1 for unset pixels; regions are numbered in the
// order their first pixel comes in the grid.
//
// It works on runs, the stretches of set pixels in a row: runs in
// neighbouring rows that touch are joined with a union-find, so the work
// is per run rather than per pixel.
func Label(set []bool, w, h int, eight bool) (labels []int32, comps []Component) {
	type run struct{ y, x0, x1 int } // pixels x0..x1-1 of row y
	var runs []run
	rowStart := make([]int, h+1)
	for y := range h {
		rowStart[y] = len(runs)
		row := set[y*w : (y+1)*w]
		for x := 0; x < w; {
			if !row[x] {
				x++
				continue
			}
			x0 := x
			for x < w && row[x] {
				x++
			}
			runs = append(runs, run{y, x0, x})
		}
	}
	rowStart[h] = len(runs)

	parent := make([]int32, len(runs))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// Runs touch when they overlap in x; diagonally too when eight.
	reach := 0
	if eight {
		reach = 1
	}
	for y := 1; y < h; y++ {
		a, aEnd := rowStart[y-1], rowStart[y]
		for b := rowStart[y]; b < rowStart[y+1]; b++ {
			rb := runs[b]
			for a < aEnd && runs[a].x1+reach <= rb.x0 {
				a++
			}
			for k := a; k < aEnd && runs[k].x0 < rb.x1+reach; k++ {
				if ra, rr := find(int32(k)), find(int32(b)); ra != rr {
					// The lower index is the root: the region is numbered
					// by its first run.
					parent[max(ra, rr)] = min(ra, rr)
				}
			}
		}
	}

	labels = make([]int32, w*h)
	for i := range labels {
		labels[i] = -1
	}
	id := make([]int32, len(runs))
	type bounds struct{ x0, y0, x1, y1 int }
	var box []bounds
	for i, r := range runs {
		root := find(int32(i))
		if int(root) == i {
			id[i] = int32(len(comps))
			comps = append(comps, Component{})
			box = append(box, bounds{w, h, -1, -1})
		} else {
			id[i] = id[root]
		}
		k := id[i]
		c, bb := &comps[k], &box[k]
		n := r.x1 - r.x0
		c.Area += n
		c.SumX += (r.x0 + r.x1 - 1) * n / 2
		c.SumY += r.y * n
		switch {
		case r.y == 0 || r.y == h-1:
			c.Border += n
		default: // its end pixels, if on the left or right edge (once when w is 1)
			if r.x0 == 0 {
				c.Border++
			}
			if r.x1 == w && r.x1-1 != 0 {
				c.Border++
			}
		}
		bb.x0, bb.y0, bb.x1, bb.y1 = min(bb.x0, r.x0), min(bb.y0, r.y), max(bb.x1, r.x1), max(bb.y1, r.y+1)
		l := labels[r.y*w+r.x0 : r.y*w+r.x1]
		for j := range l {
			l[j] = k
		}
	}
	for k := range comps {
		comps[k].Box = image.Rect(box[k].x0, box[k].y0, box[k].x1, box[k].y1)
	}
	return labels, comps
}

// FillHoles sets the unset regions of set (4-connected) that do not touch
// the grid's edge and are at most maxArea pixels: the holes wholly
// surrounded by set.
func FillHoles(set []bool, w, h, maxArea int) {
	bg := make([]bool, len(set))
	for i, k := range set {
		bg[i] = !k
	}
	labels, comps := Label(bg, w, h, false)
	for i, l := range labels {
		if l >= 0 {
			c := comps[l]
			if c.Border == 0 && c.Area <= maxArea {
				set[i] = true
			}
		}
	}
}
