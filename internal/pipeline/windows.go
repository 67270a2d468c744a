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
	small := plane{w: gg.w, h: gg.h, p: glass}
	inv := 1 / float64(gg.k)
	for y := range g.h {
		for x := range g.w {
			i := y*g.w + x
			if g.matte.p[i] > 0.5 {
				keep[i] = small.sample((float64(x)+0.5)*inv, (float64(y)+0.5)*inv) >= 0.5
			}
		}
	}
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
			out.p[i] = 1
		}
	}
	out.boxBlur(soft)
	for i, k := range keep {
		if !k {
			out.p[i] = 0
		}
	}
	return out
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

// component is a 4-connected region of a boolean image.
type component struct {
	area int
	box  image.Rectangle
}

// components labels the 4-connected regions of set; labels are -1 off set.
func components(set []bool, w, h int) ([]int32, []component) {
	labels := make([]int32, w*h)
	for i := range labels {
		labels[i] = -1
	}
	var comps []component
	var stack []int
	for start, on := range set {
		if !on || labels[start] >= 0 {
			continue
		}
		l := int32(len(comps))
		c := component{box: image.Rect(start%w, start/w, start%w+1, start/w+1)}
		labels[start] = l
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			c.area++
			c.box = c.box.Union(image.Rect(x, y, x+1, y+1))
			for _, n := range [4]int{i - 1, i + 1, i - w, i + w} {
				if n < 0 || n >= w*h || (n == i-1 && x == 0) || (n == i+1 && x == w-1) {
					continue
				}
				if set[n] && labels[n] < 0 {
					labels[n] = l
					stack = append(stack, n)
				}
			}
		}
		comps = append(comps, c)
	}
	return labels, comps
}

// fillEnclosed sets the regions of !set that do not reach the image's
// border, i.e. holes wholly surrounded by set.
func fillEnclosed(set []bool, w, h int) {
	not := make([]bool, w*h)
	for i, v := range set {
		not[i] = !v
	}
	labels, comps := components(not, w, h)
	for i, l := range labels {
		if l < 0 {
			continue
		}
		b := comps[l].box
		if b.Min.X > 0 && b.Min.Y > 0 && b.Max.X < w && b.Max.Y < h {
			set[i] = true
		}
	}
}
