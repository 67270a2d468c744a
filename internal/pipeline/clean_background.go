package pipeline

import (
	"context"
	"image/color"
	"math"
)

// cleanBackground is CleanBackgroundProcessor: the background becomes one
// colour. With enableShadow the car keeps a shadow: the detected one as it
// was in the photo, or, when none was detected, a soft synthetic contact
// shadow under the wheels, because a car on a flat colour without any
// shadow looks like it floats.
type cleanBackground struct {
	shadow bool
	color  color.NRGBA
}

func newCleanBackground(p Params) step {
	r, g, b := p.RGB("color")
	return cleanBackground{shadow: p.Bool("enableShadow"), color: color.NRGBA{r, g, b, 255}}
}

func (c cleanBackground) apply(ctx context.Context, r *run, s *Scene) error {
	s.Background = Background{Kind: BackgroundColor, Color: c.color}
	if !c.shadow {
		s.ShadowOpacity = 0
		return nil
	}
	if s.Shadow == nil || !s.ShadowDetected {
		if !s.hasCar() {
			return nil
		}
		d := contactShadow(s)
		s.Shadow, s.ShadowDetected = &d, false
		s.ShadowOpacity = 1
		return nil
	}
	// A detected shadow already placed keeps its opacity; otherwise it is
	// kept as dark as it was in the photo.
	if s.ShadowOpacity == 0 {
		s.ShadowOpacity = 1
	}
	return nil
}

// contactShadow draws, on the working grid, a soft dark ellipse along the
// car's ground line and a darker core under each wheel's contact point
// (the box's bottom corners when the wheels were not located).
func contactShadow(s *Scene) plane {
	g := s.workGrid()
	d := newPlane(g.w, g.h)
	box := g.toWork(s.Box)
	bw, bh := float64(box.Dx()), float64(box.Dy())
	l := Point{s.Ground.Left.X * g.sx, s.Ground.Left.Y * g.sy}
	rt := Point{s.Ground.Right.X * g.sx, s.Ground.Right.Y * g.sy}
	if !s.Keypoints {
		// Wheels sit roughly a sixth of the length in from the ends.
		l.X, rt.X = float64(box.Min.X)+bw/6, float64(box.Max.X)-bw/6
	}
	mid := Point{(l.X + rt.X) / 2, (l.Y + rt.Y) / 2}
	// The ellipse spans the car's length and a few percent of its height;
	// the cores are about a tyre wide.
	ax, ay := bw*0.55, math.Max(bh*0.05, 1.5)
	cx, cy := math.Max(bw*0.07, 1.5), math.Max(bh*0.025, 1)
	y0, y1 := int(mid.Y-4*ay), int(mid.Y+4*ay)+1
	x0, x1 := int(float64(box.Min.X)-bw*0.2), int(float64(box.Max.X)+bw*0.2)+1
	for y := max(y0, 0); y < min(y1, g.h); y++ {
		for x := max(x0, 0); x < min(x1, g.w); x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			gy := fy - (l.Y + (rt.Y-l.Y)*(fx-l.X)/math.Max(rt.X-l.X, 1))
			v := 0.35 * math.Exp(-0.5*(sq((fx-mid.X)/ax)*sq((fx-mid.X)/ax)+sq(gy/ay)))
			for _, c := range []Point{l, rt} {
				v += 0.45 * math.Exp(-0.5*(sq((fx-c.X)/cx)+sq((fy-c.Y)/cy)))
			}
			d.p[y*g.w+x] = float32(math.Min(v, 0.85))
		}
	}
	return d
}

func sq(v float64) float64 { return v * v }
