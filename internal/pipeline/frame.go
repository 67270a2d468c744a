package pipeline

import (
	"image"
	"math"
	"strings"
)

// The frame every placement aims at: the car's box covers minFill to
// maxFill of the canvas in its binding dimension (the one it fills the
// most), whatever the view, so a side view, a front view and a
// three-quarter view of one listing look the same size; and it keeps
// clear of every side of the canvas the photo does not cut it at.
const (
	minFill = 0.65
	maxFill = 0.92
)

// edges says, for each side of the photo, whether the car runs out of
// the photo there.
type edges struct{ left, top, right, bottom bool }

// sides returns the cut sides' names, "left", "top", "right", "bottom".
func (e edges) sides() []string {
	var s []string
	for i, on := range [4]bool{e.left, e.top, e.right, e.bottom} {
		if on {
			s = append(s, [4]string{"left", "top", "right", "bottom"}[i])
		}
	}
	return s
}

func (e edges) String() string {
	if e == (edges{}) {
		return "none"
	}
	return strings.Join(e.sides(), "+")
}

// cutEdges returns the sides of the photo along which the car in box runs
// for a clear stretch (cutRunShare of its extent there, at least
// cutRunMin pixels) at half coverage or more: where the photo's frame
// cuts the car. The stretch is looked for in the border band
// (borderBand): the model's answer fades over its last pixel or two
// before the photo's border, so a car the photo cuts may end short of the
// border by that much, the matte there under half.
func cutEdges(matte *image.Gray, box image.Rectangle) edges {
	b := matte.Rect
	at := func(x, y int) bool { return matte.Pix[(y-b.Min.Y)*matte.Stride+x-b.Min.X] >= 128 }
	// run returns the longest run of car along a line of the band:
	// positions lo to hi, at(i) for each.
	run := func(lo, hi int, at func(int) bool) int {
		best, cur := 0, 0
		for i := lo; i < hi; i++ {
			if at(i) {
				cur++
				best = max(best, cur)
			} else {
				cur = 0
			}
		}
		return best
	}
	// cut says whether the car runs along the border for a clear stretch
	// on one of the band's lines, at depth 0 (the border) to band-1.
	band := borderBand(b.Size())
	clear := func(along func(d int) int, extent int) bool {
		for d := range band {
			if n := along(d); n >= cutRunMin && float64(n) >= cutRunShare*float64(extent) {
				return true
			}
		}
		return false
	}
	return edges{
		left: box.Min.X < b.Min.X+band && clear(func(d int) int {
			return run(box.Min.Y, box.Max.Y, func(y int) bool { return at(b.Min.X+d, y) })
		}, box.Dy()),
		top: box.Min.Y < b.Min.Y+band && clear(func(d int) int {
			return run(box.Min.X, box.Max.X, func(x int) bool { return at(x, b.Min.Y+d) })
		}, box.Dx()),
		right: box.Max.X > b.Max.X-band && clear(func(d int) int {
			return run(box.Min.Y, box.Max.Y, func(y int) bool { return at(b.Max.X-1-d, y) })
		}, box.Dy()),
		bottom: box.Max.Y > b.Max.Y-band && clear(func(d int) int {
			return run(box.Min.X, box.Max.X, func(x int) bool { return at(x, b.Max.Y-1-d) })
		}, box.Dx()),
	}
}

// borderBand is how far from a photo's border, in its pixels, a car still
// runs out of it: three of the model's pixels (the working grid's,
// workSide on the long side) and never under three photo pixels: a car
// the photo cuts was seen to end two pixels short of the border, its
// matte there under half (a 512-pixel answer); at most the photo's own
// size.
func borderBand(photo image.Point) int {
	long := max(photo.X, photo.Y)
	return min(max(3, int(math.Ceil(3*float64(long)/workSide))), photo.X, photo.Y)
}

// edgeMargin is the least space, as a share of the canvas's side, that a
// placement leaves between the car and a side of the canvas the photo
// does not cut it at, where its parameters leave that much room: half of
// what maxFill leaves.
const edgeMargin = (1 - maxFill) / 2

// frameCut moves a car the photo cuts onto the canvas's edges: its cut
// sides lie on the canvas's sides, so the car runs out of the picture
// there as it ran out of the photo, instead of ending in a straight slice
// in the middle of the floor. sc is the scale and (x, y) the canvas
// position of the stance's anchor the processor chose for an uncut car on
// a cw×ch canvas; they are returned unchanged where the photo cuts
// nothing. A car cut at two opposite sides is scaled to span the canvas
// between them (as far as the other dimension allows).
func frameCut(st stance, cut edges, sc, x, y, cw, ch float64) (float64, float64, float64) {
	if cut == (edges{}) {
		return sc, x, y
	}
	if (cut.left && cut.right) || (cut.top && cut.bottom) {
		sc = math.Min(cw/st.width(), ch/st.height())
	}
	switch {
	case cut.left:
		x = sc * st.left
	case cut.right:
		x = cw - sc*st.right
	}
	switch {
	case cut.bottom:
		y = ch - sc*st.below
	case cut.top:
		y = sc * st.above
	}
	return sc, x, y
}
