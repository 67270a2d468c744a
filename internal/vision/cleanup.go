package vision

import (
	"image"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/imaging"
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
	// floorY is the first row below the car's tyres (groundLine): what a
	// second look or a second opinion finds from there down is floor, not
	// car. It is the grid's height where the tyres do not show.
	floorY int
}

// Thresholds of the model's saliency, measured on the dev photos (see
// docs/segmentation.md): the core of the car is where the model is sure;
// its outline is drawn a little above one half, where IS-Net's answer,
// brought back from its square input, runs about a pixel wide.
const (
	coreLevel    = 0.8
	outlineLevel = 0.7
	// edgeLevel is where the matte's edge is drawn along the kept object:
	// the model's own boundary, one half. The object's structure is found
	// at outlineLevel; on its rim, where the model is unsure, its soft
	// answer decides. Drawing the edge at the outline level instead cut
	// about a pixel of car all round: on the annotated dealer photos the
	// lower edges of bumpers and tyres, where the model fades out.
	edgeLevel = 0.5
	// letterOpening is the radius, as a share of the photo's diagonal, of
	// the opening that cuts the core's thin parts: backdrop lettering and
	// signs that touch the car, whose strokes are far thinner than a car.
	letterOpening = 0.0125
	// roofPeak is the widest peak, as a share of the car's width, that
	// clipRoofPeaks cuts off the top of the car: the feet of letters
	// standing on the roof are narrower, roof rails and boxes far wider.
	roofPeak = 0.12
	// roofMargin places the roof line a share of the body's height below
	// its top: outline parts beyond the reach of the body that start below
	// it are restored (mirrors, running boards), parts that start above it
	// stay cut (lettering, which touches the car from above). On the dev
	// photos lettering starts at most 0.04 below the top, mirrors from 0.07.
	roofMargin = 0.06
	// tallPeak and tallRise bound what clipRoofPeaks cuts as not car
	// wherever it stands on the silhouette: narrower than tallPeak of the
	// car's width, rising more than tallRise of its height above its
	// neighbours (a person, a post). A person's shoulders are a quarter of
	// a car's width seen from the front, a tenth from the side.
	tallPeak = 0.25
	tallRise = 0.25
)

