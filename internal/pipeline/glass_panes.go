package pipeline

import (
	"image"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/imaging"
)

// Torn-pane scoring (issue 27): a pane is a 4-connected region of a
// photo's annotated windows of at least paneMinShare of the photo; it is
// torn when more than tornLow and less than tornHigh of it is predicted
// glass (the layer read as glass from 128, as vision.CompareGlass reads
// it). A torn pane shows as a see-through patch beside glass left as
// photographed, which a dealer sees at once.
const (
	paneMinShare = 0.002
	tornLow      = 0.15
	tornHigh     = 0.85
)

// PaneScore counts a photo's annotated panes and how many the glass tore.
type PaneScore struct {
	Panes, Torn int
}

// ScorePanes scores glass (255 fully glass) against the annotation windows
// (255 inside); both have the photo's size. A nil windows has no panes.
func ScorePanes(glass, windows *image.Gray) PaneScore {
	if windows == nil {
		return PaneScore{}
	}
	w, h := windows.Rect.Dx(), windows.Rect.Dy()
	set := make([]bool, w*h)
	for y := range h {
		row := windows.Pix[y*windows.Stride : y*windows.Stride+w]
		for x, v := range row {
			set[y*w+x] = v >= 128
		}
	}
	labels, comps := imaging.Label(set, w, h, false)
	hit := make([]int, len(comps))
	for y := range h {
		g := glass.Pix[y*glass.Stride : y*glass.Stride+w]
		for x := range w {
			if l := labels[y*w+x]; l >= 0 && g[x] >= 128 {
				hit[l]++
			}
		}
	}
	var s PaneScore
	for l, c := range comps {
		if float64(c.Area) < paneMinShare*float64(w*h) {
			continue
		}
		s.Panes++
		if f := float64(hit[l]) / float64(c.Area); f > tornLow && f < tornHigh {
			s.Torn++
		}
	}
	return s
}

// Add sums two photos' pane counts.
func (s PaneScore) Add(o PaneScore) PaneScore {
	return PaneScore{s.Panes + o.Panes, s.Torn + o.Torn}
}

// Pane filling settings: a pixel the model gives under paneSure (smoothed)
// is sure not to be glass; between that and the glass found, the pane's
// frame decides (fillPanes). A region that more than paneSpread times its
// own area would be added to is not filled (the flood went past a frame
// that the photo does not show, over a dark bonnet or trunk lid).
var (
	paneSure   float32 = 0.25
	paneSpread float32 = 1
)

// fillPanes takes each glass region of set out to its frame: the pixels
// the model is unsure about around it (not glass, not sure to be paint or
// body) go to the glass or to the body around it, whichever reaches them
// across the weaker edges of the photo, as a watershed from both. A pane's
// frame (its seal, the pillars, the body's edge) is the strongest edge
// between its glass and the body, so the unsure part of a pane (the
// dashboard's shade, a reflection) is taken whole and the body stays
// body. sm is the smoothed probability.
func fillPanes(set []bool, sm []float32, gg *glassGrid) {
	w, h := gg.w, gg.h
	const levels = 256
	// The edge strength at each pixel: a Sobel filter's magnitude on
	// the lightness, in levels.
	level := make([]uint8, w*h)
	at := func(x, y int) float32 { return gg.lum[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)] }
	for y := range h {
		for x := range w {
			gx := at(x+1, y-1) + 2*at(x+1, y) + at(x+1, y+1) - at(x-1, y-1) - 2*at(x-1, y) - at(x-1, y+1)
			gy := at(x-1, y+1) + 2*at(x, y+1) + at(x+1, y+1) - at(x-1, y-1) - 2*at(x, y-1) - at(x+1, y-1)
			level[y*w+x] = uint8(min(float32(levels-1), float32(math.Sqrt(float64(gx*gx+gy*gy)))/4*(levels-1)))
		}
	}
	const (
		unsure int8 = iota
		glass
		body
	)
	label := make([]int8, w*h)
	for i := range label {
		switch {
		case set[i]:
			label[i] = glass
		case gg.matte[i] <= 0.5 || sm[i] < paneSure || (gg.paint[i] && sm[i] < glassThreshold):
			label[i] = body
		}
	}
	seed := slices.Clone(set)
	imaging.Watershed(label, w, levels, func(i int) int { return int(level[i]) }, unsure)
	for i, l := range label {
		set[i] = l == glass
	}
	// Whole or not at all: a region the flood spread far beyond its
	// glass went past the pane; it keeps the glass it had.
	labels, comps := imaging.Label(set, w, h, false)
	had := make([]int, len(comps))
	for i, l := range labels {
		if l >= 0 && seed[i] {
			had[l]++
		}
	}
	for i, l := range labels {
		if l >= 0 && float32(comps[l].Area-had[l]) > paneSpread*float32(had[l]) {
			set[i] = seed[i]
		}
	}
}

