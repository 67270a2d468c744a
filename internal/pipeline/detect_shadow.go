package pipeline

import (
	"context"
	"image"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/imaging"
)

// detectShadow is DetectCarShadowProcessor: it measures how much darker
// than the surrounding floor the ground is below and around the car's
// lower edge, and keeps the darkness that touches the car, so a dark
// object elsewhere on the floor is not taken for its shadow. The result is
// a soft layer, not a mask: a contact shadow fades, and drawn hard it looks
// pasted on.
type detectShadow struct{}

func newDetectShadow(catalog.DetectCarShadowParams) step { return detectShadow{} }

func (detectShadow) finds() string { return "shadow" }

func (detectShadow) apply(ctx context.Context, r *run, s *Scene) error {
	if !s.hasCar() {
		return nil
	}
	g := s.workGrid()
	box := g.toWork(s.Box)
	d, found := findShadow(g, box)
	s.Shadow, s.ShadowDetected = nil, found
	if found {
		fadeAtPhotoEdges(d, box, cutEdges(s.Matte, s.Box))
		s.Shadow = &d
	}
	return nil
}

// fadeAtPhotoEdges fades the shadow layer d out towards each side of the
// photo it reaches, over a tenth of the car's length (sideways) or height
// (at the top and bottom): the photo shows no more of the shadow there,
// and drawn as it is, on a canvas larger than the photo, it would end in
// a straight line, a grey box. Sides along which the photo cuts the car
// are left alone: the car is placed with them on the canvas's edge
// (frameCut), where the shadow runs out of the picture with it.
func fadeAtPhotoEdges(d plane, box image.Rectangle, cut edges) {
	w, h := d.W, d.H
	// Whether the shadow reaches the edge: findShadow's own fade (over
	// fadeEdges' r of its region, which the photo's edge clips) has
	// already taken it to nothing on the edge itself, so the band that
	// fade spans is looked at.
	band := max(box.Dx()/40, 2) + 2
	reaches := func(n int, at func(int) float32) bool {
		for i := range n {
			if at(i) > 0.01 {
				return true
			}
		}
		return false
	}
	lx := math.Max(0.1*float64(box.Dx()), 3)
	ly := math.Max(0.1*float64(box.Dy()), 3)
	fade := func(dist int, l float64) float32 { return float32(imaging.Smoothstep(0, l, float64(dist)+0.5)) }
	if !cut.left && reaches(h, func(y int) float32 { return slices.Max(d.Pix[y*w : y*w+min(band, w)]) }) {
		for y := range h {
			for x := 0; x < min(w, int(lx)+1); x++ {
				d.Pix[y*w+x] *= fade(x, lx)
			}
		}
	}
	if !cut.right && reaches(h, func(y int) float32 { return slices.Max(d.Pix[y*w+max(w-band, 0) : (y+1)*w]) }) {
		for y := range h {
			for x := max(0, w-1-int(lx)); x < w; x++ {
				d.Pix[y*w+x] *= fade(w-1-x, lx)
			}
		}
	}
	if !cut.top && reaches(w, func(x int) float32 { return columnMax(d, x, 0, min(band, h)) }) {
		for y := 0; y < min(h, int(ly)+1); y++ {
			for x := range w {
				d.Pix[y*w+x] *= fade(y, ly)
			}
		}
	}
	if !cut.bottom && reaches(w, func(x int) float32 { return columnMax(d, x, max(h-band, 0), h) }) {
		for y := max(0, h-1-int(ly)); y < h; y++ {
			for x := range w {
				d.Pix[y*w+x] *= fade(h-1-y, ly)
			}
		}
	}
}

// shadowSeed and shadowGrow are darkness levels of the smoothed darkness:
// a shadow starts next to the car where the floor is at least shadowSeed
// darker than around, and spreads through floor at least shadowGrow
// darker.
const (
	shadowSeed = 0.10
	shadowGrow = 0.04
)