// cleanup turns the model's saliency map sal (on the working grid, with
// the photo's colours work beside it) into the main object's matte.
//
// Dealer photos put signs and lettering on the wall behind the car, and
// the model takes in what touches the roof: one connected region, so the
// largest component keeps it. The cleanup therefore finds the car as the
// main part of the model's confident core after an opening, which cuts
// the strokes off the body, and keeps of the outline only what lies within
// a short reach of that part: the car's own wheel arches are near its
// body, the lettering's strokes are not. Mirrors and running boards stand
// out further; they come back because they hang on the car below its roof
// line, while the lettering touches it from above (restoreLowParts; so do
// a roof over see-through glass, an arch resting on the car, the frame of
// a window, which closes the glass with the car, and parts as thick as a
// car's body). What then rises above the car's silhouette in a
// narrow peak is cut (clipRoofPeaks): a letter's foot, a person.
//
// The run order: the body and its reach, restoreLowParts, clipRoofPeaks,
// clipBorderStrips, clipSideLobes, clipFootLobes, closeLowGaps,
// groundLine (the row under the car's tyres, below which neither the
// second opinion nor a second look adds anything), addSecondOpinion (opinion is the second model's
// answer on the same grid, or the zero plane for none; work's colours
// give the picture's frame, pictureFrame), the hole filling,
// completeMirror (after the filling, so that what it completes closes no
// floor into a hole), then the soft matte.
func cleanup(sal plane, work [3]plane, opinion plane) cleaned {
	w, h := sal.W, sal.H
	raw := image.NewGray(image.Rect(0, 0, w, h))
	core := make([]bool, w*h)
	set := make([]bool, w*h)
	for i, v := range sal.Pix {
		if v >= 0.5 {
			raw.Pix[i] = 255
		}
		core[i] = v >= coreLevel
		set[i] = v >= outlineLevel
	}
	r := max(1, int(letterOpening*math.Hypot(float64(w), float64(h))))
	body, bodyBox, ok := keepMain(imaging.Open(core, w, h, r), w, h)
	c := cleaned{matte: newPlane(w, h), raw: raw, found: ok}
	if !ok {
		return c
	}
	reach := imaging.Dilate(body, w, h, r/4+2)
	near := make([]bool, w*h)
	for i := range set {
		near[i] = set[i] && reach[i]
	}
	keep, box, ok := keepMain(near, w, h)
	c.box, c.found = box, ok
	if !ok {
		return c
	}
	// What an opening of the outline leaves is as thick as a car's body:
	// an outline part beyond the reach made mostly of it is car the model
	// was less sure of (the far end of a long car), not a letter's stroke.
	solid := imaging.Open(set, w, h, r)
	c.box = c.box.Union(restoreLowParts(keep, c.box, set, reach, solid, w, h, bodyBox.Min.Y+int(roofMargin*float64(bodyBox.Dy()))))
	c.box = clipRoofPeaks(keep, w, c.box)
	c.box = clipBorderStrips(keep, w, c.box)
	c.box = clipSideLobes(keep, sal, w, h, r, c.box)
	c.box = clipFootLobes(keep, w, c.box)
	closeLowGaps(keep, sal, w, c.box)
	c.floorY = groundLine(keep, w, c.box)
	if opinion.Pix != nil {
		c.box = addSecondOpinion(keep, sal, opinion, w, c.box, pictureFrame(work, w, h), c.floorY)
	}
	area := 0
	for _, k := range keep {
		if k {
			area++
		}
	}
	// A see-through window can be a fifth of the silhouette: a windscreen
	// seen from the front, a cab's rear window from behind.
	imaging.FillHoles(keep, w, h, area/3)
	c.box = completeMirror(keep, mirrorSupport(sal, opinion), w, c.box)
	c.confidence = confidence(sal, keep)
	c.borderShare = borderShare(keep, w, h)
	// The matte keeps the model's soft values on the object's rim (within
	// two pixels of it), rescaled so that the edge level is one half, and
	// is solid inside, so filled holes are car. What the cleanup cut on
	// purpose (lettering, a person) stays at most one half.
	rim := imaging.Dilate(keep, w, h, 2)
	for i := range keep {
		a := sal.Pix[i]
		if a >= edgeLevel {
			a = 0.5 + 0.5*(a-edgeLevel)/(1-edgeLevel)
		} else {
			a = 0.5 * a / edgeLevel
		}
		switch {
		case keep[i]:
			c.matte.Pix[i] = max(a, 0.5)
			if !edge(keep, w, h, i) {
				c.matte.Pix[i] = 1
			}
		case rim[i] && sal.Pix[i] < outlineLevel:
			c.matte.Pix[i] = a
		case rim[i]:
			// Cut on purpose (lettering, a person): at most half.
			c.matte.Pix[i] = min(a, 0.5)
		}
	}
	return c
}

// A second look: where the model is unsure of much of the car's lower half
// (a dark bumper over a dark floor, a grille and a valance under a bright
// body), the model is run again on the car's own crop, at its full input
// size, and its answer there taken where it is surer. On the annotated
// dealer photos this brings back lower bumpers and valances; shown only the
// car, the model grows less sure of its upper body (roof, glass), so the
// second answer is used below the car's middle only, and the car's answer
// is run again only where it is unsure (about a fifth of the photos).
const (
	// secondLookUnsure is the share of the lower half of the car's box
	// where the model's answer lies between 0.05 and one half (neither
	// background nor car) from which the car is looked at again.
	secondLookUnsure = 0.033
	// secondLookMargin widens the car's box by this share of its size on
	// each side for the crop: the model needs some background round the
	// object to find it.
	secondLookMargin = 0.125
)

