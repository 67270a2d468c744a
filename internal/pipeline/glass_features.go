package pipeline

import (
	"image"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/imaging"
)

// glassSide is the long side of the grid glass is classified on. The glass
// model was trained on 512-pixel photos: on that scale its texture and
// context features mean what they meant in training, whatever the photo's
// own size, and a window is still tens of pixels across.
const glassSide = 512

// glassGrid is the working grid shrunk by an integer factor to about
// glassSide, with what the glass features need: colours, the car, and the
// car's extent per column.
type glassGrid struct {
	w, h   int
	k      int // working-grid pixels per glass-grid pixel
	rgb    [3][]float32
	lum    []float32 // perceptual (sRGB-like) lightness, 0..1
	matte  []float32
	raw    []bool // the model left the pixel out
	paint  []bool // coloured like the car's own paint (see features)
	box    image.Rectangle
	top    []int // the car's first row in each column, -1 for none
	bottom []int // one past its last row
	// deep is set when the probabilities are the deep model's
	// (glassProb), on which the pane rules that read them were measured
	// (dropSoftPanes).
	deep bool
}

func newGlassGrid(g *workGrid, box image.Rectangle, raw *image.Gray) *glassGrid {
	k := glassCell(g)
	w, h := g.w/k, g.h/k
	gg := &glassGrid{w: w, h: h, k: k, lum: make([]float32, w*h), matte: make([]float32, w*h), raw: make([]bool, w*h)}
	for c := range gg.rgb {
		gg.rgb[c] = make([]float32, w*h)
	}
	if raw != nil && raw.Rect.Dx() != g.w {
		raw = nil
	}
	inv := 1 / float32(k*k)
	for y := range h {
		for x := range w {
			var s [4]float32
			rawOut := 0
			for yy := y * k; yy < (y+1)*k; yy++ {
				for xx := x * k; xx < (x+1)*k; xx++ {
					j := yy*g.w + xx
					s[0] += g.rgb[0].Pix[j]
					s[1] += g.rgb[1].Pix[j]
					s[2] += g.rgb[2].Pix[j]
					s[3] += g.matte.Pix[j]
					if raw != nil && raw.Pix[yy*raw.Stride+xx] == 0 {
						rawOut++
					}
				}
			}
			i := y*w + x
			for c := range 3 {
				gg.rgb[c][i] = s[c] * inv
			}
			gg.matte[i] = s[3] * inv
			gg.lum[i] = float32(math.Sqrt(float64(0.2126*gg.rgb[0][i] + 0.7152*gg.rgb[1][i] + 0.0722*gg.rgb[2][i])))
			gg.raw[i] = rawOut*2 > k*k
		}
	}
	gg.box = image.Rect(box.Min.X/k, box.Min.Y/k, (box.Max.X+k-1)/k, (box.Max.Y+k-1)/k).Intersect(image.Rect(0, 0, w, h))
	gg.top, gg.bottom = make([]int, w), make([]int, w)
	for x := range w {
		gg.top[x], gg.bottom[x] = -1, -1
		for y := gg.box.Min.Y; y < gg.box.Max.Y; y++ {
			if gg.matte[y*w+x] > 0.5 {
				if gg.top[x] < 0 {
					gg.top[x] = y
				}
				gg.bottom[x] = y + 1
			}
		}
	}
	return gg
}

// glassFeatureCount is the length of one pixel's feature vector.
const glassFeatureCount = 24

