package vision

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
)

// mainObject picks the region that is the photo's subject: the largest by
// area weighted towards the centre of the frame, so that a big object cut by
// the edge (a second car half out of the picture, a wall) loses to the car
// the photographer aimed at. It returns -1 when there is no region.
func mainObject(comps []imaging.Component, w, h int) int {
	best, bestScore := -1, 0.0
	for i, c := range comps {
		cx := float64(c.SumX)/float64(c.Area)/float64(w) - 0.5
		cy := float64(c.SumY)/float64(c.Area)/float64(h) - 0.5
		// 1 at the centre, 0.5 at a corner.
		central := 1 - (cx*cx + cy*cy)
		score := float64(c.Area) * central
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
	labels, comps := imaging.Label(set, w, h, true)
	m := mainObject(comps, w, h)
	keep = make([]bool, w*h)
	if m < 0 {
		return keep, image.Rectangle{}, false
	}
	mb := comps[m].Box
	take := make([]bool, len(comps))
	take[m] = true
	for i, c := range comps {
		if i == m || c.Area*200 < comps[m].Area {
			continue
		}
		in := c.Box.Intersect(mb)
		if in.Dx()*in.Dy()*10 >= c.Box.Dx()*c.Box.Dy()*9 {
			take[i] = true
			box = box.Union(c.Box)
		}
	}
	box = box.Union(mb)
	for i, l := range labels {
		if l >= 0 && take[l] {
			keep[i] = true
		}
	}
	return keep, box, true
}