// secondLookCrop returns the part of the working grid (sal's) that a second
// model run should see when the model was unsure of the car c's lower
// half (see secondLookUnsure); ok is false when it was sure enough.
func secondLookCrop(sal plane, c cleaned) (crop image.Rectangle, ok bool) {
	if !c.found || c.box.Empty() {
		return image.Rectangle{}, false
	}
	unsure, all := 0, 0
	for y := c.box.Min.Y + c.box.Dy()/2; y < c.box.Max.Y; y++ {
		for _, v := range sal.Pix[y*sal.W+c.box.Min.X : y*sal.W+c.box.Max.X] {
			all++
			if v > 0.05 && v < 0.5 {
				unsure++
			}
		}
	}
	if all == 0 || float64(unsure) < secondLookUnsure*float64(all) {
		return image.Rectangle{}, false
	}
	ex := int(secondLookMargin * float64(c.box.Dx()))
	ey := int(secondLookMargin * float64(c.box.Dy()))
	crop = image.Rect(c.box.Min.X-ex, c.box.Min.Y-ey, c.box.Max.X+ex, c.box.Max.Y+ey).Intersect(image.Rect(0, 0, sal.W, sal.H))
	return crop, !crop.Empty()
}

// mergeSecondLook takes into sal the second run's answer look (on crop of
// the working grid) where it is surer, below the middle of the car's box
// and above the row floorY (cleaned.floorY): under the car's tyres it
// sees the car's shadow.
func mergeSecondLook(sal, look plane, crop, box image.Rectangle, floorY int) {
	for y := max(box.Min.Y+box.Dy()/2, crop.Min.Y); y < min(crop.Max.Y, floorY); y++ {
		row := sal.Pix[y*sal.W+crop.Min.X : y*sal.W+crop.Max.X]
		seen := look.Pix[(y-crop.Min.Y)*look.W : (y-crop.Min.Y+1)*look.W]
		for x, v := range seen {
			row[x] = max(row[x], v)
		}
	}
}

// restoreLowParts adds to keep the parts of the outline set beyond the
// reach of the body that hang on the kept object below roofY: mirrors and
// running boards, which stand out from the body further than the reach.
// What the model fuses from the wall behind touches the car from above and
// so reaches the roof line; it stays cut, unless it is the car's own roof
// (see isRoofArch), a window's frame below the car's top (closesWindow),
// or mostly solid (as thick as a car's body, where the outline's own
// opening leaves it; strokes are far thinner). A thin part
// that runs out of the photo where the car does not stays cut too
// (escapes); a solid one is the car's far end, which the photo cuts. kept
// is the box of keep. It returns the box of what it added.
func restoreLowParts(keep []bool, kept image.Rectangle, set, reach, solid []bool, w, h, roofY int) image.Rectangle {
	out := make([]bool, len(set))
	for i := range set {
		out[i] = set[i] && !reach[i]
	}
	labels, comps := imaging.Label(out, w, h, false)
	// Where each part touches the kept object (the leftmost and rightmost
	// column of its pixels next to it) and how many of its pixels are
	// solid.
	type touch struct{ x0, x1, solid int }
	touches := make([]touch, len(comps))
	for k := range touches {
		touches[k] = touch{x0: w, x1: -1}
	}
	for i, l := range labels {
		if l < 0 {
			continue
		}
		if solid[i] {
			touches[l].solid++
		}
		x, y := i%w, i/w
		if (x > 0 && keep[i-1]) || (x < w-1 && keep[i+1]) ||
			(y > 0 && keep[i-w]) || (y < h-1 && keep[i+w]) {
			t := &touches[l]
			t.x0, t.x1 = min(t.x0, x), max(t.x1, x)
		}
	}
	take := make([]bool, len(comps))
	var box image.Rectangle
	// What keep alone encloses, and its convex hull, found when first
	// needed.
	var enclosed, hull []bool
	for k, c := range comps {
		t := touches[k]
		if t.x1 < 0 {
			continue
		}
		solid := 2*t.solid >= c.Area
		if !solid && escapes(c.Box, kept, w, h) {
			continue
		}
		if c.Box.Min.Y >= roofY || isRoofArch(c.Box, t.x0, t.x1+1, kept) || solid {
			take[k] = true
			box = box.Union(c.Box)
			continue
		}
		if c.Box.Min.Y < kept.Min.Y {
			continue // it rises above the car: lettering standing on the roof
		}
		if enclosed == nil {
			enclosed = enclosedBy(keep, w, h)
			hull = setHull(keep, w, h).fill(w, h)
		}
		if closesWindow(keep, enclosed, hull, labels, int32(k), c, kept, w, h) {
			take[k] = true
			box = box.Union(c.Box)
		}
	}
	for i, l := range labels {
		if l >= 0 && take[l] {
			keep[i] = true
		}
	}
	return box
}