// glassFeatures returns the feature vectors of the car pixels that may be
// glass (inside the car, in its upper part), row-major, and their indexes
// on the glass grid. The features describe a pixel by where it is on the
// car (height in its column, across the box, distance to the outline), by
// its colour against the car's own (lightness, saturation, distance from
// the body colour, blue of a sky reflection), and by its surroundings at
// two scales above, below and around it, which is what tells a windscreen
// from the bonnet of the same colour under it. It also marks the pixels
// coloured like the car's paint (gg.paint).
//
// Its stages: the car's pixels, the car's own tone, the sums its
// neighbourhood means are read from, then each row's vectors, in parallel.
func (gg *glassGrid) features() ([]float32, []int) {
	if gg.box.Dx() < 8 || gg.box.Dy() < 8 {
		return nil, nil
	}
	car := make([]bool, gg.w*gg.h)
	for i, m := range gg.matte {
		car[i] = m > 0.5
	}
	tone, ok := gg.carTone(car)
	if !ok {
		return nil, nil
	}
	gg.paint = make([]bool, gg.w*gg.h)
	nb := newNeighbourhood(gg, car)
	// The rows are worked out in parallel, each into slices of its own,
	// joined in row order.
	box := gg.box
	rowFeats, rowIdx := make([][]float32, box.Dy()), make([][]int, box.Dy())
	imaging.Parallel(box.Dy(), func(lo, hi int) {
		for y := lo; y < hi; y++ {
			rowFeats[y], rowIdx[y] = gg.rowFeatures(box.Min.Y+y, car, tone, nb)
		}
	})
	return slices.Concat(rowFeats...), slices.Concat(rowIdx...)
}

// carTone is the car's own median lightness and colour, which every
// lightness and colour feature is relative to, so that a dark and a white
// car read alike.
type carTone struct {
	lum     float32    // median lightness of the whole car (at least 0.02)
	body    [3]float32 // median colour of its lower half: the paint
	bodyLum float32    // the paint's lightness
	// distinct: the paint is a colour no glass looks like (a clear
	// colour, or white and silver), so a pixel of the paint's own colour
	// is never glass whatever the model says: that keeps a body-coloured
	// pillar between two windows opaque. Black and grey paint look like
	// tinted glass, so there the model alone decides.
	distinct bool
}

// carTone measures the car's tone over its pixels car; ok is false when
// the car is too small to measure.
func (gg *glassGrid) carTone(car []bool) (t carTone, ok bool) {
	box, w := gg.box, gg.w
	bh := float32(box.Dy())
	var lums []float32
	var cols [3][]float32
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if i := y*w + x; car[i] {
				lums = append(lums, gg.lum[i])
				if float32(y-box.Min.Y) > 0.5*bh {
					for c := range 3 {
						cols[c] = append(cols[c], gg.rgb[c][i])
					}
				}
			}
		}
	}
	if len(lums) < 16 {
		return t, false
	}
	median := func(v []float32) float32 {
		if len(v) == 0 {
			return 0
		}
		return kth(v, len(v)/2)
	}
	t.lum = max(median(lums), 0.02)
	for c := range 3 {
		t.body[c] = median(cols[c])
	}
	t.bodyLum = float32(math.Sqrt(float64(0.2126*t.body[0] + 0.7152*t.body[1] + 0.0722*t.body[2])))
	t.distinct = saturation(t.body) > 0.35 || t.bodyLum > 0.6
	return t, true
}

// neighbourhood reads box means of lightness over the car only (outside
// it, the old background would leak in), at the scales the features use.
type neighbourhood struct {
	w, h       int
	si, ci, qi []float64 // summed-area tables of lightness, car pixels, lightness²
	dist       []float32 // distance to the car's outline
	unit       float32   // the car's size: √ of its box's area
	r1, r2, r3 int       // the three neighbourhood radii
	step       int       // how far above and below the features look
}

func newNeighbourhood(gg *glassGrid, car []bool) *neighbourhood {
	w, h := gg.w, gg.h
	lumCar := make([]float32, w*h)
	one := make([]float32, w*h)
	sq := make([]float32, w*h)
	for i, c := range car {
		if c {
			lumCar[i], one[i], sq[i] = gg.lum[i], 1, gg.lum[i]*gg.lum[i]
		}
	}
	unit := float32(math.Sqrt(float64(float32(gg.box.Dx()) * float32(gg.box.Dy()))))
	return &neighbourhood{
		w: w, h: h,
		si: integral(lumCar, w, h), ci: integral(one, w, h), qi: integral(sq, w, h),
		dist: imaging.Chamfer(notSet(car), w, h),
		unit: unit,
		r1:   max(int(0.015*unit), 1),
		r2:   max(int(0.05*unit), 2),
		r3:   max(int(0.12*unit), 3),
		step: max(int(0.06*unit), 2),
	}
}

// window clips the square of radius r around (x, y) to the grid and
// returns it with its count of car pixels.
func (nb *neighbourhood) window(x, y, r int) (x0, y0, x1, y1 int, n float32) {
	x0, y0, x1, y1 = max(x-r, 0), max(y-r, 0), min(x+r+1, nb.w), min(y+r+1, nb.h)
	return x0, y0, x1, y1, rect(nb.ci, nb.w, x0, y0, x1, y1)
}

// mean returns the mean lightness of the car's pixels within r of (x, y)
// and the share of the square they cover.
func (nb *neighbourhood) mean(x, y, r int) (float32, float32) {
	x0, y0, x1, y1, n := nb.window(x, y, r)
	if n < 1 {
		return 0, 0
	}
	return rect(nb.si, nb.w, x0, y0, x1, y1) / n, n / float32((x1-x0)*(y1-y0))
}

// std returns the standard deviation of the car's lightness within r of
// (x, y).
func (nb *neighbourhood) std(x, y, r int) float32 {
	x0, y0, x1, y1, n := nb.window(x, y, r)
	if n < 2 {
		return 0
	}
	m := rect(nb.si, nb.w, x0, y0, x1, y1) / n
	return float32(math.Sqrt(math.Max(0, float64(rect(nb.qi, nb.w, x0, y0, x1, y1)/n-m*m))))
}

// rowFeatures returns the feature vectors and indexes of row y's
// candidates (the car's pixels in the upper four fifths of their column),
// and marks its paint-coloured pixels in gg.paint.
func (gg *glassGrid) rowFeatures(y int, car []bool, t carTone, nb *neighbourhood) (feats []float32, idx []int) {
	w, h, box := gg.w, gg.h, gg.box
	bw, bh := float32(box.Dx()), float32(box.Dy())
	cx := float32(box.Min.X+box.Max.X) / 2
	for x := box.Min.X; x < box.Max.X; x++ {
		i := y*w + x
		if !car[i] || gg.top[x] < 0 {
			continue
		}
		colH := float32(gg.bottom[x] - gg.top[x])
		yr := float32(y-gg.top[x]) / colH
		if yr > 0.8 {
			continue
		}
		px := [3]float32{gg.rgb[0][i], gg.rgb[1][i], gg.rgb[2][i]}
		var bodyDist float32
		for c := range 3 {
			bodyDist = max(bodyDist, abs32(float32(math.Sqrt(float64(px[c])))-float32(math.Sqrt(float64(t.body[c])))))
		}
		gg.paint[i] = t.distinct && bodyDist < 0.06
		m1, _ := nb.mean(x, y, nb.r1)
		m2, cov2 := nb.mean(x, y, nb.r2)
		m3, cov3 := nb.mean(x, y, nb.r3)
		up, _ := nb.mean(x, max(y-nb.step, 0), nb.r1)
		down, _ := nb.mean(x, min(y+nb.step, h-1), nb.r1)
		up2, _ := nb.mean(x, max(y-2*nb.step, 0), nb.r2)
		down2, _ := nb.mean(x, min(y+2*nb.step, h-1), nb.r2)
		sum := px[0] + px[1] + px[2] + 1e-4
		rawCue := float32(0)
		if gg.raw[i] {
			rawCue = 1
		}
		feats = append(feats,
			yr,
			float32(y-box.Min.Y)/bh,
			abs32(float32(x)+0.5-cx)/(bw/2),
			float32(x-box.Min.X)/bw,
			bw/bh,
			colH/bh,
			float32(y-gg.top[x])/bh,
			nb.dist[i]/nb.unit,
			gg.lum[i],
			gg.lum[i]/t.lum,
			t.bodyLum,
			float32(saturation(px)),
			bodyDist,
			(px[2]-px[0])/sum,
			(px[1]-(px[0]+px[2])/2)/sum,
			nb.std(x, y, nb.r1)/t.lum,
			m1/t.lum,
			m2/t.lum,
			m3/t.lum,
			(up-down)/t.lum,
			(up2-down2)/t.lum,
			cov2,
			cov3,
			rawCue,
		)
		idx = append(idx, i)
	}
	return feats, idx
}