// paneNeck is the least width of a glass region's row, as a share of its
// widest row, below that row: a windscreen or a rear window is widest at
// its foot, and what hangs under it narrower is the growth onto the
// bonnet or trunk lid below (0: no cut).
var paneNeck = 0.5

// paneMiddle is the share of the widest row's span, at either end, that a
// tongue must keep clear of to be cut (underMiddle).
var paneMiddle = 0.02

// paneSliver is the share of the widest row's span under which a part
// hanging at one end of a region is a sliver, cut (cutNecks; 0: none is):
// a strip of glass down a pillar or a wing from a windscreen's corner
// (172, a black Teana's A-pillar), not a pane. A side view's windscreen,
// the pane at one end of a strip of side windows, is wider than a quarter
// of the strip (TestSideViewPanesAreNotTongues); one seen so nearly
// edge-on that it is not is left as photographed, which is how a pane
// the detector is unsure of is shown anyway, where a sliver drawn is
// background seen through a pillar.
var paneSliver = 0.25

// cutNecks takes off each glass region of set the rows under its widest
// row from the first one narrower than paneNeck of it on: a pane's foot
// is a line across the car (its seal on the body), not a tongue.
func cutNecks(set []bool, w, h int) {
	if paneNeck <= 0 {
		return
	}
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		width := make([]int, c.Box.Dy())
		for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
			for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
				if labels[y*w+x] == int32(l) {
					width[y-c.Box.Min.Y]++
				}
			}
		}
		widest := 0
		for r, v := range width {
			if v >= width[widest] {
				widest = r
			}
		}
		cut := len(width)
		for r := widest + 1; r < len(width); r++ {
			if float64(width[r]) < paneNeck*float64(width[widest]) {
				cut = r
				break
			}
		}
		// A tongue hangs under the pane's middle: a narrower part at one
		// end of the region is another pane joined to it (a side view's
		// windscreen under a strip of glass along the roof), not cut,
		// unless it is a sliver: never as wide as paneSliver of the
		// widest row.
		if cut < len(width) && !underMiddle(labels, l, w, c.Box, c.Box.Min.Y+widest, c.Box.Min.Y+cut) &&
			float64(slices.Max(width[cut:])) >= paneSliver*float64(width[widest]) {
			cut = len(width)
		}
		for y := c.Box.Min.Y + cut; y < c.Box.Max.Y; y++ {
			for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
				if labels[y*w+x] == int32(l) {
					set[y*w+x] = false
				}
			}
		}
	}
}

// underMiddle reports whether region l's pixels from row from down lie
// within the middle of its row at: inside its span with paneMiddle of
// the span's width to spare on either side.
func underMiddle(labels []int32, l, w int, box image.Rectangle, at, from int) bool {
	x0, x1 := box.Max.X, box.Min.X
	for x := box.Min.X; x < box.Max.X; x++ {
		if labels[at*w+x] == int32(l) {
			x0, x1 = min(x0, x), max(x1, x+1)
		}
	}
	margin := int(paneMiddle * float64(x1-x0))
	for y := from; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if labels[y*w+x] == int32(l) && (x < x0+margin || x >= x1-margin) {
				return false
			}
		}
	}
	return true
}