// escapesFrame is escapes within frame, the part of the photo that holds
// its picture (pictureFrame).
func escapesFrame(b, kept, frame image.Rectangle) bool {
	return (b.Min.X <= frame.Min.X && kept.Min.X > frame.Min.X) || (b.Max.X >= frame.Max.X && kept.Max.X < frame.Max.X) ||
		(b.Min.Y <= frame.Min.Y && kept.Min.Y > frame.Min.Y) || (b.Max.Y >= frame.Max.Y && kept.Max.Y < frame.Max.Y)
}

// escapes reports whether a part with box b runs out of the w×h photo on
// a side where the kept object (box kept) does not: for a thin part, a
// kerb or a floor line the model joined to the car's lower edge. A car's
// thin parts (mirrors, running boards) end where the car does.
func escapes(b, kept image.Rectangle, w, h int) bool {
	return escapesFrame(b, kept, image.Rect(0, 0, w, h))
}

// isRoofArch reports whether an outline part beyond the body's reach, with
// box b, touching the kept object (box kept) between columns x0 and x1, is
// the car's roof rather than lettering on the wall behind it. Over glass
// the model sees through, a car's roof and pillars are strips thinner than
// the lettering cut, and the opening takes them off the body with the
// lettering. They differ in shape: the roof is an arch resting on the car
// at both its ends (touching it across most of its width), wider than
// high, and spans a good part of the car (its cabin); a letter is about as
// high as wide and stands on the roof on one or two feet close together,
// and lettering joined into a wider block rises higher above the car than
// a cabin does.
func isRoofArch(b image.Rectangle, x0, x1 int, kept image.Rectangle) bool {
	return 3*(x1-x0) >= 2*b.Dx() && // resting on both ends
		2*b.Dy() <= b.Dx() && // wider than twice its height
		5*b.Dx() >= 2*kept.Dx() // at least 40% of the car's width
}

// windowFrame is the least area, as a multiple of a strip's own, of the
// see-through window that the strip must close with the car, within the
// car's convex hull, to be the window's frame (closesWindow): a window is
// larger than the frame round it. 162_dsmlr-tr295's spoiler and the frame
// of its rear window close 1.6 times their area, all of it within the
// hull; the ring of a backdrop's logo behind 15_carvana's rear closes 1.5
// times its area, but bulges out of the car's outline: within the hull,
// 0.39 times its area.
const windowFrame = 1.0

// enclosedBy returns the pixels of the w×h grid outside keep that keep
// encloses: the holes the hole filling would take.
func enclosedBy(keep []bool, w, h int) []bool {
	bg := make([]bool, len(keep))
	for i, k := range keep {
		bg[i] = !k
	}
	labels, comps := imaging.Label(bg, w, h, false)
	out := make([]bool, len(keep))
	for i, l := range labels {
		out[i] = l >= 0 && comps[l].Border == 0
	}
	return out
}

