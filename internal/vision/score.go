package vision

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"slices"

	"github.com/showroom/showroom/internal/imaging"
)

// Score compares a predicted mask with a hand-made one, both read as car
// where the value is at least 128.
type Score struct {
	IoU, Precision, Recall float64
}

// Compare scores pred against truth; they must have the same size.
func Compare(pred, truth *image.Gray) Score {
	var tp, fp, fn int
	w, h := truth.Rect.Dx(), truth.Rect.Dy()
	for y := range h {
		pr := pred.Pix[y*pred.Stride : y*pred.Stride+w]
		tr := truth.Pix[y*truth.Stride : y*truth.Stride+w]
		for x := range w {
			p, t := pr[x] >= 128, tr[x] >= 128
			switch {
			case p && t:
				tp++
			case p:
				fp++
			case t:
				fn++
			}
		}
	}
	s := Score{IoU: 1, Precision: 1, Recall: 1}
	if tp+fp+fn > 0 {
		s.IoU = float64(tp) / float64(tp+fp+fn)
	}
	if tp+fp > 0 {
		s.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		s.Recall = float64(tp) / float64(tp+fn)
	}
	return s
}

// ReadMask reads a hand-made mask or annotation, a PNG, as 8-bit grey (255
// marks what it annotates).
func ReadMask(path string) (*image.Gray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if g, ok := img.(*image.Gray); ok && g.Rect.Min == (image.Point{}) {
		return g, nil
	}
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Rect, img, b.Min, draw.Src)
	return g, nil
}

// GlassScore is how a glass layer (8-bit, 255 fully glass) compares with a
// photo's glass annotation, the layer read as glass where it is at least
// 128 (testdata/glass/SOURCES.md).
type GlassScore struct {
	// Recall is the share of the annotated windows' pixels predicted glass;
	// HasWindows is false when the photo has no windows annotated.
	Recall     float64
	HasWindows bool
	// False is the share of the never-glass parts' pixels (paint, lights,
	// bumpers, wheels) predicted glass; HasNever is false when the photo
	// has none annotated.
	False    float64
	HasNever bool
}

// FoundRecall is the recall from which a photo's glass counts as found.
const FoundRecall = 0.5

// Found reports whether the annotated glass was found.
func (s GlassScore) Found() bool { return s.HasWindows && s.Recall >= FoundRecall }

// CompareGlass scores glass against the annotations windows and never
// (255 inside; either may be nil when the photo lacks it). They must have
// glass's size.
func CompareGlass(glass, windows, never *image.Gray) GlassScore {
	share := func(truth *image.Gray) (float64, bool) {
		if truth == nil {
			return 0, false
		}
		return covered(glass, truth)
	}
	var s GlassScore
	s.Recall, s.HasWindows = share(windows)
	s.False, s.HasNever = share(never)
	return s
}

// GlassSummary sums up the glass scores of a set of photos: recall over
// the photos with windows annotated, false glass over those with
// never-glass parts annotated.
type GlassSummary struct {
	MeanRecall, MedianRecall float64
	// Found of Scored photos had their glass found.
	Found, Scored       int
	MeanFalse, MaxFalse float64
}

// SummarizeGlass returns the summary of scores.
func SummarizeGlass(scores []GlassScore) GlassSummary {
	var s GlassSummary
	var recalls []float64
	nf := 0
	for _, g := range scores {
		if g.HasWindows {
			recalls = append(recalls, g.Recall)
			s.MeanRecall += g.Recall
			if g.Found() {
				s.Found++
			}
		}
		if g.HasNever {
			nf++
			s.MeanFalse += g.False
			s.MaxFalse = max(s.MaxFalse, g.False)
		}
	}
	s.Scored = len(recalls)
	if s.Scored > 0 {
		s.MeanRecall /= float64(s.Scored)
		slices.Sort(recalls)
		if m := len(recalls) / 2; len(recalls)%2 == 1 {
			s.MedianRecall = recalls[m]
		} else {
			s.MedianRecall = (recalls[m-1] + recalls[m]) / 2
		}
	}
	if nf > 0 {
		s.MeanFalse /= float64(nf)
	}
	return s
}

// PartsKept is the share of the annotated car parts (parts, read as car
// from 128: glass, lights, bumpers, bonnet, wheels) that the matte alpha
// keeps (alpha at least 128); ok is false when parts annotates nothing.
// A mask must lose no part of the car: this is the measure of that.
func PartsKept(alpha, parts *image.Gray) (share float64, ok bool) {
	return covered(alpha, parts)
}

// covered is the share of truth's pixels (from 128) that mask also holds
// (from 128); ok is false when truth holds none.
func covered(mask, truth *image.Gray) (share float64, ok bool) {
	var in, hit int
	w, h := truth.Rect.Dx(), truth.Rect.Dy()
	for y := range h {
		tr := truth.Pix[y*truth.Stride : y*truth.Stride+w]
		mr := mask.Pix[y*mask.Stride : y*mask.Stride+w]
		for x, t := range tr {
			if t >= 128 {
				in++
				if mr[x] >= 128 {
					hit++
				}
			}
		}
	}
	if in == 0 {
		return 0, false
	}
	return float64(hit) / float64(in), true
}

