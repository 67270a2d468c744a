package pipeline

import (
	"context"
	"image"
	"image/color"
	"math"

	"github.com/showroom/showroom/internal/imaging"
)

// resize is ResizeProcessor: the output's size. With one side given the
// other follows the aspect; with both, fit says how the canvas goes in.
type resize struct {
	width, height int
	fit           string
	pad           color.NRGBA
}

func newResize(p Params) step {
	r, g, b := p.RGB("background")
	return resize{width: p.Int("width"), height: p.Int("height"), fit: p.String("fit"), pad: color.NRGBA{r, g, b, 255}}
}

func (r resize) apply(ctx context.Context, _ *run, s *Scene) error {
	if r.width == 0 && r.height == 0 {
		s.Output = nil
		return nil
	}
	s.Output = &OutputSize{Width: r.width, Height: r.height, Fit: r.fit, Pad: r.pad}
	return nil
}

// resizeCanvas scales img to the output size o.
func resizeCanvas(img *image.NRGBA, o OutputSize) *image.NRGBA {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	sz := o.size(img.Rect.Size())
	w, h := sz.X, sz.Y
	if o.Width == 0 || o.Height == 0 {
		return resample(img, img.Rect, w, h)
	}
	switch o.Fit {
	case FitFill:
		return resample(img, img.Rect, w, h)
	case FitCover:
		// The largest centred part of the canvas with the output's aspect.
		cw, ch := W, int(math.Round(float64(W)*float64(h)/float64(w)))
		if ch > H {
			cw, ch = int(math.Round(float64(H)*float64(w)/float64(h))), H
		}
		x0, y0 := (W-cw)/2, (H-ch)/2
		return resample(img, image.Rect(x0, y0, x0+cw, y0+ch), w, h)
	}
	sc := math.Min(float64(w)/float64(W), float64(h)/float64(H))
	iw, ih := max(int(math.Round(float64(W)*sc)), 1), max(int(math.Round(float64(H)*sc)), 1)
	in := resample(img, img.Rect, iw, ih)
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	pad := o.Pad
	if !opaque(img) {
		// A cut-out stays on transparency: padding it with a colour would
		// put a coloured band beside a transparent car.
		pad = color.NRGBA{}
	}
	for i := 0; i < len(out.Pix); i += 4 {
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = pad.R, pad.G, pad.B, pad.A
	}
	x0, y0 := (w-iw)/2, (h-ih)/2
	for y := range ih {
		copy(out.Pix[(y0+y)*out.Stride+4*x0:], in.Pix[y*in.Stride:y*in.Stride+4*iw])
	}
	return out
}

// opaque reports whether every pixel of img is opaque.
func opaque(img *image.NRGBA) bool {
	for i := 3; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 255 {
			return false
		}
	}
	return true
}

// resample scales the part r of img to w×h with a triangle filter as
// wide as the reduction (plain bilinear when enlarging), on premultiplied
// linear values, separably.
//
// The pass between is w×r.Dy() (rows first) or r.Dx()×h (columns first):
// rows first, unless that widens while the columns narrow, where the pass
// would be larger than both the part and the result (a 8×7,500,000 canvas
// filled to 8192×8192 would need one of 61 billion values). Either way the
// pass is no larger than the larger of the two, which checkSizes bounds.
func resample(img *image.NRGBA, r image.Rectangle, w, h int) *image.NRGBA {
	if w > r.Dx() && h < r.Dy() {
		return resampleColumnsFirst(img, r, w, h)
	}
	return resampleRowsFirst(img, r, w, h)
}

// Resample returns img scaled to w×h as ResizeProcessor scales the
// output, for the tools that draw pictures of results (the gallery's
// contact sheets, the docs' pictures).
func Resample(img *image.NRGBA, w, h int) *image.NRGBA { return resample(img, img.Rect, w, h) }

// resampleRowsFirst is resample with the horizontal pass first: into
// w×r.Dy() premultiplied linear values, then down into w×h.
func resampleRowsFirst(img *image.NRGBA, r image.Rectangle, w, h int) *image.NRGBA {
	tx, ty := imaging.ResampleTaps(r.Dx(), w), imaging.ResampleTaps(r.Dy(), h)
	// Horizontal pass into premultiplied linear floats.
	mid := make([]float32, 4*w*r.Dy())
	imaging.Parallel(r.Dy(), func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row := img.Pix[(r.Min.Y+y)*img.Stride+4*r.Min.X:]
			for x, t := range tx {
				var cr, cg, cb, ca float32
				for j, wt := range t.W {
					p := row[4*(t.Start+j):]
					a := float32(p[3]) / 255 * wt
					cr += srgbToLinear[p[0]] * a
					cg += srgbToLinear[p[1]] * a
					cb += srgbToLinear[p[2]] * a
					ca += a
				}
				m := mid[4*(y*w+x):]
				m[0], m[1], m[2], m[3] = cr, cg, cb, ca
			}
		}
	})
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t := ty[y]
			for x := range w {
				var cr, cg, cb, ca float32
				for j, wt := range t.W {
					m := mid[4*((t.Start+j)*w+x):]
					cr += m[0] * wt
					cg += m[1] * wt
					cb += m[2] * wt
					ca += m[3] * wt
				}
				putLinear(out.Pix[y*out.Stride+4*x:], cr, cg, cb, ca, 1)
			}
		}
	})
	return out
}

// resampleColumnsFirst is resample with the vertical pass first: into
// r.Dx()×h premultiplied linear values, then across into w×h.
func resampleColumnsFirst(img *image.NRGBA, r image.Rectangle, w, h int) *image.NRGBA {
	tx, ty := imaging.ResampleTaps(r.Dx(), w), imaging.ResampleTaps(r.Dy(), h)
	W := r.Dx()
	mid := make([]float32, 4*W*h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t := ty[y]
			m := mid[4*y*W : 4*(y+1)*W]
			for j, wt := range t.W {
				row := img.Pix[(r.Min.Y+t.Start+j)*img.Stride+4*r.Min.X:]
				for x := range W {
					p := row[4*x : 4*x+4 : 4*x+4]
					a := float32(p[3]) / 255 * wt
					m[4*x] += srgbToLinear[p[0]] * a
					m[4*x+1] += srgbToLinear[p[1]] * a
					m[4*x+2] += srgbToLinear[p[2]] * a
					m[4*x+3] += a
				}
			}
		}
	})
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			m := mid[4*y*W:]
			for x, t := range tx {
				var cr, cg, cb, ca float32
				for j, wt := range t.W {
					p := m[4*(t.Start+j):]
					cr += p[0] * wt
					cg += p[1] * wt
					cb += p[2] * wt
					ca += p[3] * wt
				}
				putLinear(out.Pix[y*out.Stride+4*x:], cr, cg, cb, ca, 1)
			}
		}
	})
	return out
}