// closesWindow reports whether the outline part c (label k in labels), a
// strip beyond the body's reach that does not rise above the car (box
// kept), is the frame of a see-through window: with keep, it encloses
// background within keep's convex hull (hull, rasterised), beyond what
// keep encloses alone (enclosed), of at least windowFrame times its own
// area. Over a rear window or a windscreen the model sees through, the
// spoiler, the roof's edge and the pillars round the glass are thinner
// than the lettering cut; a hatchback's spoiler starts above the roof
// line, and is far narrower than a cabin's roof arch (isRoofArch). The
// glass lies within the car's outline. Lettering that closes its counters
// on the roof rises above the car; a ring or an arch on the wall behind
// it, lower than its roof, bulges out of its outline.
func closesWindow(keep, enclosed, hull []bool, labels []int32, k int32, c imaging.Component, kept image.Rectangle, w, h int) bool {
	// A hole that keep and c enclose lies within their box; a crop of the
	// grid one pixel wider than it is all that needs labelling.
	win := kept.Union(c.Box).Inset(-1).Intersect(image.Rect(0, 0, w, h))
	ww, wh := win.Dx(), win.Dy()
	bg := make([]bool, ww*wh)
	for y := range wh {
		for x := range ww {
			i := (win.Min.Y+y)*w + win.Min.X + x
			bg[y*ww+x] = !keep[i] && labels[i] != k
		}
	}
	lab, comps := imaging.Label(bg, ww, wh, false)
	closed := 0
	for j, l := range lab {
		i := (win.Min.Y+j/ww)*w + win.Min.X + j%ww
		if l >= 0 && comps[l].Border == 0 && !enclosed[i] && hull[i] {
			closed++
		}
	}
	return float64(closed) >= windowFrame*float64(c.Area)
}

// clipRoofPeaks cuts off keep what rises above the car's silhouette in a
// narrow peak. The silhouette's top line (the first kept row of each
// column of box) is opened: peaks narrower than the window are levelled,
// slopes and steps (bonnet, cab and bed) stay. Two kinds of peak are cut:
//   - low ones in the band within roofMargin of the car's height below the
//     line's highest point, narrower than roofPeak of the car's width: the
//     foot of a backdrop letter standing on the roof, too broad for the
//     opening to have cut it. Mirrors and spoilers lower on the car are
//     never touched.
//   - tall ones anywhere, narrower than tallPeak of the car's width and
//     rising more than tallRise of the car's height above the line: a
//     person leaning on the car or standing behind it, a sign post. No
//     part of a car rises that far above its neighbours in so narrow a
//     peak (a rear wing rises a tenth of the car's height, a cab is far
//     wider).
//
// It returns the box of what is left.
func clipRoofPeaks(keep []bool, w int, box image.Rectangle) image.Rectangle {
	x0, n := box.Min.X, box.Dx()
	if n == 0 {
		return box
	}
	top := make([]int, n) // first kept row per column, -1 where none
	for i := range top {
		top[i] = -1
	}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for i, k := range keep[y*w+x0 : y*w+x0+n] {
			if k && top[i] < 0 {
				top[i] = y
			}
		}
	}
	// The opening also flattens a curved roof's crest by a pixel or two;
	// what rises no more than sag above the line is left alone.
	sag := max(1, int(0.01*float64(box.Dy())))
	cut := func(i, from, to int) {
		for y := from; y < to; y++ {
			keep[y*w+x0+i] = false
		}
	}

	// Tall peaks: each run of columns above the wide line is cut down to
	// it when it rises far enough. Where the silhouette ends inside the
	// photo the car ends there: beyond it the line is open ground, so that
	// a person standing at the car's front or back is a peak too. Where
	// the photo cuts the silhouette, what lies beyond is unknown.
	line := openTopEnds(top, max(1, int(tallPeak*float64(n)/2)), box.Max.Y, box.Min.X > 0, box.Max.X < w)
	highest := box.Max.Y
	for _, y := range line {
		if y >= 0 {
			highest = min(highest, y)
		}
	}
	rise := tallRise * float64(box.Max.Y-highest)
	for i := 0; i < n; {
		if top[i] < 0 || line[i]-top[i] <= sag {
			i++
			continue
		}
		j, most := i, 0
		for ; j < n && top[j] >= 0 && line[j]-top[j] > sag; j++ {
			most = max(most, line[j]-top[j])
		}
		if float64(most) > rise {
			for k := i; k < j; k++ {
				cut(k, top[k], line[k])
				top[k] = line[k]
			}
		}
		i = j
	}

	// Low peaks near the roof: the narrow window's line, within the band.
	roof := openTop(top, max(1, int(roofPeak*float64(n)/2)))
	highest = box.Max.Y
	for _, y := range roof {
		if y >= 0 {
			highest = min(highest, y)
		}
	}
	band := highest + int(roofMargin*float64(box.Dy()))
	for i, t := range top {
		if t < 0 || roof[i]-t <= sag {
			continue
		}
		cut(i, t, min(roof[i], band))
	}
	return keptBox(keep, w, box)
}

