package pipeline

import (
	"cmp"
	"context"
	"image"
	"image/color"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/catalog"
)

// placeCar is PlaceCarProcessor: the car scaled into carWidth × carHeight
// of the canvas (aspect kept), centred, on a background colour, standing
// as photographed: its far wheels on the horizon, its near ones lower.
// Without its own background it keeps one an earlier processor set (and
// that one's canvas): it re-places the car on the studio it was put in
// rather than painting the studio over white.
type placeCar struct {
	horizon, width, height float64
	color                  color.NRGBA
	ownColor               bool
	keypoints              bool
}

func newPlaceCar(p catalog.PlaceCarParams) step {
	return placeCar{
		horizon: p.HorizonLine, width: p.CarWidth, height: p.CarHeight,
		color: p.Background, ownColor: p.OwnBackground, keypoints: p.UseKeypoints,
	}
}

// maxLevel is the largest tilt useKeypoints corrects. A steeper line
// through the contact points is the perspective of a three-quarter view,
// and "levelling" it would tilt the car.
const maxLevel = 4 * math.Pi / 180

func (p placeCar) apply(ctx context.Context, r *run, s *Scene) error {
	if k := s.Background.Kind; p.ownColor || (k != BackgroundColor && k != BackgroundImage) {
		s.Background, s.Floor = Background{Kind: BackgroundColor, Color: p.color}, 0
	}
	if !s.hasCar() {
		return nil
	}
	s.standOnWheels(p.keypoints)
	st := s.stance()
	fit := func(cw, ch float64) float64 {
		return math.Max(math.Min(p.width*cw/st.width(), p.height*ch/st.height()), minScale)
	}
	// The canvas is kept: the photo's size, or the one an earlier
	// processor sized (AddBackgroundAndCrop's). A car smaller than carWidth
	// x carHeight of it is enlarged rather than the canvas shrunk: an
	// output smaller than the photo is a step back on a listing.
	cw, ch := float64(s.Canvas.X), float64(s.Canvas.Y)
	sc := fit(cw, ch)
	// The far wheels on the horizon, unless that would put the car over
	// the canvas's edge or nearer it than edgeMargin (as far as the car's
	// share of the height leaves room, and below a horizon set lower).
	m := math.Min(edgeMargin*ch, math.Max((ch-sc*st.height())/2, 0))
	y := math.Max(math.Min(p.horizon*ch, ch-math.Min(m, (1-p.horizon)*ch)-sc*st.below), m+sc*st.above)
	sc, x, y := frameCut(st, cutEdges(s.Matte, s.Box), sc, cw/2+sc*(st.left-st.right)/2, y, cw, ch)
	s.Place = Placement{Anchor: st.anchor, To: Point{x, y}, Scale: sc, Angle: s.Level}.
		onPixels(math.Max(st.width(), st.height()))
	return nil
}

// minScale keeps a zero carWidth or carHeight from meaning "identity": the
// car becomes too small to see, as asked.
const minScale = 1e-4

// minCanvas is the smallest side a canvas is shrunk to so as not to
// enlarge the car: the smallest output size the catalog allows.
const minCanvas = 64

// unenlarged returns the canvas w×h made smaller by sc, the scale that
// would enlarge the car on it, so the car keeps its photographed pixels
// and the composition stays the same; never below minCanvas a side (a
// tiny car is then enlarged a little) nor above w×h.
func unenlarged(w, h, sc float64) (float64, float64) {
	k := math.Max(1/sc, float64(minCanvas)/math.Min(w, h))
	k = math.Min(k, 1)
	return math.Max(math.Floor(w*k), 1), math.Max(math.Floor(h*k), 1)
}

// stance is how the car stands, in photo pixels, in the frame turned by
// the scene's Level: anchor is under the middle of the car on the far
// wheels' ground line, and the car reaches left, right, above and below
// it by that much. Below is what the near wheels (and anything else
// lower in the photo, a spoiler) reach under the far wheels' line: the
// perspective kept as photographed.
type stance struct {
	anchor                    Point
	left, right, above, below float64
}

func (st stance) width() float64  { return math.Max(st.left+st.right, 1) }
func (st stance) height() float64 { return math.Max(st.above+st.below, 1) }

