package vision

import (
	"image"
)

// component is one connected region of a binary grid.
type component struct {
	area int
	box  image.Rectangle
	// sx, sy sum the coordinates, for the centroid.
	sx, sy int
	// border counts the region's pixels on the grid's edge.
	border int
}

// label finds the connected regions of the pixels where set is true
// (8-connected when eight, else 4-connected). labels holds each pixel's
// region index plus one, 0 for unset pixels; regions are numbered in the
// order their first pixel comes in the grid.
//
// It works on runs, the stretches of set pixels in a row: runs in
// neighbouring rows that touch are joined with a union-find, so the work
// is per run rather than per pixel.
func label(set []bool, w, h int, eight bool) (labels []int32, comps []component) {
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
	id := make([]int32, len(runs))
	type bounds struct{ x0, y0, x1, y1 int }
	var box []bounds
	for i, r := range runs {
		root := find(int32(i))
		if int(root) == i {
			id[i] = int32(len(comps) + 1)
			comps = append(comps, component{})
			box = append(box, bounds{w, h, -1, -1})
		} else {
			id[i] = id[root]
		}
		k := id[i] - 1
		c, bb := &comps[k], &box[k]
		n := r.x1 - r.x0
		c.area += n
		c.sx += (r.x0 + r.x1 - 1) * n / 2
		c.sy += r.y * n
		switch {
		case r.y == 0 || r.y == h-1:
			c.border += n
		default: // its end pixels, if on the left or right edge (once when w is 1)
			if r.x0 == 0 {
				c.border++
			}
			if r.x1 == w && r.x1-1 != 0 {
				c.border++
			}
		}
		bb.x0, bb.y0, bb.x1, bb.y1 = min(bb.x0, r.x0), min(bb.y0, r.y), max(bb.x1, r.x1), max(bb.y1, r.y+1)
		l := labels[r.y*w+r.x0 : r.y*w+r.x1]
		for j := range l {
			l[j] = id[i]
		}
	}
	for k := range comps {
		comps[k].box = image.Rect(box[k].x0, box[k].y0, box[k].x1, box[k].y1)
	}
	return labels, comps
}

// mainObject picks the region that is the photo's subject: the largest by
// area weighted towards the centre of the frame, so that a big object cut by
// the edge (a second car half out of the picture, a wall) loses to the car
// the photographer aimed at. It returns -1 when there is no region.
func mainObject(comps []component, w, h int) int {
	best, bestScore := -1, 0.0
	for i, c := range comps {
		cx := float64(c.sx)/float64(c.area)/float64(w) - 0.5
		cy := float64(c.sy)/float64(c.area)/float64(h) - 0.5
		// 1 at the centre, 0.5 at a corner.
		central := 1 - (cx*cx + cy*cy)
		score := float64(c.area) * central
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// keepMain returns the pixels of the main object: its region and the
// smaller regions lying mostly inside its box (a mirror or a wheel the
// model split off), dropping the rest (a second car beside it, a
// pedestrian, signs).
func keepMain(set []bool, w, h int) (keep []bool, box image.Rectangle, ok bool) {
	labels, comps := label(set, w, h, true)
	m := mainObject(comps, w, h)
	keep = make([]bool, w*h)
	if m < 0 {
		return keep, image.Rectangle{}, false
	}
	mb := comps[m].box
	take := make([]bool, len(comps))
	take[m] = true
	for i, c := range comps {
		if i == m || c.area*200 < comps[m].area {
			continue
		}
		in := c.box.Intersect(mb)
		if in.Dx()*in.Dy()*10 >= c.box.Dx()*c.box.Dy()*9 {
			take[i] = true
			box = box.Union(c.box)
		}
	}
	box = box.Union(mb)
	for i, l := range labels {
		if l != 0 && take[l-1] {
			keep[i] = true
		}
	}
	return keep, box, true
}

// fillHoles sets the unset regions of keep that do not touch the grid's
// edge and are smaller than maxArea: gaps the model left inside the car
// (see-through windows, dark grilles), which count as car.
func fillHoles(keep []bool, w, h, maxArea int) {
	bg := make([]bool, len(keep))
	for i, k := range keep {
		bg[i] = !k
	}
	labels, comps := label(bg, w, h, false)
	for i, l := range labels {
		if l != 0 {
			c := comps[l-1]
			if c.border == 0 && c.area <= maxArea {
				keep[i] = true
			}
		}
	}
}