// stripThin and stripLong bound what clipBorderStrips cuts: columns at
// the side of the car that hold less than stripThin of the car's height,
// all of it in the car's lower half, for at least stripLong of its width,
// out to the photo's border.
const (
	stripThin = 0.15
	stripLong = 0.02
)

// clipBorderStrips cuts off keep a thin strip at the car's foot that runs
// out of the photo's left or right border beyond the car's end: a kerb, a
// floor line or a privacy blur over a number plate that the model joined
// to the car, thick enough to survive the lettering cut (so it is part of
// the body, which restoreLowParts's kerb rule never sees). A part of a car
// ends where the car does: where the photo cuts the car, the columns at
// the border hold the car's whole side, not a strip; a rounded nose that
// touches the border is thin for a pixel or two only. box is keep's box;
// it returns the box of what is left.
func clipBorderStrips(keep []bool, w int, box image.Rectangle) image.Rectangle {
	if box.Empty() {
		return box
	}
	mid := box.Min.Y + box.Dy()/2
	thin := int(stripThin * float64(box.Dy()))
	long := max(3, int(stripLong*float64(box.Dx())))
	// footOnly reports whether column x holds at most thin kept pixels, all
	// below the car's middle, and at least one.
	footOnly := func(x int) bool {
		n := 0
		for y := box.Min.Y; y < box.Max.Y; y++ {
			if keep[y*w+x] {
				if y < mid {
					return false
				}
				n++
			}
		}
		return n > 0 && n <= thin
	}
	cut := func(x0, x1 int) {
		for y := box.Min.Y; y < box.Max.Y; y++ {
			clear(keep[y*w+x0 : y*w+x1])
		}
	}
	x0, x1 := box.Min.X, box.Max.X
	if x0 == 0 {
		x := x0
		for x < x1 && footOnly(x) {
			x++
		}
		if x-x0 >= long && x < x1 {
			cut(x0, x)
			box.Min.X = x
		}
	}
	if x1 == w {
		x := x1
		for x > box.Min.X && footOnly(x-1) {
			x--
		}
		if x1-x >= long && x > box.Min.X {
			cut(x, x1)
			box.Max.X = x
		}
	}
	return keptBox(keep, w, box)
}

// keptBox returns the box of keep's set pixels within r, for a rule that
// cut some of them to return what is left.
func keptBox(keep []bool, w int, r image.Rectangle) image.Rectangle {
	var out image.Rectangle
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := keep[y*w+r.Min.X : y*w+r.Max.X]
		x0 := slices.Index(row, true)
		if x0 < 0 {
			continue
		}
		x1 := len(row)
		for !row[x1-1] {
			x1--
		}
		out = out.Union(image.Rect(r.Min.X+x0, y, r.Min.X+x1, y+1))
	}
	return out
}