// stance returns how the car stands on its ground line.
func (s *Scene) stance() stance {
	b := s.Box
	cx := float64(b.Min.X+b.Max.X) / 2
	sin, cos := math.Sincos(s.Level)
	// Turned by Level, the ground point highest on the canvas is the far
	// wheel (the box's bottom when none is found); the floor's line
	// through it, under the middle of the car, is the anchor, so turning
	// about it keeps that line level.
	far := Point{cx, float64(b.Max.Y)}
	for _, p := range s.groundPoints() {
		if sin*p.X+cos*p.Y < sin*far.X+cos*far.Y {
			far = p
		}
	}
	a := Point{cx, far.Y - (cx-far.X)*math.Tan(s.Level)}
	st := stance{anchor: a}
	for _, c := range []Point{{float64(b.Min.X), float64(b.Min.Y)}, {float64(b.Max.X), float64(b.Min.Y)},
		{float64(b.Min.X), float64(b.Max.Y)}, {float64(b.Max.X), float64(b.Max.Y)}} {
		dx, dy := c.X-a.X, c.Y-a.Y
		x, y := cos*dx-sin*dy, sin*dx+cos*dy
		st.left, st.right = math.Max(st.left, -x), math.Max(st.right, x)
		st.above, st.below = math.Max(st.above, -y), math.Max(st.below, y)
	}
	return st
}

// endShare is the share of the car's width, at each end, searched for
// the lowest point of that end.
const endShare = 0.3

// groundPoints returns where the car touches the floor, in photo pixels:
// the wheels' contact points when found, every tyre's contact
// (tyreContacts), and the lowest point of each end of the car. The ends matter in a three-quarter view, where a third
// wheel, further back than the two lowest, shows at the far end; there
// the lowest point is that wheel, in a side or front view one of the two
// contact points again. Points higher than maxRise above the car's lowest
// are left out (a bumper's corner is not where the car stands).
func (s *Scene) groundPoints() []Point {
	var ps []Point
	if s.Keypoints {
		ps = append(ps, s.Ground.Left, s.Ground.Right)
	}
	g := s.workGrid()
	box := g.toWork(s.Box)
	if bw := box.Dx(); bw >= 8 && box.Dy() >= 8 {
		bottom := bottomProfile(g, box)
		n := max(int(endShare*float64(bw)), 1)
		for _, span := range [][2]int{{0, n}, {bw - n, bw}} {
			if p, ok := lowestRun(bottom, box, span[0], span[1]); ok {
				ps = append(ps, Point{p.X / g.sx, p.Y / g.sy})
			}
		}
	}
	lowest := float64(s.Box.Max.Y)
	out := ps[:0]
	for _, p := range ps {
		if lowest-p.Y <= maxRise*float64(s.Box.Dy()) {
			out = append(out, p)
		}
	}
	// Every tyre the shadow's finder sees: in a three-quarter view the far
	// front tyre peeks out under the body next to the near one, higher in
	// the picture than either end's lowest point. A tyre (dark and round,
	// not a sill's lower edge) may stand higher than maxRise.
	for _, t := range tyreContacts(g, box) {
		if p := (Point{t.at.X / g.sx, t.at.Y / g.sy}); lowest-p.Y <= maxTyreRise*float64(s.Box.Dy()) {
			out = append(out, p)
		}
	}
	return out
}

// maxTyreRise is maxRise for a point tyreContacts found: a camera raised
// higher than a turntable's, as a dealer's on a step, shows a far front
// tyre up to nearly half the car's height above the near front one.
const maxTyreRise = 0.5

// maxRise is how much higher than the car's lowest point, as a share of
// its height, a point may stand and still be a wheel on the floor. Seen
// from a raised camera, as turntable photos are, the far wheels of a
// three-quarter view stand up to about a third of the car's height above
// the near ones; a "wheel" higher still is a bumper or a sill, and
// standing on it would sink the rest of the car into the floor.
const maxRise = 0.4