// findShadow returns the darkness layer of the car's shadow on the working
// grid and whether there is any. The layer is the photographed shadow's
// shape and darkness without the ground's texture: the floor's grain
// (asphalt, gravel, tiles) is as often lighter as darker than the floor,
// so the signed darkness is averaged over an area large enough to cancel
// it; the edge then softens with distance from the tyres, as a penumbra
// does, and each tyre gets a contact shadow.
func findShadow(g *workGrid, box image.Rectangle) (plane, bool) {
	w, h := g.w, g.h
	bw, bh := box.Dx(), box.Dy()
	d := newPlane(w, h)
	if bw < 4 || bh < 4 {
		return d, false
	}
	// The region where a car's own shadow can be: the lower half of its box
	// and a little beyond its ends and below it.
	roi := image.Rect(box.Min.X-bw/4, box.Min.Y+bh*7/10, box.Max.X+bw/4, box.Max.Y+bh*3/10).Intersect(image.Rect(0, 0, w, h))
	if roi.Dx() < 2 || roi.Dy() < 2 {
		return d, false
	}
	dist := distanceToCar(g)
	near, reach := 2.5, math.Max(0.15*float64(bw), 6)
	ref := floorLevel(g, box, roi, dist, reach)
	// A broad shade cast by something else (a building, a tree) around
	// the car, against a sunlit floor that set the level: only the car's
	// footprint of it is kept (distanceToBottom, below).
	broad := broadShade(g, roi, dist, ref, reach)

	// The signed darkness of each floor pixel, in the region's own
	// coordinates. The car's edge pixels on the working grid mix car and
	// floor: within a couple of pixels of the car they do not vote, and
	// the smoothing below fills them from further out. Far from the car a
	// contact shadow fades out, so a turntable's rim or a kerb connected
	// to it is not taken along.
	rw, rh := roi.Dx(), roi.Dy()
	dark, weight := newPlane(rw, rh), newPlane(rw, rh)
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		if ref[y] <= 0.005 {
			continue // a black floor shows no shadow
		}
		for x := roi.Min.X; x < roi.Max.X; x++ {
			i, li := y*w+x, (y-roi.Min.Y)*rw+x-roi.Min.X
			if float64(dist[i]) < near {
				continue
			}
			v := max(-1, min(1-g.lum.Pix[i]/ref[y], 1))
			dark.Pix[li] = v * float32(1-imaging.Smoothstep(0.5*reach, reach, float64(dist[i])))
			weight.Pix[li] = 1
		}
	}
	// The shadow under a car is a band along the floor: it changes slowly
	// along it and fast across, so the average runs further horizontally.
	rx, ry := max(2, int(math.Round(0.05*float64(bw)))), max(1, int(math.Round(0.008*float64(bw))))
	first, _ := normalizedBlur(dark, weight, rx, ry)
	keep := connectedShadow(first, dist, w, roi, box)
	for li, k := range keep {
		if !k {
			dark.Pix[li] = 0
		}
	}
	// Averaged again with the floor around set to none, so the shadow's
	// own outline is as smooth as its inside.
	smooth, defined := normalizedBlur(dark, weight, rx, ry)
	tyres := tyreContacts(g, box)
	soft := penumbra(smooth, defined, tyres, dist, w, roi, bw)
	var foot []float32
	if broad {
		foot = distanceToBottom(g, box, tyres)
	}
	var mass float64
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		for x := roi.Min.X; x < roi.Max.X; x++ {
			v := max(soft.Pix[(y-roi.Min.Y)*rw+x-roi.Min.X], 0)
			if foot != nil {
				// Sideways the footprint ends soon after the car does.
				out := float64(max(box.Min.X-x, x+1-box.Max.X, 0))
				v *= float32((1 - imaging.Smoothstep(footNear*float64(bh), footFar*float64(bh), float64(foot[y*w+x]))) *
					(1 - imaging.Smoothstep(footSideNear*float64(bw), footSideFar*float64(bw), out)))
			}
			d.Pix[y*w+x] = v
			mass += float64(v)
		}
	}
	fillUnderCar(g, d, box)
	// Fade towards the region's edges so the layer never ends in a line;
	// slowly at its top, which a shadow beside a three-quarter view's far
	// end can reach.
	fadeEdges(d, roi, max(bw/40, 2), max(bh/8, 2))
	addContactShadows(d, tyres, box)
	return d, mass > 0.002*float64(bw*bh)
}

// footNear and footFar bound the footprint kept of a broad shade, as
// shares of the car's height from its lower edge: all of it within
// footNear, none beyond footFar. In a shade the car's own shadow is the
// darkness close under it, where the car hides the sky; in a front view
// it reaches about a sixth of the car's height below the bumper.
const (
	footNear = 0.05
	footFar  = 0.2
)