// lowGapLong, lowGapSure and lowGapWide bound the gaps closeLowGaps
// closes: at most lowGapLong of the car's height, where the model's
// answer averages at least lowGapSure, together at least lowGapWide of the
// car's width.
const (
	lowGapLong = 0.08
	lowGapSure = 0.3
	lowGapWide = 0.05
)

// closeLowGaps sets the short vertical gaps of keep in the lower half of
// the car's box (each column's unset stretch between two kept pixels)
// where the model leaned towards car, and that together span a good part
// of the car's width: a lower bumper or valance between the wheels, whose
// dark grille and skid plate the model held between background and car,
// with the bumper's lower edge kept below them. Such a gap opens to the
// side, so it is not a hole. A narrow one (between a bumper and an
// exhaust pipe) stays.
func closeLowGaps(keep []bool, sal plane, w int, box image.Rectangle) {
	long := max(1, int(lowGapLong*float64(box.Dy())))
	gap := make([]bool, len(keep))
	any := false
	for x := box.Min.X; x < box.Max.X; x++ {
		last := -1 // the last kept row seen
		for y := box.Min.Y + box.Dy()/2; y < box.Max.Y; y++ {
			if !keep[y*w+x] {
				continue
			}
			if last >= 0 && y-last > 1 && y-last-1 <= long {
				var sum float32
				for g := last + 1; g < y; g++ {
					sum += sal.Pix[g*w+x]
				}
				if sum >= lowGapSure*float32(y-last-1) {
					for g := last + 1; g < y; g++ {
						gap[g*w+x] = true
					}
					any = true
				}
			}
			last = y
		}
	}
	if !any {
		return
	}
	labels, comps := imaging.Label(gap, w, len(keep)/w, true)
	wide := lowGapWide * float64(box.Dx())
	for i, l := range labels {
		if l >= 0 && float64(comps[l].Box.Dx()) >= wide {
			keep[i] = true
		}
	}
}

// openTopEnds is openTop with the line continued beyond its ends at
// ground (the row ground) where end0 (the left end) or end1 (the right)
// is true.
func openTopEnds(top []int, r, ground int, end0, end1 bool) []int {
	if !end0 && !end1 {
		return openTop(top, r)
	}
	pad := func(on bool) []int {
		if !on {
			return nil
		}
		g := make([]int, r)
		for i := range g {
			g[i] = ground
		}
		return g
	}
	ext := slices.Concat(pad(end0), top, pad(end1))
	line := openTop(ext, r)
	if end0 {
		line = line[r:]
	}
	return line[:len(top)]
}

// openTop opens a silhouette's top line (a row per column, -1 where there
// is no car) with a window of 2r+1 columns: the lowest top within r, then
// the highest of those within r; columns without car take no part.
func openTop(top []int, r int) []int {
	n := len(top)
	slide := func(in []int, better func(a, b int) bool) []int {
		out := make([]int, n)
		for i := range n {
			out[i] = -1
			if in[i] < 0 {
				continue
			}
			for j := max(i-r, 0); j <= min(i+r, n-1); j++ {
				if in[j] >= 0 && (out[i] < 0 || better(in[j], out[i])) {
					out[i] = in[j]
				}
			}
		}
		return out
	}
	return slide(slide(top, func(a, b int) bool { return a > b }), func(a, b int) bool { return a < b })
}

// edge reports whether pixel i of keep has an unset 4-neighbour.
func edge(keep []bool, w, h, i int) bool {
	x, y := i%w, i/w
	return (x > 0 && !keep[i-1]) || (x < w-1 && !keep[i+1]) ||
		(y > 0 && !keep[i-w]) || (y < h-1 && !keep[i+w])
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
	for i, v := range sal.Pix {
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
	frac := float64(n) / float64(len(sal.Pix))
	size := imaging.Smoothstep(0.002, 0.01, frac)
	return certainty * focus * size
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