// integral returns the summed-area table of v (w+1 by h+1).
func integral(v []float32, w, h int) []float64 {
	s := make([]float64, (w+1)*(h+1))
	for y := range h {
		var row float64
		for x := range w {
			row += float64(v[y*w+x])
			s[(y+1)*(w+1)+x+1] = s[y*(w+1)+x+1] + row
		}
	}
	return s
}

// rect returns the sum of the table's values in [x0,x1)×[y0,y1).
func rect(s []float64, w, x0, y0, x1, y1 int) float32 {
	W := w + 1
	return float32(s[y1*W+x1] - s[y0*W+x1] - s[y1*W+x0] + s[y0*W+x0])
}

func notSet(set []bool) []bool {
	out := make([]bool, len(set))
	for i, v := range set {
		out[i] = !v
	}
	return out
}

// predict returns the model's glass probability for every pixel of idx
// (0 elsewhere), from feats, glassFeatureCount of them per pixel.
func (gg *glassGrid) predict(m *boostModel, feats []float32, idx []int) []float32 {
	out := make([]float32, gg.w*gg.h)
	imaging.Parallel(len(idx), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			out[idx[j]] = m.prob(feats[j*glassFeatureCount : (j+1)*glassFeatureCount])
		}
	})
	return out
}

// postGlass turns the model's per-pixel glass probabilities into the glass
// layer on the glass grid: windows are whole regions, so small specks are
// dropped, regions the model is not confident about as a whole are left
// as photographed, and holes inside a window (a sticker, a wiper, a
// reflection) are glass like the rest of it. Its stages: the confident
// regions, then each taken out to a whole pane, then the layer.
func postGlass(gg *glassGrid, prob []float32) []float32 {
	sm := smoothGlassProb(gg, prob)
	keep := confidentGlass(gg, prob, sm)
	wholePanes(keep, sm, gg)
	cutUnsureFoot(keep, prob, gg.w, gg.h)
	cutAtSeal(keep, prob, gg)
	cutAtSlantedSeal(keep, prob, gg)
	cutPaintedBody(keep, gg)
	out := make([]float32, gg.w*gg.h)
	for i, k := range keep {
		if k && gg.matte[i] > 0.5 {
			out[i] = 1
		}
	}
	return out
}

// confidentGlass returns the regions of the smoothed probability sm the
// model is confident about as a whole (window), with their edge's detail.
// prob is the model's own probability.
func confidentGlass(gg *glassGrid, prob, sm []float32) []bool {
	w, h := gg.w, gg.h
	set := make([]bool, w*h)
	carArea := 0
	for i, v := range sm {
		set[i] = v > glassThreshold && gg.matte[i] > 0.5
		if gg.matte[i] > 0.5 {
			carArea++
		}
	}
	// An opening takes off the ragged fringe of a region and the thin
	// bridges over a pillar, which show as torn edges when drawn.
	r := max(1, int(math.Round(0.006*math.Sqrt(float64(gg.box.Dx()*gg.box.Dy())))))
	found := set
	set = imaging.Dilate(imaging.ErodeFromEdge(set, w, h, r), w, h, r)
	labels, comps := imaging.Label(set, w, h, false)
	sum := make([]float32, len(comps))
	for i, l := range labels {
		if l >= 0 {
			sum[l] += sm[i]
		}
	}
	// A region's pixels are glass if the region is, but not a pixel the
	// model itself calls paint: the smoothing must not carry glass onto the
	// edge of a pillar between two windows.
	own := func(i int) bool { return prob[i] >= 0.3 && !gg.paint[i] }
	keep := make([]bool, w*h)
	for i, l := range labels {
		keep[i] = l >= 0 && window(comps[l], sum[l], carArea) && own(i)
	}
	// The opening also took the edge's detail off the regions kept: give
	// it back, as far as the opening reached.
	near := imaging.Dilate(keep, w, h, r)
	for i, f := range found {
		keep[i] = keep[i] || (f && near[i] && own(i))
	}
	return keep
}