// dropUnderPanes leaves as photographed each glass region of set that
// lies wholly under a larger region's foot and mostly within its columns:
// under a windscreen or a rear window is the bonnet or the trunk lid, never
// another pane (a dark band under a trunk's chrome strip, a scoop). Side
// windows lie beside a windscreen, not under it.
func dropUnderPanes(set []bool, w, h int) {
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		for o, p := range comps {
			if o == l || p.Area <= c.Area || c.Box.Min.Y < p.Box.Max.Y {
				continue
			}
			span := min(c.Box.Max.X, p.Box.Max.X) - max(c.Box.Min.X, p.Box.Min.X)
			if 2*span < c.Box.Dx() {
				continue
			}
			for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
				for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
					if labels[y*w+x] == int32(l) {
						set[y*w+x] = false
					}
				}
			}
			break
		}
	}
}

// Soft-border settings (dropSoftPanes): a region's border is read
// paneSoftGap cells out of it; where more than paneSoftEdge of that ring
// is reached from the region over the car through cells the smoothed
// probability puts at paneSoftSure or more, the region stopped inside a
// pane (paneSoftEdge 0: none is dropped).
var (
	paneSoftGap  int32   = 3
	paneSoftSure float32 = 0.2
	paneSoftEdge float32 = 0.6
)

// dropSoftPanes leaves as photographed each glass region of set that
// stopped inside its pane rather than at its frame: one whose border, read
// a few cells out, is reached mostly through cells where the model still
// finds glass likely (sm, smoothed). A pane taken out to its frame
// (fillPanes) is bounded by pillars, seals, the roof and the sky, where the
// model finds glass unlikely, over most of its border (a window beyond a
// pillar is not reached through the pillar); a windscreen found on its
// sky-lit top only, with the dashboard's shade under it left out, or a
// blotch in a window, is bounded by glass the model was unsure of, and
// drawn it is a torn pane (a see-through patch beside glass left as
// photographed). The settings were measured on the deep model's
// probabilities; the hand-made model's run higher around a window, so its
// regions are not read so.
func dropSoftPanes(set []bool, sm []float32, gg *glassGrid) {
	if paneSoftEdge <= 0 || !gg.deep {
		return
	}
	w, h := gg.w, gg.h
	labels, comps := imaging.Label(set, w, h, false)
	steps := imaging.Steps(set, w, h, paneSoftGap, nil)
	likely := imaging.Steps(set, w, h, paneSoftGap, func(i int) bool {
		return gg.matte[i] > 0.5 && sm[i] >= paneSoftSure
	})
	ring := make([]int, len(comps))
	soft := make([]int, len(comps))
	for i, d := range steps {
		if d != paneSoftGap {
			continue
		}
		ring[labels[imaging.SeedOf(steps, w, i)]]++
		if likely[i] == paneSoftGap {
			soft[labels[imaging.SeedOf(likely, w, i)]]++
		}
	}
	for i, l := range labels {
		if l >= 0 && float32(soft[l]) > paneSoftEdge*float32(ring[l]) {
			set[i] = false
		}
	}
}

// Foot band settings (cutUnsureFoot): where the row means of a region's
// probability fall by footDrop within footK rows in its lower half, the
// rows below average under footLow, those above at least footHigh, and the
// rows below hold at most footMax of the region, they are cut (footDrop
// 0: no cut).
var (
	footDrop float32 = 0.25
	footK            = 3
	footLow  float32 = 0.75
	footHigh float32 = 0.85
	footMax  float32 = 0.3
)

