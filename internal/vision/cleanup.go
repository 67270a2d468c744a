package vision

import (
	"image"
	"math"
)

// cleaned is the model's answer after the car-specific cleanup, on the
// working grid.
type cleaned struct {
	matte       plane // soft matte 0..1, only the main object
	box         image.Rectangle
	found       bool
	confidence  float64
	borderShare float64
	raw         *image.Gray
}

// cleanup turns the model's saliency map sal (on the working grid, with
// the photo's colours work beside it) into the main object's matte.
func cleanup(sal plane, work [3]plane) cleaned {
	w, h := sal.w, sal.h
	raw := image.NewGray(image.Rect(0, 0, w, h))
	set := make([]bool, w*h)
	for i, v := range sal.p {
		if v >= 0.5 {
			set[i] = true
			raw.Pix[i] = 255
		}
	}
	keep, box, ok := keepMain(set, w, h)
	c := cleaned{matte: newPlane(w, h), raw: raw, box: box, found: ok}
	if !ok {
		return c
	}
	area := 0
	for _, k := range keep {
		if k {
			area++
		}
	}
	fillHoles(keep, w, h, area/20)
	c.confidence = confidence(sal, keep)
	c.borderShare = borderShare(keep, w, h)
	// The matte keeps the model's soft values on the object's rim (within
	// two pixels of it) and is solid inside, so filled holes are car.
	near := dilate(keep, w, h, 2)
	for i := range keep {
		switch {
		case keep[i]:
			c.matte.p[i] = max(sal.p[i], 0.5)
			if !edge(keep, w, h, i) {
				c.matte.p[i] = 1
			}
		case near[i]:
			c.matte.p[i] = min(sal.p[i], 0.5)
		}
	}
	return c
}

// edge reports whether pixel i of keep has an unset 4-neighbour.
func edge(keep []bool, w, h, i int) bool {
	x, y := i%w, i/w
	return (x > 0 && !keep[i-1]) || (x < w-1 && !keep[i+1]) ||
		(y > 0 && !keep[i-w]) || (y < h-1 && !keep[i+w])
}

// dilate returns set grown by r pixels (a square structuring element,
// separable: a row pass then a column pass of running counts).
func dilate(set []bool, w, h, r int) []bool {
	tmp := make([]bool, len(set))
	for y := range h {
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
	out := make([]bool, len(set))
	for x := range w {
		n := 0
		for y := 0; y < min(r, h); y++ {
			if tmp[y*w+x] {
				n++
			}
		}
		for y := range h {
			if y+r < h && tmp[(y+r)*w+x] {
				n++
			}
			if y-r-1 >= 0 && tmp[(y-r-1)*w+x] {
				n--
			}
			out[y*w+x] = n > 0
		}
	}
	return out
}

// erode returns set shrunk by r pixels.
func erode(set []bool, w, h, r int) []bool {
	inv := make([]bool, len(set))
	for i, s := range set {
		inv[i] = !s
	}
	d := dilate(inv, w, h, r)
	for i := range d {
		d[i] = !d[i]
	}
	return d
}

// confidence scores, in 0..1, how clearly the model found one object; see
// docs/segmentation.md. It multiplies three terms:
//   - certainty: the mean saliency over the object (a real subject is near
//     1 throughout; a guess on a wall or a landscape hovers near 0.5);
//   - focus: the share of all saliency in the photo that falls on the
//     object (a landscape spreads it over many patches);
//   - size: the object must cover at least about 1% of the photo.
func confidence(sal plane, keep []bool) float64 {
	var in, all float64
	n := 0
	for i, v := range sal.p {
		all += float64(v)
		if keep[i] {
			in += float64(v)
			n++
		}
	}
	if n == 0 || all == 0 {
		return 0
	}
	certainty := in / float64(n)
	focus := min(in/all, 1)
	frac := float64(n) / float64(len(sal.p))
	size := smoothstep(0.002, 0.01, frac)
	return certainty * focus * size
}

func smoothstep(lo, hi, x float64) float64 {
	t := math.Max(0, math.Min(1, (x-lo)/(hi-lo)))
	return t * t * (3 - 2*t)
}

// borderShare is the share of the outline of keep that runs along the
// grid's edge. Sides between pixels on the edge are exact lengths; sides
// inside the grid form a staircase that overstates a slanted outline by
// 4/π on average, so they are scaled by π/4.
func borderShare(keep []bool, w, h int) float64 {
	var onEdge, inside int
	for y := range h {
		for x := range w {
			i := y*w + x
			if !keep[i] {
				continue
			}
			for _, d := range [4][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				nx, ny := x+d[0], y+d[1]
				switch {
				case nx < 0 || ny < 0 || nx >= w || ny >= h:
					onEdge++
				case !keep[ny*w+nx]:
					inside++
				}
			}
		}
	}
	total := float64(onEdge) + float64(inside)*math.Pi/4
	if total == 0 {
		return 0
	}
	return float64(onEdge) / total
}