// wholePanes makes each confident region of keep a whole pane, in place: a
// pane is see-through whole or not at all. From the confident regions,
// the glass grows over every connected pixel the model finds at all
// likely glass (the dark lower part of a windscreen, where the dashboard
// shows, is less sure than the sky-lit top), then its holes and the gaps
// along its columns and rows are closed. Then each region is taken out to
// its frame, what hangs under a pane's foot is cut off, and a region
// wholly under a pane's foot, or one that stopped inside its pane, is
// left as photographed (glass_panes.go);
// postGlass then cuts the unsure band under a pane's seal
// (cutUnsureFoot) and the body under the seal of a region whose foot lies
// on the plain paint (cutAtSeal, cutAtValley, cutAtSlantedSeal) or
// mottled with the paint
// (cutPaintedBody).
func wholePanes(keep []bool, sm []float32, gg *glassGrid) {
	w, h := gg.w, gg.h
	growGlass(keep, sm, gg, glassGrow)
	imaging.FillHoles(keep, w, h, w*h)
	fillColumns(keep, w, h, gg.paint)
	fillRows(keep, w, h, gg.paint)
	fillPanes(keep, sm, gg)
	cutNecks(keep, w, h)
	dropUnderPanes(keep, w, h)
	dropSoftPanes(keep, sm, gg)
}

// smoothGlassProb is the model's probability smoothed over 3×3 and, with
// glassSnap, fitted to the photo's edges.
func smoothGlassProb(gg *glassGrid, prob []float32) []float32 {
	w, h := gg.w, gg.h
	sm := make([]float32, w*h)
	imaging.BoxMean(sm, make([]float32, w*h), prob, w, h, 1)
	if glassSnap > 0 {
		// The deep features are coarse (a cell of 4, 8 and 16 model pixels):
		// their probability runs a few pixels past a windscreen's frame
		// onto the bonnet. A guided filter with the photo's lightness as
		// guide puts the probability's edges on the photo's.
		a, b := imaging.GuidedCoefficients(gg.lum, sm, w, h, glassSnap, glassSnapEps, nil)
		for i := range sm {
			sm[i] = clamp32(a[i]*gg.lum[i]+b[i], 0, 1)
		}
	}
	return sm
}

// saturation is HSV's: 0 grey, 1 a pure colour.
func saturation(c [3]float32) float64 {
	mx, mn := max(c[0], c[1], c[2]), min(c[0], c[1], c[2])
	return float64(mx-mn) / math.Max(float64(mx), 1e-4)
}

// glassThreshold is the probability above which a pixel is taken for
// glass. It is above one half because the costly mistake is the band where
// the windscreen meets the bonnet: glass made paint there stays as
// photographed, paint made glass shows the background through the bonnet.
const glassThreshold = 0.55

// window reports whether a region the model found is glass to draw: large
// enough, found with confidence as a whole, and solid (a window fills most
// of its box; a ragged partial find does not, and drawn it shows as a
// torn patch, worse than the glass left as photographed).
func window(c imaging.Component, probSum float32, carArea int) bool {
	mean := probSum / float32(c.Area)
	solid := float64(c.Area) / float64(c.Box.Dx()*c.Box.Dy())
	return c.Area*500 >= carArea && mean >= glassConfidence && solid >= glassSolidity
}

