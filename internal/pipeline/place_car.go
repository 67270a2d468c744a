package pipeline

import (
	"context"
	"image"
	"image/color"
	"math"
)

// placeCar is PlaceCarProcessor: the car scaled into carWidth × carHeight
// of the canvas (aspect kept), its ground line on the horizon, centred, on
// a background colour.
type placeCar struct {
	horizon, width, height float64
	color                  color.NRGBA
	keypoints              bool
}

func newPlaceCar(p Params) step {
	r, g, b := p.RGB("background")
	return placeCar{
		horizon: p.Float("horizonLine"), width: p.Float("carWidth"), height: p.Float("carHeight"),
		color: color.NRGBA{r, g, b, 255}, keypoints: p.Bool("useKeypoints"),
	}
}

// maxLevel is the largest tilt useKeypoints corrects. A steeper line
// through the contact points is the perspective of a three-quarter view,
// and "levelling" it would tilt the car.
const maxLevel = 4 * math.Pi / 180

func (p placeCar) apply(ctx context.Context, r *run, s *Scene) error {
	s.Background, s.Floor = Background{Kind: BackgroundColor, Color: p.color}, 0
	if !s.hasCar() {
		return nil
	}
	if p.keypoints {
		s.useKeypoints()
	}
	cw, ch := float64(s.Canvas.X), float64(s.Canvas.Y)
	bw, bh := float64(s.Box.Dx()), float64(s.Box.Dy())
	sc := math.Max(math.Min(p.width*cw/bw, p.height*ch/bh), minScale)
	s.Place = Placement{Anchor: s.anchor(), To: Point{cw / 2, p.horizon * ch}, Scale: sc, Angle: s.Level}
	return nil
}

// minScale keeps a zero carWidth or carHeight from meaning "identity": the
// car becomes too small to see, as asked.
const minScale = 1e-4

// anchor is the photo point placed on the horizon: the car's ground line
// under the middle of its box, so the box is centred.
func (s *Scene) anchor() Point {
	cx := float64(s.Box.Min.X+s.Box.Max.X) / 2
	l, r := s.Ground.Left, s.Ground.Right
	y := l.Y
	if r.X != l.X {
		y = l.Y + (r.Y-l.Y)*(cx-l.X)/(r.X-l.X)
	}
	return Point{cx, y}
}

// useKeypoints moves the ground line onto the wheels' contact points and
// sets the levelling angle when the car is slightly tilted.
func (s *Scene) useKeypoints() {
	g := s.workGrid()
	l, r, ok := wheelContacts(g, g.toWork(s.Box))
	if !ok {
		return
	}
	s.Ground = GroundLine{Left: Point{l.X / g.sx, l.Y / g.sy}, Right: Point{r.X / g.sx, r.Y / g.sy}}
	s.Keypoints = true
	s.Level = 0
	if t := s.Ground.Tilt(); math.Abs(t) <= maxLevel {
		s.Level = -t
	}
}

// wheelContacts finds two wheels' ground-contact points on the working
// grid from the car's bottom profile: the lowest runs of the outline are
// where tyres meet the floor (bumpers and sills ride higher). It returns
// the points at the bottom edge of those runs, left one first.
func wheelContacts(g *workGrid, box image.Rectangle) (l, r Point, ok bool) {
	bw, bh := box.Dx(), box.Dy()
	if bw < 8 || bh < 8 {
		return l, r, false
	}
	bottom := make([]float64, bw)
	for i := range bottom {
		x := box.Min.X + i
		bottom[i] = -1
		for y := box.Max.Y - 1; y >= box.Min.Y; y-- {
			m := float64(g.matte.p[y*g.w+x])
			if m > 0.5 {
				// Sub-pixel: the soft edge below says how far the car
				// reaches into the next row.
				next := 0.0
				if y+1 < g.h {
					next = float64(g.matte.p[(y+1)*g.w+x])
				}
				bottom[i] = float64(y+1) + next
				break
			}
		}
	}
	tol := math.Max(1, float64(bh)/100)
	// contact returns the middle of the contiguous lowest run in [lo, hi).
	contact := func(lo, hi int) (Point, bool) {
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
	// The lowest tyre first, then the lowest one at least a quarter of the
	// car's length away from it, on either side: in a three-quarter view
	// the two near wheels are not one in each half.
	a, ok := contact(0, bw)
	if !ok {
		return l, r, false
	}
	ai := int(a.X) - box.Min.X
	var b Point
	found := false
	for _, span := range [][2]int{{0, ai - bw/4}, {ai + bw/4 + 1, bw}} {
		if span[1]-span[0] < 2 {
			continue
		}
		if c, ok := contact(max(span[0], 0), min(span[1], bw)); ok && (!found || c.Y > b.Y) {
			b, found = c, true
		}
	}
	if !found {
		return l, r, false
	}
	if b.X < a.X {
		return b, a, true
	}
	return a, b, true
}