// cutUnsureFoot takes off each glass region of set the band of rows at its
// bottom under a seal: a sharp fall of the model's probability prob
// across the region (the wiper cowl between a windscreen and a dark bonnet,
// a rear window's seal on the trunk lid, is a line; a windscreen's
// dashboard fades over many rows), with the band below unsure as a whole
// and the pane above sure. A pane is glass to its foot, and the growth
// over the body under it is a band of its own, less sure than the pane.
func cutUnsureFoot(set []bool, prob []float32, w, h int) {
	if footDrop <= 0 {
		return
	}
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		rows := c.Box.Dy()
		n := make([]int, rows)
		sum := make([]float32, rows)
		for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
			for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
				if i := y*w + x; labels[i] == int32(l) {
					n[y-c.Box.Min.Y]++
					sum[y-c.Box.Min.Y] += prob[i]
				}
			}
		}
		mean := func(r0, r1 int) float32 { return meanOfRows(n, sum, r0, r1) }
		// The sharpest fall in the lower half.
		cut, best := -1, footDrop
		for r := rows / 2; r+footK <= rows; r++ {
			if d := mean(r-footK, r) - mean(r, r+footK); d >= best {
				cut, best = r, d
			}
		}
		if cut < 0 {
			continue
		}
		above, below, na, nb := splitRows(n, sum, cut)
		if above < footHigh*float32(na) || below >= footLow*float32(nb) || float32(nb) > footMax*float32(na+nb) {
			continue
		}
		clearFrom(set, labels, int32(l), w, c.Box, cut)
	}
}

// Seal settings (cutAtSeal): a region's foot is on its frame when the
// lightness across it (sealSpan rows inside against sealSpan+1 rows
// outside, on the car) differs by at least sealFoot on average. When it
// does not, the region's sharpest step of the row means of the lightness
// below its first fifth (over sealK rows either side) is its seal if it
// is at least sealStep; the part below it is cut when it holds at most
// sealMax of the region, the part above is sure glass (mean probability at
// least sealSure) and the part below less sure by sealLess (sealFoot 0: no
// cut). Set on the 313 glass photos' 5-fold cross-validated probabilities
// (docs/glass-and-shadow.md): the bonnets of 18, 20, 167 and 089 and the
// tailgate of 086 are cut; the panes a looser rule would tear (099, 103,
// 137: an edge inside the region taken for the seal, a spoiler's on 099,
// and the pane under it cut) are not.
var (
	sealFoot float32 = 0.15
	sealStep float32 = 0.1
	sealK            = 3
	sealSpan         = 2
	sealMax  float32 = 0.5
	sealSure float32 = 0.8
	sealLess float32 = 0.15
	// sealLighter: where the part under the seal is lighter than the part
	// above by at least this much (the lightness's row means, sealK rows
	// either side of the step), less sure at all suffices, and the part
	// may hold up to sealValleyMax of the region (0: always sealLess and
	// sealMax). Glass shows the car's dark interior, and a pane's lower
	// part, over the dashboard's shade, is darker than its top, not
	// lighter: a much lighter part under a seal is a light body panel,
	// however sure of it the model is (098, a white bonnet under showroom
	// lights the deep model rates 0.74 against the pane's 0.86), and
	// however little of the pane was found above it (167, a champagne
	// bonnet under a windscreen whose top a seller's blur band hides, 52%
	// of the region). On the 313 photos' cross-validation 0.2 to 0.3 cut
	// those two bonnets and nothing else, with or without the share's
	// limit; 0.1 takes a corner of one pane (263).
	sealLighter float32 = 0.3
)

