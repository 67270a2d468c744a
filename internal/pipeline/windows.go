package pipeline

import (
	"context"
	"image"
	"math"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/vision"
)

// windows is SemiTransparentWindowsProcessor: it finds the glass and lets
// the new background show through it at windowTransparency, the glass's
// own brightness scaled by windowBrightness.
type windows struct {
	transparency, brightness float64
}

func newWindows(p catalog.WindowsParams) step {
	return windows{transparency: p.Transparency, brightness: p.Brightness}
}

func (windows) finds() string { return "glass" }

func (w windows) apply(ctx context.Context, r *run, s *Scene) error {
	if !s.hasCar() {
		return nil
	}
	s.Glass, s.WindowTransparency, s.WindowBrightness = s.detectGlass(r.features), w.transparency, w.brightness
	return nil
}

// findGlass returns, on the working grid, how much each car pixel is
// glass (whole inside the regions found, their edge softened inwards by
// softenInward; refineGlass takes it to full resolution). A
// trained model (glassModel, see glass_features.go for what it looks at
// and docs/glass-and-shadow.md for how it was trained and measured) gives
// each pixel of the car's upper part a probability of being glass on a
// grid of about glassSide pixels; postGlass keeps the confident
// window-sized regions.
func findGlass(g *workGrid, box image.Rectangle, raw *image.Gray, feats []vision.Features, deep *probeModel) plane {
	gg := newGlassGrid(g, box, raw)
	prob := glassProb(gg, g, feats, deep)
	if prob == nil {
		return newPlane(g.w, g.h)
	}
	return glassOnWork(g, gg, postGlass(gg, prob))
}

// glassOnWork brings the glass regions found on the glass grid back onto
// the working grid, inside the car only, softened inwards.
func glassOnWork(g *workGrid, gg *glassGrid, glass []float32) plane {
	keep := make([]bool, g.w*g.h)
	small := plane{W: gg.w, H: gg.h, Pix: glass}
	inv := 1 / float64(gg.k)
	imaging.Parallel(g.h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range g.w {
				i := y*g.w + x
				if g.matte.Pix[i] > 0.5 {
					keep[i] = small.Sample((float64(x)+0.5)*inv, (float64(y)+0.5)*inv) >= 0.5
				}
			}
		}
	})
	return softenInward(keep, g.w, g.h, g.sx)
}

// softenInward returns the glass region keep as a layer whose edge is
// softened inwards only: blurring the region as found and keeping the blur
// outside it would spread transparency onto the frames and pillars around
// it. sx is working pixels per photo pixel. When the working grid is the
// photo, the layer is the result: its edge pixels are half glass, an
// anti-aliased outline of the region. When it is smaller, the layer is
// refined to full resolution (refineGlass), which needs a ramp inside the
// region, from none at its edge to whole about two photo pixels in, to fit
// the photographed frame to rather than the working grid's staircase.
func softenInward(keep []bool, w, h int, sx float64) plane {
	out := newPlane(w, h)
	soft := max(1, int(math.Round(0.5/sx)))
	core := keep
	if sx < 1 {
		core = imaging.ErodeFromEdge(keep, w, h, soft)
	}
	for i, k := range core {
		if k {
			out.Pix[i] = 1
		}
	}
	out.BoxBlur(soft)
	for i, k := range keep {
		if !k {
			out.Pix[i] = 0
		}
	}
	return out
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }
