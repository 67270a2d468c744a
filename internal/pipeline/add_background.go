package pipeline

import (
	"context"
	"math"
)

// addBackground is AddBackgroundAndCropProcessor: the company's background
// image, scaled to cover the output, with its horizon where the car's
// ground line goes, and the car scaled and centred so that it stays inside
// the margins. The output is the crop of the covering background to
// outputWidth × outputHeight.
type addBackground struct {
	name                     string
	horizon                  float64
	left, right, top, bottom float64
	width, height            int
}

func newAddBackground(p Params) step {
	return addBackground{
		name: p.String("background"), horizon: p.Float("horizonLine"),
		left: p.Float("marginLeft"), right: p.Float("marginRight"),
		top: p.Float("marginTop"), bottom: p.Float("marginBottom"),
		width: p.Int("outputWidth"), height: p.Int("outputHeight"),
	}
}

func (a addBackground) apply(ctx context.Context, r *run, s *Scene) error {
	img, err := r.loadContent(ctx, a.name)
	if err != nil {
		return err
	}
	iw, ih := float64(img.Rect.Dx()), float64(img.Rect.Dy())
	ow, oh := float64(a.width), float64(a.height)
	switch {
	case a.width == 0 && a.height == 0:
		ow, oh = iw, ih
	case a.width == 0:
		ow = math.Round(oh * iw / ih)
	case a.height == 0:
		oh = math.Round(ow * ih / iw)
	}
	// Cover the output; put the background's horizon at the same share of
	// the output's height where the cover leaves room to move it.
	sc := math.Max(ow/iw, oh/ih)
	offX := (ow - iw*sc) / 2
	offY := math.Max(math.Min(a.horizon*oh-a.horizon*ih*sc, 0), oh-ih*sc)
	horizon := offY + a.horizon*ih*sc
	s.Canvas.X, s.Canvas.Y = int(ow), int(oh)
	s.Background = Background{Kind: BackgroundImage, Image: img, ImageScale: sc, ImageOffset: Point{offX, offY}}
	s.Floor = horizon
	if !s.hasCar() {
		return nil
	}
	// The car stands on the horizon unless that would break the bottom
	// margin, and is as large as the other margins allow.
	ground := math.Min(horizon, (1-a.bottom)*oh)
	anchor := s.anchor()
	above := math.Max(anchor.Y-float64(s.Box.Min.Y), 1)
	below := math.Max(float64(s.Box.Max.Y)-anchor.Y, 0)
	availW := (1 - a.left - a.right) * ow
	csc := availW / float64(s.Box.Dx())
	csc = math.Min(csc, (ground-a.top*oh)/above)
	if below > 0 {
		csc = math.Min(csc, ((1-a.bottom)*oh-ground)/below)
	}
	s.Place = Placement{Anchor: anchor, To: Point{a.left*ow + availW/2, ground}, Scale: math.Max(csc, minScale), Angle: s.Level}
	return nil
}