// footSideNear and footSideFar bound it beyond the car's ends, as shares
// of its length.
const (
	footSideNear = 0.0
	footSideFar  = 0.06
)

// broadShadeDark and broadShare tell a broad shade cast by something
// else from the car's own shadow: the floor just beyond the shadow's
// reach (reach to twice that from the car) is at least broadShadeDark
// darker than the floor level over at least broadShare of it. A car's
// shadow has faded there; a building's shade goes on, against the sunlit
// floor that set the level. (A floor's grain of ±20% darkens a tenth of
// it that much.)
const (
	broadShadeDark = 0.2
	broadShare     = 0.3
)

// broadShade reports whether the car stands in a broad shade: at least
// broadShare of the floor just beyond the shadow's reach (reach to twice
// that from the car, in roi) is broadShadeDark darker than the floor
// level ref.
func broadShade(g *workGrid, roi image.Rectangle, dist []float32, ref []float32, reach float64) bool {
	shaded, n := 0, 0
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		if ref[y] <= 0.005 {
			continue
		}
		for x := roi.Min.X; x < roi.Max.X; x++ {
			i := y*g.w + x
			if d := float64(dist[i]); d < reach || d >= 2*reach {
				continue
			}
			n++
			if 1-g.lum.Pix[i]/ref[y] >= broadShadeDark {
				shaded++
			}
		}
	}
	return n > 0 && float64(shaded) >= broadShare*float64(n)
}

// distanceToBottom returns, for each grid pixel, its distance to the
// car's footprint on the floor: in each of the box's columns, from the
// car's lowest pixel, where it is in the lower third of the box (a
// mirror's lower edge is not), down to the floor under it (the line
// through the wheels' contacts, or the box's bottom without two).
func distanceToBottom(g *workGrid, box image.Rectangle, tyres []tyre) []float32 {
	set := make([]bool, g.w*g.h)
	low := float64(box.Max.Y) - float64(box.Dy())/3
	l, r, ok := groundTyres(tyres, box)
	floor := func(x float64) float64 {
		if !ok {
			return float64(box.Max.Y)
		}
		return l.Y + (r.Y-l.Y)*(x-l.X)/math.Max(r.X-l.X, 1)
	}
	for i, b := range bottomProfile(g, box) {
		if b < low {
			continue
		}
		x := box.Min.X + i
		for y := max(int(b)-1, 0); y < min(max(int(floor(float64(x)+0.5)), int(b)), g.h); y++ {
			set[y*g.w+x] = true
		}
	}
	return imaging.Chamfer(set, g.w, g.h)
}

// floorLevel returns the floor's own brightness, row by row: the median
// of the floor in a ring around the car from its shadow's reach to three
// times that, where the shadow has faded out. So a car parked in a
// building's shade is measured against the shaded ground around it, not
// against sunlit patches further off. Rows with too little of that ring
// take a bright percentile of a wider span, so that the shadow there does
// not pull the reference down.
func floorLevel(g *workGrid, box image.Rectangle, roi image.Rectangle, dist []float32, reach float64) []float32 {
	w, h := g.w, g.h
	bw, bh := box.Dx(), box.Dy()
	span := image.Rect(box.Min.X-bw*3/5, 0, box.Max.X+bw*3/5, h).Intersect(image.Rect(0, 0, w, h))
	ref := make([]float32, h)
	var ring, wide []float32
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		ring, wide = ring[:0], wide[:0]
		for x := span.Min.X; x < span.Max.X; x++ {
			i := y*w + x
			if g.matte.Pix[i] >= 0.1 {
				continue
			}
			wide = append(wide, g.lum.Pix[i])
			if d := float64(dist[i]); d >= reach && d < 3*reach {
				ring = append(ring, g.lum.Pix[i])
			}
		}
		switch {
		case len(ring) >= 8:
			ref[y] = kth(ring, len(ring)/2)
		case len(wide) >= 8:
			ref[y] = kth(wide, len(wide)*3/4)
		}
	}
	fillGaps(ref[roi.Min.Y:roi.Max.Y])
	smooth1D(ref[roi.Min.Y:roi.Max.Y], max(bh/20, 1))
	return ref
}

