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
	s.Background = Background{Kind: BackgroundColor, Color: p.color}
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

// wheelContacts finds the wheels' ground-contact points on the working
// grid from the car's bottom profile: in each half of the car, the lowest
// run of the outline is where the tyre meets the floor (bumpers and sills
// between the wheels ride higher). It returns the points at the bottom
// edge of those runs.
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
	contact := func(lo, hi int) (Point, bool) {
		low := -1.0
		for i := lo; i < hi; i++ {
			low = math.Max(low, bottom[i])
		}
		if low < 0 {
			return Point{}, false
		}
		var sx, sy, n float64
		for i := lo; i < hi; i++ {
			if bottom[i] >= low-tol {
				sx += float64(box.Min.X+i) + 0.5
				sy += bottom[i]
				n++
			}
		}
		return Point{sx / n, sy / n}, true
	}
	l, okl := contact(0, bw/2)
	r, okr := contact(bw/2, bw)
	return l, r, okl && okr && r.X-l.X > float64(bw)/4
}