// standOnWheels moves the ground line onto the wheels' contact points:
// where the car touches the floor, not its box's bottom (a bumper or the
// near wheel of a three-quarter view hangs below the far wheels). With
// level, it also sets the angle that levels a tilted photo (levelTilt).
// When no two wheels are found the box's bottom stays the ground line.
func (s *Scene) standOnWheels(level bool) {
	g := s.workGrid()
	l, r, ok := wheelContacts(g, g.toWork(s.Box))
	s.Level, s.Keypoints = 0, false
	if !ok {
		return
	}
	l, r = Point{l.X / g.sx, l.Y / g.sy}, Point{r.X / g.sx, r.Y / g.sy}
	lowest := float64(s.Box.Max.Y)
	if lowest-math.Min(l.Y, r.Y) > maxRise*float64(s.Box.Dy()) {
		return
	}
	s.Ground = GroundLine{Left: l, Right: r}
	s.Keypoints = true
	if t, ok := s.levelTilt(); level && ok {
		s.Level = -t
	}
}

// levelTilt returns the photo's tilt that levelling corrects (as
// GroundLine.Tilt: positive when the right end is lower): the tilt of
// the line through the tyres' contact points (tyreTilt) when it is one
// (at most maxLevel) and the photo does not cut the car: a car cut by the
// frame keeps its cut edge along the canvas's edge, which a turn would
// take off it.
func (s *Scene) levelTilt() (float64, bool) {
	t, ok := tyreTilt(s)
	if !ok || math.Abs(t) > maxLevel || cutEdges(s.Matte, s.Box) != (edges{}) {
		return 0, false
	}
	return t, true
}

// wheelContacts finds two wheels' ground-contact points on the working
// grid, left one first: the lowest tyre tyreContacts finds and the
// lowest other one at least a quarter of the car's length away from it,
// on either side (in a three-quarter view the two near wheels are not one
// in each half). The lowest runs of the outline alone are not enough: in
// a three-quarter view a bumper's corner hangs lower than the far wheels,
// and under a long sill the middle of the sill is lower than the rear
// tyre.
func wheelContacts(g *workGrid, box image.Rectangle) (l, r Point, ok bool) {
	return groundTyres(tyreContacts(g, box), box)
}

// groundTyres is wheelContacts for tyres tyreContacts has already found,
// for a caller that needs both.
func groundTyres(tyres []tyre, box image.Rectangle) (l, r Point, ok bool) {
	if len(tyres) < 2 {
		return l, r, false
	}
	a := slices.MaxFunc(tyres, func(p, q tyre) int { return cmp.Compare(p.at.Y, q.at.Y) })
	found := false
	var b Point
	for _, t := range tyres {
		if math.Abs(t.at.X-a.at.X) >= float64(box.Dx())/4 && (!found || t.at.Y > b.Y) {
			b, found = t.at, true
		}
	}
	if !found {
		return l, r, false
	}
	if b.X < a.at.X {
		return b, a.at, true
	}
	return a.at, b, true
}

// bottomProfile returns, for each working-grid column of box, the row
// (sub-pixel) where the car's outline ends at the bottom, or -1 where the
// column holds no car.
func bottomProfile(g *workGrid, box image.Rectangle) []float64 {
	bottom := make([]float64, box.Dx())
	for i := range bottom {
		x := box.Min.X + i
		bottom[i] = -1
		for y := box.Max.Y - 1; y >= box.Min.Y; y-- {
			m := float64(g.matte.Pix[y*g.w+x])
			if m > 0.5 {
				// Sub-pixel: the soft edge below says how far the car
				// reaches into the next row.
				next := 0.0
				if y+1 < g.h {
					next = float64(g.matte.Pix[(y+1)*g.w+x])
				}
				bottom[i] = float64(y+1) + next
				break
			}
		}
	}
	return bottom
}

// lowestRun returns the middle of the contiguous lowest run of the bottom
// profile in columns [lo, hi) of box: where a tyre meets the floor, if a
// tyre is there.
func lowestRun(bottom []float64, box image.Rectangle, lo, hi int) (Point, bool) {
	tol := math.Max(1, float64(box.Dy())/100)
	im := -1
	for i := lo; i < hi; i++ {
		if bottom[i] >= 0 && (im < 0 || bottom[i] > bottom[im]) {
			im = i
		}
	}
	if im < 0 {
		return Point{}, false
	}
	low := bottom[im]
	i0, i1 := im, im
	for i0 > lo && bottom[i0-1] >= low-tol {
		i0--
	}
	for i1 < hi-1 && bottom[i1+1] >= low-tol {
		i1++
	}
	var sy float64
	for i := i0; i <= i1; i++ {
		sy += bottom[i]
	}
	return Point{float64(box.Min.X) + float64(i0+i1+1)/2, sy / float64(i1-i0+1)}, true
}