// cutAtSeal takes off each glass region of set whose foot lies on no
// edge of the photo the part under its seal. A pane ends at its frame
// (the seal on the body, the cowl, a rubber strip): across a pane's foot
// the photo changes. A region whose foot lies on the plain paint went on
// past the frame, over a bonnet or a tailgate the model rates likely
// glass (0.5 to 0.7: a fall too slow or too small for cutUnsureFoot);
// its frame is the sharpest step of the lightness across the region
// above that foot, and what lies below it, less sure than the pane above,
// is the body. Where the seal shows as no step of the lightness (a light
// pane over a light lid), it shows as a valley of the probability between
// the pane and the panel (cutAtValley). prob is the model's probability.
func cutAtSeal(set []bool, prob []float32, gg *glassGrid) {
	if sealFoot <= 0 {
		return
	}
	w, h, lum := gg.w, gg.h, gg.lum
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		rows := c.Box.Dy()
		if rows < 4*sealK {
			continue
		}
		if !footOnPaint(labels, int32(l), c.Box, gg) {
			continue
		}
		n := make([]int, rows)
		sum := make([]float32, rows)
		sure := make([]float32, rows)
		for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
			for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
				if i := y*w + x; labels[i] == int32(l) {
					r := y - c.Box.Min.Y
					n[r]++
					sum[r] += lum[i]
					sure[r] += prob[i]
				}
			}
		}
		cut, best := sharpestStep(n, sum, max(rows/5, sealK))
		if cut >= 0 && best >= sealStep && lessSure(n, sure, sum, cut, c.Area) {
			clearFrom(set, labels, int32(l), w, c.Box, cut)
			rows = cut
		}
		if sealValley > 0 {
			cutAtValley(set, labels, int32(l), w, c.Box, n[:rows], sure[:rows])
		}
	}
}

// lessSure reports whether the rows of a region from cut on (its rows'
// pixel counts n, sums of the probability sure and of the lightness lum;
// area pixels in all) hold at most sealMax of it, the rows above are sure
// glass (sealSure) and the rows below less sure by sealLess; or, when they
// are lighter (lighterUnder), at most sealValleyMax of it and less sure at
// all.
func lessSure(n []int, sure, lum []float32, cut, area int) bool {
	above, below, na, nb := splitRows(n, sure, cut)
	less, most := sealLess, sealMax
	if lighterUnder(n, lum, cut) {
		less, most = 0, sealValleyMax
	}
	return na > 0 && nb > 0 && float32(nb) <= most*float32(area) &&
		above >= sealSure*float32(na) && below/float32(nb) < above/float32(na)-less
}

// lighterUnder reports whether the rows under cut (the rows' pixel counts
// n and sums of the lightness sum) are lighter than those above it by at
// least sealLighter, over sealK rows either side.
func lighterUnder(n []int, sum []float32, cut int) bool {
	return sealLighter > 0 && meanOfRows(n, sum, cut, cut+sealK)-meanOfRows(n, sum, cut-sealK, cut) >= sealLighter
}

// meanOfRows returns the mean of a region's row means (its rows' pixel
// counts n and sums sum) from row r0 to r1, clipped to its rows; rows
// without pixels take no part.
func meanOfRows(n []int, sum []float32, r0, r1 int) float32 {
	var s float32
	k := 0
	for r := max(r0, 0); r < min(r1, len(n)); r++ {
		if n[r] > 0 {
			s += sum[r] / float32(n[r])
			k++
		}
	}
	return s / float32(max(k, 1))
}

// splitRows returns the sums of sure and of n over a region's rows above
// cut and from cut on.
func splitRows(n []int, sure []float32, cut int) (above, below float32, na, nb int) {
	for r := range n {
		if r < cut {
			above, na = above+sure[r], na+n[r]
		} else {
			below, nb = below+sure[r], nb+n[r]
		}
	}
	return above, below, na, nb
}

// Valley settings (cutAtValley): the least depth of a valley of the
// probability's row means between a pane and a panel below it
// (sealValley; 0: no cut), the share of the region the panel holds
// (sealValleyMin to sealValleyMax), and how much less sure the panel is
// than the pane on average (sealValleyLess). Set on the 313 glass
// photos' 5-fold cross-validated probabilities (docs/glass-and-shadow.md):
// at a depth of 0.15 alone the cut took 128's trunk lid and 311's bonnet
// but tore five panes (126, 137, 189, 280, 303): a thin band at a pane's
// foot (under a fifth of the region) or a lower part as sure as the upper
// one (a pane's two halves either side of a brake light or a wiper).
var (
	sealValley     float32 = 0.15
	sealValleyMin  float32 = 0.2
	sealValleyMax  float32 = 0.7
	sealValleyLess float32 = 0.05
)

