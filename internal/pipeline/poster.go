package pipeline

import (
	"context"
	"image"
	"math"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/imaging"
)

// poster is AddPosterProcessor: a logo or sign from POSTER content drawn
// over the result. Its rectangle is worked out at render time from the
// final canvas, so a later processor that changes the canvas moves it too.
type poster struct {
	name     string
	position string
	scale    float64
	opacity  float64
	margin   float64
}

func newPoster(p catalog.PosterParams) step {
	return poster{name: p.Poster, position: p.Position,
		scale: p.Scale, opacity: p.Opacity, margin: p.Margin}
}

func (p poster) apply(ctx context.Context, r *run, s *Scene) error {
	img, err := r.loadContent(ctx, p.name)
	if err != nil {
		return err
	}
	s.Posters = append(s.Posters, Poster{Image: img, Position: p.position, Scale: p.scale, Opacity: p.opacity, Margin: p.margin})
	return nil
}

// rect returns where the poster goes on a w×h canvas.
func (p Poster) rect(w, h int) image.Rectangle {
	iw, ih := float64(p.Image.Rect.Dx()), float64(p.Image.Rect.Dy())
	pw := math.Max(math.Round(p.Scale*float64(w)), 1)
	ph := math.Max(math.Round(pw*ih/iw), 1)
	m := math.Round(p.Margin * float64(w))
	x, y := m, m
	switch p.Position {
	case "top-right":
		x = float64(w) - m - pw
	case "bottom-left":
		y = float64(h) - m - ph
	case "bottom-right", "":
		x, y = float64(w)-m-pw, float64(h)-m-ph
	case "center":
		x, y = (float64(w)-pw)/2, (float64(h)-ph)/2
	}
	return image.Rect(int(x), int(y), int(x+pw), int(y+ph))
}

// drawPoster composites p over out in linear light.
func drawPoster(out *image.NRGBA, p Poster) {
	r := p.rect(out.Rect.Dx(), out.Rect.Dy())
	src := p.Image
	k := float64(src.Rect.Dx()) / float64(r.Dx())
	if n := int(k); n >= 2 {
		src = shrinkNRGBA(src, n)
		k /= float64(n)
	}
	op := float32(p.Opacity)
	vis := r.Intersect(out.Rect)
	imaging.Parallel(vis.Dy(), func(lo, hi int) {
		for y := vis.Min.Y + lo; y < vis.Min.Y+hi; y++ {
			for x := vis.Min.X; x < vis.Max.X; x++ {
				sr, sg, sb, sa := sampleNRGBA(src, (float64(x-r.Min.X)+0.5)*k, (float64(y-r.Min.Y)+0.5)*k, true)
				if sa == 0 {
					continue
				}
				sr, sg, sb, sa = sr*op, sg*op, sb*op, sa*op
				d := out.Pix[y*out.Stride+4*x : y*out.Stride+4*x+4 : y*out.Stride+4*x+4]
				da := float32(d[3]) / 255
				kk := 1 - sa
				putLinear(d, sr+srgbToLinear[d[0]]*da*kk, sg+srgbToLinear[d[1]]*da*kk, sb+srgbToLinear[d[2]]*da*kk, sa+da*kk, 1)
			}
		}
	})
}