// connectedShadow returns, in roi's coordinates, the smoothed darkness
// connected to the car's lower edge: a dark object elsewhere on the floor
// is not the car's shadow.
func connectedShadow(smooth plane, dist []float32, w int, roi, box image.Rectangle) []bool {
	rw, rh := smooth.W, smooth.H
	keep := make([]bool, rw*rh)
	var stack []int
	lowEdge := box.Min.Y + box.Dy()*3/4
	for y := max(roi.Min.Y, lowEdge); y < roi.Max.Y; y++ {
		for x := roi.Min.X; x < roi.Max.X; x++ {
			li := (y-roi.Min.Y)*rw + x - roi.Min.X
			if smooth.Pix[li] < shadowSeed || dist[y*w+x] > 4 {
				continue
			}
			keep[li] = true
			stack = append(stack, li)
		}
	}
	for len(stack) > 0 {
		li := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, y := li%rw, li/rw
		for _, n := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
			if n[0] < 0 || n[1] < 0 || n[0] >= rw || n[1] >= rh {
				continue
			}
			j := n[1]*rw + n[0]
			if !keep[j] && smooth.Pix[j] >= shadowGrow {
				keep[j] = true
				stack = append(stack, j)
			}
		}
	}
	return keep
}

// distanceToCar returns, for each pixel of the grid, its distance in
// pixels to the nearest car pixel, 0 on the car.
func distanceToCar(g *workGrid) []float32 {
	car := make([]bool, len(g.matte.Pix))
	for i, m := range g.matte.Pix {
		car[i] = m > 0.5
	}
	return imaging.Chamfer(car, g.w, g.h)
}

// fillUnderCar continues the shadow upwards under the car's lower edge:
// the photo cannot show the ground there, but once the car is moved its
// soft edge would otherwise show a light seam between car and shadow.
func fillUnderCar(g *workGrid, d plane, box image.Rectangle) {
	depth := max(box.Dy()/8, 2)
	for x := box.Min.X; x < box.Max.X; x++ {
		// Find the car's lowest pixel in this column and the shadow below.
		bottom := -1
		for y := min(box.Max.Y, g.h-1); y >= box.Min.Y; y-- {
			if g.matte.Pix[y*g.w+x] > 0.5 {
				bottom = y
				break
			}
		}
		if bottom < 0 || bottom+2 >= g.h {
			continue
		}
		v := max(d.Pix[(bottom+1)*g.w+x], d.Pix[(bottom+2)*g.w+x])
		for y := bottom; y > max(bottom-depth, box.Min.Y); y-- {
			i := y*g.w + x
			d.Pix[i] = max(d.Pix[i], v)
		}
	}
}

// columnMax returns the largest of d's column x in rows [y0, y1).
func columnMax(d plane, x, y0, y1 int) float32 {
	var m float32
	for y := y0; y < y1; y++ {
		m = max(m, d.Pix[y*d.W+x])
	}
	return m
}

// fadeEdges scales d down within r of roi's sides and bottom and within
// top of its top, and clears it outside roi.
func fadeEdges(d plane, roi image.Rectangle, r, top int) {
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		fy := float32(min(float64(y-roi.Min.Y)/float64(top), float64(roi.Max.Y-1-y)/float64(r), 1))
		for x := roi.Min.X; x < roi.Max.X; x++ {
			fx := float32(min(x-roi.Min.X, roi.Max.X-1-x, r)) / float32(r)
			d.Pix[y*d.W+x] *= float32(imaging.Smoothstep(0, 1, float64(min(fx, fy))))
		}
	}
	for y := range d.H {
		for x := range d.W {
			if !(image.Point{x, y}).In(roi) {
				d.Pix[y*d.W+x] = 0
			}
		}
	}
}

// fillGaps replaces zeros with the nearest non-zero value.
func fillGaps(v []float32) {
	last := float32(0)
	for i := range v {
		if v[i] > 0 {
			last = v[i]
		} else {
			v[i] = last
		}
	}
	last = 0
	for i := len(v) - 1; i >= 0; i-- {
		if v[i] > 0 {
			last = v[i]
		} else {
			v[i] = last
		}
	}
}

// smooth1D box-blurs v with radius r.
func smooth1D(v []float32, r int) {
	if len(v) == 0 {
		return
	}
	imaging.BlurRow(v, slices.Clone(v), r)
}