// cutAtValley takes off region l (labels, its box, its rows' pixel counts
// n and sums of the probability sure) the part under the deepest valley
// of its rows' mean probability: a pane and the panel under it as two
// humps, the seal between them less sure than both (a saloon's rear window
// and trunk lid, 0.95 and 0.85 over 0.67 at the seal on photo 128), the
// panel a large part of the region and less sure than the pane.
func cutAtValley(set []bool, labels []int32, l int32, w int, box image.Rectangle, n []int, sure []float32) {
	rows := len(n)
	p := make([]float32, rows)
	for r := range rows {
		var s float32
		k := 0
		for q := max(r-1, 0); q < min(r+2, rows); q++ {
			s += sure[q]
			k += n[q]
		}
		p[r] = s / float32(max(k, 1))
	}
	top := make([]float32, rows) // the highest mean above each row
	for r := 1; r < rows; r++ {
		top[r] = max(top[r-1], p[r-1])
	}
	cut, best := -1, sealValley
	var low float32
	for r := rows - 2; r >= rows/5; r-- {
		low = max(low, p[r+1])
		if d := min(top[r], low) - p[r]; d >= best {
			cut, best = r, d
		}
	}
	if cut < 0 {
		return
	}
	above, below, na, nb := splitRows(n, sure, cut)
	if na == 0 || nb == 0 {
		return
	}
	share := float32(nb) / float32(na+nb)
	if share < sealValleyMin || share > sealValleyMax || below/float32(nb) > above/float32(na)-sealValleyLess {
		return
	}
	clearFrom(set, labels, l, w, box, cut)
}

// clearFrom takes off set the pixels of region l (labels on a grid w wide,
// its box box) from its row cut (counted from the box's top) down.
func clearFrom(set []bool, labels []int32, l int32, w int, box image.Rectangle, cut int) {
	for y := box.Min.Y + cut; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if i := y*w + x; labels[i] == l {
				set[i] = false
			}
		}
	}
}

// Painted-body settings (cutPaintedBody): under a region's seal (its
// sharpest step of the rows' mean lightness below its first fifth, at
// least sealStep, as cutAtSeal finds it) the rows' spans hold at least
// paintBelow of pixels coloured like the car's paint, above it at most
// paintAbove (paintBelow 0: no cut). Read off photo 106 alone (a dark
// grey saloon's trunk lid under its rear window, cross-validated: 0.49 of
// its spans paint under the seal, 0.002 above); the nearest region of the
// 313 glass photos left whole reads 0.27 (a three-row band at a pane's
// foot), docs/glass-and-shadow.md.
var (
	paintBelow float32 = 0.3
	paintAbove float32 = 0.05
)

// cutPaintedBody takes off each glass region of set the part under its
// seal when that part is mottled with the car's own paint. The growth
// over a trunk lid or a bonnet the model rates likely glass leaves out
// the pixels coloured like the paint (they are never glass), so the rows
// under the seal hold glass and paint side by side; a pane's rows hold
// none, for its holes (a sticker, a wiper) are filled. The seal's
// lightness step says where the body begins, the paint that it is the
// body: a region whose foot lies on an edge (a trunk lid ending on its
// chrome strip) is cut here, where cutAtSeal keeps it.
func cutPaintedBody(set []bool, gg *glassGrid) {
	if paintBelow <= 0 {
		return
	}
	w, h := gg.w, gg.h
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		rows := c.Box.Dy()
		if rows < 4*sealK {
			continue
		}
		n, sum, span, paint := paintRows(labels, int32(l), c.Box, gg)
		cut, step := sharpestStep(n, sum, max(rows/5, sealK))
		if cut < 0 || step < sealStep || !paintedUnder(span, paint, n, cut, c.Area) {
			continue
		}
		clearFrom(set, labels, int32(l), w, c.Box, cut)
	}
}

