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
// region index plus one, 0 for unset pixels.
func label(set []bool, w, h int, eight bool) (labels []int32, comps []component) {
	labels = make([]int32, w*h)
	stack := make([]int32, 0, 1024)
	for start := range set {
		if !set[start] || labels[start] != 0 {
			continue
		}
		id := int32(len(comps) + 1)
		c := component{}
		x0, y0, x1, y1 := w, h, -1, -1
		labels[start] = id
		stack = append(stack[:0], int32(start))
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			y := i / w
			x := i - y*w
			c.area++
			c.sx += x
			c.sy += y
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				c.border++
			}
			for dy := -1; dy <= 1; dy++ {
				ny := y + dy
				if ny < 0 || ny >= h {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					nx := x + dx
					if nx < 0 || nx >= w || (dx == 0 && dy == 0) || (!eight && dx != 0 && dy != 0) {
						continue
					}
					j := ny*w + nx
					if set[j] && labels[j] == 0 {
						labels[j] = id
						stack = append(stack, int32(j))
					}
				}
			}
		}
		c.box = image.Rect(x0, y0, x1+1, y1+1)
		comps = append(comps, c)
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