// KeptOutside is the share of what the matte alpha keeps (from 128) that
// lies farther than margin (a share of the larger side of the box of
// parts) outside the convex hull of the annotated car parts (parts, from
// 128); ok is false when alpha keeps nothing or parts annotates nothing.
//
// Where the photo's parts are annotated (glass, lights, bumpers, bonnet,
// mirrors, wheels) their hull covers the car but for its doors' and
// roof's rounding, which a margin of a few per cent takes in: what the
// matte keeps beyond it is not car (a person, a sign, a neighbouring car,
// the floor). It measures "nothing extra" on photos whose whole car is
// not outlined.
func KeptOutside(alpha, parts *image.Gray, margin float64) (share float64, ok bool) {
	near := nearParts(parts, margin)
	if near == nil {
		return 0, false
	}
	w, h := parts.Rect.Dx(), parts.Rect.Dy()
	kept, out := 0, 0
	for y := range h {
		for x, a := range alpha.Pix[y*alpha.Stride : y*alpha.Stride+w] {
			if a < 128 {
				continue
			}
			kept++
			if !near[y*w+x] {
				out++
			}
		}
	}
	if kept == 0 {
		return 0, false
	}
	return float64(out) / float64(kept), true
}

// nearParts is where KeptOutside counts the matte as car: within margin
// of the parts' hull; nil when parts annotates nothing.
func nearParts(parts *image.Gray, margin float64) []bool {
	w, h := parts.Rect.Dx(), parts.Rect.Dy()
	hull := partsHull(parts)
	if hull == nil {
		return nil
	}
	r := max(1, int(margin*float64(max(hull.box.Dx(), hull.box.Dy()))))
	return imaging.Dilate(hull.fill(w, h), w, h, r)
}

// convexHull is a convex polygon, its vertices in order, with its box.
type convexHull struct {
	pts []image.Point
	box image.Rectangle
}

// partsHull returns the convex hull of the pixels of g from 128 (their
// corners), or nil when there are none. Only each row's outermost pixels
// can be vertices, so the hull is built from those.
func partsHull(g *image.Gray) *convexHull {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	return hullOf(h, func(y int) (x0, x1 int) {
		x0, x1 = -1, -1
		for x, v := range g.Pix[y*g.Stride : y*g.Stride+w] {
			if v >= 128 {
				if x0 < 0 {
					x0 = x
				}
				x1 = x
			}
		}
		return x0, x1
	})
}

// setHull is partsHull of the set pixels of a w×h grid.
func setHull(set []bool, w, h int) *convexHull {
	return hullOf(h, func(y int) (x0, x1 int) {
		row := set[y*w : (y+1)*w]
		x0 = slices.Index(row, true)
		if x0 < 0 {
			return -1, -1
		}
		x1 = w - 1
		for !row[x1] {
			x1--
		}
		return x0, x1
	})
}

// hullOf returns the convex hull of the pixels of an h-row grid whose
// outermost ones in row y are span(y) (x0 -1 where the row has none), or
// nil when there are none.
func hullOf(h int, span func(y int) (x0, x1 int)) *convexHull {
	var pts []image.Point
	for y := range h {
		x0, x1 := span(y)
		if x0 >= 0 {
			pts = append(pts, image.Pt(x0, y), image.Pt(x0, y+1), image.Pt(x1+1, y), image.Pt(x1+1, y+1))
		}
	}
	if len(pts) == 0 {
		return nil
	}
	// Andrew's monotone chain.
	slices.SortFunc(pts, func(a, b image.Point) int {
		if a.X != b.X {
			return a.X - b.X
		}
		return a.Y - b.Y
	})
	cross := func(o, a, b image.Point) int {
		return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X)
	}
	var hull []image.Point
	for pass := range 2 {
		start := len(hull)
		for _, p := range pts {
			for len(hull) >= start+2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1]
		if pass == 0 {
			slices.Reverse(pts)
		}
	}
	c := &convexHull{pts: hull}
	for _, p := range hull {
		c.box = c.box.Union(image.Rectangle{p, p.Add(image.Pt(1, 1))})
	}
	return c
}

// fill rasterises the hull on a w×h grid: the pixels whose centres lie
// inside it.
func (c *convexHull) fill(w, h int) []bool {
	out := make([]bool, w*h)
	n := len(c.pts)
	for y := max(c.box.Min.Y, 0); y < min(c.box.Max.Y, h); y++ {
		cy := float64(y) + 0.5
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			a, b := c.pts[i], c.pts[(i+1)%n]
			ay, by := float64(a.Y), float64(b.Y)
			if (cy < ay) == (cy < by) {
				continue
			}
			x := float64(a.X) + (cy-ay)/(by-ay)*float64(b.X-a.X)
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		for x := max(int(math.Ceil(lo-0.5)), 0); x < min(int(math.Ceil(hi-0.5)), w); x++ {
			out[y*w+x] = true
		}
	}
	return out
}