// paintRows sums region l (labels, its box) row by row: its pixels n,
// their lightness sum, the width of its span (first to last pixel) and
// the paint-coloured pixels in the span.
func paintRows(labels []int32, l int32, box image.Rectangle, gg *glassGrid) (n []int, sum []float32, span []int, paint []float32) {
	w, rows := gg.w, box.Dy()
	n, sum, span, paint = make([]int, rows), make([]float32, rows), make([]int, rows), make([]float32, rows)
	for r := range rows {
		y := box.Min.Y + r
		x0, x1 := -1, -1
		for x := box.Min.X; x < box.Max.X; x++ {
			if i := y*w + x; labels[i] == l {
				if x0 < 0 {
					x0 = x
				}
				x1 = x
				n[r]++
				sum[r] += gg.lum[i]
			}
		}
		if x0 < 0 {
			continue
		}
		span[r] = x1 - x0 + 1
		for x := x0; x <= x1; x++ {
			if gg.paint[y*w+x] {
				paint[r]++
			}
		}
	}
	return n, sum, span, paint
}

// sharpestStep returns the row from which on (from the row from) the
// mean of a region's row means (its rows' pixel counts n and sums sum)
// over sealK rows differs most from the mean over the sealK rows above,
// and that difference; -1 when the region has too few rows.
func sharpestStep(n []int, sum []float32, from int) (cut int, step float32) {
	cut = -1
	for r := from; r+sealK <= len(n); r++ {
		if d := abs32(meanOfRows(n, sum, r-sealK, r) - meanOfRows(n, sum, r, r+sealK)); d > step {
			cut, step = r, d
		}
	}
	return cut, step
}

// paintedUnder reports whether the rows of a region from cut on (their
// spans' widths span and paint-coloured pixels paint, their own pixel
// counts n; area pixels in all) hold at most sealMax of the region, at
// least paintBelow of their spans paint, and the rows above at most
// paintAbove.
func paintedUnder(span []int, paint []float32, n []int, cut, area int) bool {
	nb := 0
	for _, v := range n[cut:] {
		nb += v
	}
	above, below, sa, sb := splitRows(span, paint, cut)
	return sa > 0 && sb > 0 && float32(nb) <= sealMax*float32(area) &&
		below >= paintBelow*float32(sb) && above <= paintAbove*float32(sa)
}

// slantSeal are the slopes (rows per column) along which cutAtSlantedSeal
// looks for a seal that cutAtSeal, on whole rows, does not reach (nil: no
// cut). A three-quarter view's windscreen meets the bonnet along a line
// that rises or falls across the photo; a steeper seal is a pillar's side.
// Read off photo 098 (a white three-quarter bonnet beside its windscreen,
// whose seal rises about 0.7 rows a column: cut along -0.75); the cut's
// conditions are cutAtSeal's, not tuned again.
var slantSeal = []float32{-1, -0.75, -0.5, -0.25, 0.25, 0.5, 0.75, 1}