// glassConfidence is the least mean probability of a region drawn as
// glass, and glassSolidity the least share of its bounding box it fills.
var glassConfidence float32 = 0.7

const glassSolidity = 0.4

// glassSnap is the guided filter's radius in glass-grid pixels that fits
// the probability's edges to the photo's (0: none), glassSnapEps its
// regularisation (lightness squared).
var (
	glassSnap    = 4
	glassSnapEps = float32(2e-3)
)

func clamp32(v, lo, hi float32) float32 { return min(max(v, lo), hi) }

// glassGrow is the least smoothed probability glass grows over from a
// confident region (postGlass). At 0.42 the growth ran from a windscreen
// onto a dark bonnet (8% of a dev photo's never-glass parts made glass);
// 0.5 with glassReach keeps the windows' dark lower parts.
var glassGrow float32 = 0.5

// glassReach is how far glass grows from a confident region, as a share
// of the square root of the car's box area (0: without limit). A pane's
// unsure part (the dashboard's shade, a reflection) lies close to its sure
// part; the growth that runs on over a dark trunk lid, a roof or a mirror
// goes far. 0.05 (about a twentieth of the car) took the worst dev photo
// from 8.1% to 5.1% of its never-glass parts made glass by itself.
var glassReach float32 = 0.05

// growGlass grows set over the 4-connected car pixels whose smoothed
// probability sm is at least low and which are not the car's paint, no
// farther (in 4-connected steps) than glassReach of the car's size.
func growGlass(set []bool, sm []float32, gg *glassGrid, low float32) {
	w, h := gg.w, gg.h
	limit := int32(math.MaxInt32)
	if glassReach > 0 {
		limit = int32(math.Ceil(float64(glassReach) * math.Sqrt(float64(gg.box.Dx()*gg.box.Dy()))))
	}
	dist := imaging.Steps(set, w, h, limit, func(n int) bool {
		return sm[n] >= low && gg.matte[n] > 0.5 && !gg.paint[n]
	})
	for i, d := range dist {
		set[i] = d >= 0
	}
}

// fillColumns closes the gaps of each glass region along its columns: a
// column crosses a window once, so what lies between two glass pixels of
// one region in a column (a bright streak of sky reflection, a wiper, the
// shade of a sticker) is glass too, unless it is the car's own paint.
func fillColumns(set []bool, w, h int, paint []bool) { fillSpans(set, w, h, paint, false) }

// fillRows is fillColumns along rows: a row crosses a pane once too.
func fillRows(set []bool, w, h int, paint []bool) { fillSpans(set, w, h, paint, true) }

// fillSpans closes each region's gaps along its rows (byRow) or columns.
func fillSpans(set []bool, w, h int, paint []bool, byRow bool) {
	labels, comps := imaging.Label(set, w, h, false)
	for l, c := range comps {
		// along runs over the line at a from lo to hi; at gives a pixel's index.
		a0, a1, lo, hi := c.Box.Min.X, c.Box.Max.X, c.Box.Min.Y, c.Box.Max.Y
		at := func(a, b int) int { return b*w + a }
		if byRow {
			a0, a1, lo, hi = c.Box.Min.Y, c.Box.Max.Y, c.Box.Min.X, c.Box.Max.X
			at = func(a, b int) int { return a*w + b }
		}
		for a := a0; a < a1; a++ {
			first, last := -1, -1
			for b := lo; b < hi; b++ {
				if labels[at(a, b)] == int32(l) {
					if first < 0 {
						first = b
					}
					last = b
				}
			}
			for b := first + 1; b < last; b++ {
				if i := at(a, b); !paint[i] {
					set[i] = true
				}
			}
		}
	}
}