// cutAtSlantedSeal is cutAtSeal along slanted lines: each glass region of
// set whose foot lies on the plain paint (footOnPaint) is cut under its
// sharpest step of the lightness along lines of one of the slopes
// slantSeal, when the part under it is less sure than the part above
// (lessSure, as cutAtSeal). The slope with the sharpest step is the
// seal's. prob is the model's probability.
func cutAtSlantedSeal(set []bool, prob []float32, gg *glassGrid) {
	if len(slantSeal) == 0 {
		return
	}
	w, h := gg.w, gg.h
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		if c.Box.Dy() < 4*sealK || !footOnPaint(labels, int32(l), c.Box, gg) {
			continue
		}
		var best slanted
		for _, s := range slantSeal {
			sl := slantRows(labels, int32(l), c.Box, gg, prob, s)
			cut, step := sharpestStep(sl.n, sl.sum, max(len(sl.n)/5, sealK))
			if cut >= 0 && step > best.step {
				sl.cut, sl.step = cut, step
				best = sl
			}
		}
		if best.step < sealStep || !lessSure(best.n, best.sure, best.sum, best.cut, c.Area) {
			continue
		}
		for y := c.Box.Min.Y; y < c.Box.Max.Y; y++ {
			for x := c.Box.Min.X; x < c.Box.Max.X; x++ {
				if i := y*w + x; labels[i] == int32(l) && best.line(x, y) >= best.cut {
					set[i] = false
				}
			}
		}
	}
}

// slanted is a region's pixels summed along lines of one slope: line r
// holds n[r] pixels, their lightness sums to sum[r] and their probability
// to sure[r]; cut and step are its sharpest step and where it lies.
type slanted struct {
	slope, x0 float32
	top       int
	n         []int
	sum, sure []float32
	cut       int
	step      float32
}

// line returns the line pixel (x, y) lies on, counted from the region's
// first.
func (s slanted) line(x, y int) int {
	return y - int(math.Round(float64(s.slope*(float32(x)-s.x0)))) - s.top
}

// slantRows sums region l (labels, its box) along lines of slope s.
func slantRows(labels []int32, l int32, box image.Rectangle, gg *glassGrid, prob []float32, s float32) slanted {
	w := gg.w
	sl := slanted{slope: s, x0: float32(box.Min.X)}
	lo, hi := math.MaxInt, math.MinInt
	for _, x := range []int{box.Min.X, box.Max.X - 1} {
		for _, y := range []int{box.Min.Y, box.Max.Y - 1} {
			r := sl.line(x, y)
			lo, hi = min(lo, r), max(hi, r)
		}
	}
	sl.top = lo
	rows := hi - lo + 1
	sl.n, sl.sum, sl.sure = make([]int, rows), make([]float32, rows), make([]float32, rows)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if i := y*w + x; labels[i] == l {
				r := sl.line(x, y)
				sl.n[r]++
				sl.sum[r] += gg.lum[i]
				sl.sure[r] += prob[i]
			}
		}
	}
	sl.trim()
	return sl
}

// trim drops the lines at either end that hold under a tenth of the
// fullest line's pixels: the region's corners, cut across by the lines,
// whose means are a few pixels' and would be taken for steps.
func (s *slanted) trim() {
	most := slices.Max(s.n)
	lo, hi := 0, len(s.n)
	for lo < hi && 10*s.n[lo] < most {
		lo++
	}
	for hi > lo && 10*s.n[hi-1] < most {
		hi--
	}
	s.top += lo
	s.n, s.sum, s.sure = s.n[lo:hi], s.sum[lo:hi], s.sure[lo:hi]
}

// footOnPaint reports whether region l's foot (labels, its box) lies on
// the plain paint: the lightness sealSpan rows inside its lowest pixel
// and sealSpan+1 rows outside, on the car, differs by under sealFoot on
// average over its columns (cutAtSeal's test).
func footOnPaint(labels []int32, l int32, box image.Rectangle, gg *glassGrid) bool {
	w, h, lum := gg.w, gg.h, gg.lum
	var across float32
	cols := 0
	for x := box.Min.X; x < box.Max.X; x++ {
		last := -1
		for y := box.Max.Y - 1; y >= box.Min.Y; y-- {
			if labels[y*w+x] == l {
				last = y
				break
			}
		}
		in, out := last-sealSpan, last+sealSpan+1
		if last < 0 || in < 0 || out >= h || gg.matte[out*w+x] <= 0.5 {
			continue
		}
		across += abs32(lum[in*w+x] - lum[out*w+x])
		cols++
	}
	return cols > 0 && across < sealFoot*float32(cols)
}
