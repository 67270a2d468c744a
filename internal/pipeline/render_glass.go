package pipeline

import (
	"image"
	"slices"

	"github.com/showroom/showroom/internal/imaging"
)

// glassLook draws the car's glass as a tinted pane in front of the new
// background. A pane as photographed is its base level (the sky or the
// scene it mirrored, which does not belong in front of a new background)
// with the photo's own detail on it: reflections, lighter than the base,
// and the interior, darker than it. Keeping the whole photographed pane
// and mixing the new background in, as a plain blend does, lays that base
// over the background like a flat card, grey over white whenever the pane
// was photographed bright. Instead each pixel of the pane is, in linear
// light,
//
//	out = b·(1−t)²·m·L + b·(1−t)·(P − m·L) + t²·mₜ·B
//
// where P is the photographed pixel, L its pane's base level, m =
// min(1, lum P / lum L) how much darker than the base the pixel is, mₜ =
// 1 − (1−t²)·(1−m), B the new background, t windowTransparency and b
// windowBrightness. So:
//
//   - the background shows through at t² in linear light, which is about
//     t in perceived lightness (L* of t² is close to 100·t): at 0.5 about
//     half of a white studio's lightness shows, a neutral tint that reads
//     as glass; at 1 it shows whole (clear glass), at 0 not at all;
//   - the photo's base level fades by the same perceptual share, (1−t)²,
//     so at 0 the pane is as photographed (times b) and at 1 it is gone;
//   - the reflections above the base fade only linearly, (1−t): the pane
//     keeps its highlights longer than its base, which is what makes it
//     read as a glass surface and not a hole;
//   - the interior (seats, a dashboard, a headrest: darker than the base)
//     blocks the background seen through it, by m, as long as the glass
//     is not clear: that blocking fades only as the background's own share
//     t² grows, so the interior stays visible through tinted glass.
//
// windowBrightness scales the glass's own light (base and reflections),
// never the background seen through it. As a layer over the background
// the pane's alpha is 1 − t²·mₜ, so on a transparent background it keeps
// the same look once composited.
type glassLook struct {
	base, reflect, trans, interior float32 // weights: b(1−t)², b(1−t), t², 1−t²

	// Panes on the working grid: cell (x, y) of cells is pane
	// label[(y−cells.Min.Y)·w + x−cells.Min.X] (−1 none), whose base
	// level is level[label] (linear RGB) and levelY its luminance.
	sx, sy float64
	cells  image.Rectangle
	label  []int32
	level  [][3]float32
	levelY []float32
}

// paneReach is how many working cells past a pane's own cells (those
// whose centre is at least half glass) its base level reaches: the glass
// layer's soft rim, refined at full resolution, lies within about a cell
// and a half of them.
const paneReach = 2

// newGlassLook measures each pane's base level on the working grid, once
// per render: the median luminance of the pane's cells, with the pane's
// mean colour.
func (s *Scene) newGlassLook() *glassLook {
	t, b := float32(s.WindowTransparency), float32(s.WindowBrightness)
	l := &glassLook{base: b * (1 - t) * (1 - t), reflect: b * (1 - t), trans: t * t, interior: 1 - t*t}
	if s.Glass == nil || s.Glass.Rect.Empty() {
		return l
	}
	wg := s.workGrid()
	gl := s.Glass
	l.sx, l.sy = wg.sx, wg.sy
	l.cells = wg.toWork(gl.Rect)
	w, h := l.cells.Dx(), l.cells.Dy()
	own := make([]bool, w*h)
	for y := range h {
		Y := int((float64(l.cells.Min.Y+y) + 0.5) / wg.sy)
		for x := range w {
			X := int((float64(l.cells.Min.X+x) + 0.5) / wg.sx)
			own[y*w+x] = (image.Point{X, Y}).In(gl.Rect) && gl.Pix[gl.PixOffset(X, Y)] >= 128
		}
	}
	labels, panes := imaging.Label(own, w, h, false)
	lums := make([][]float32, len(panes))
	sums := make([][3]float64, len(panes))
	for i, p := range labels {
		if p < 0 {
			continue
		}
		j := (l.cells.Min.Y+i/w)*wg.w + l.cells.Min.X + i%w
		lums[p] = append(lums[p], wg.lum.Pix[j])
		for c := range 3 {
			sums[p][c] += float64(wg.rgb[c].Pix[j])
		}
	}
	l.level, l.levelY = make([][3]float32, len(panes)), make([]float32, len(panes))
	for p, v := range lums {
		slices.Sort(v)
		med := v[len(v)/2]
		n := float64(len(v))
		mean := [3]float32{float32(sums[p][0] / n), float32(sums[p][1] / n), float32(sums[p][2] / n)}
		k := float32(1)
		if my := luma(mean); my > 0 {
			k = med / my
		} else {
			mean = [3]float32{1, 1, 1}
			k = med
		}
		for c := range 3 {
			l.level[p][c] = mean[c] * k
		}
		l.levelY[p] = med
	}
	// The rim: cells next to a pane take its label.
	for range paneReach {
		grown := slices.Clone(labels)
		for i, p := range labels {
			if p >= 0 {
				continue
			}
			x, y := i%w, i/w
			switch {
			case x > 0 && labels[i-1] >= 0:
				grown[i] = labels[i-1]
			case x < w-1 && labels[i+1] >= 0:
				grown[i] = labels[i+1]
			case y > 0 && labels[i-w] >= 0:
				grown[i] = labels[i-w]
			case y < h-1 && labels[i+w] >= 0:
				grown[i] = labels[i+w]
			}
		}
		labels = grown
	}
	l.label = labels
	return l
}

// luma is the luminance of a linear RGB colour.
func luma(c [3]float32) float32 { return 0.2126*c[0] + 0.7152*c[1] + 0.0722*c[2] }

// levelAt returns the base level of the pane at photo point (px, py), or
// p itself (no reflection, no interior) off every pane.
func (l *glassLook) levelAt(px, py float64, p [3]float32) ([3]float32, float32) {
	x, y := int(px*l.sx)-l.cells.Min.X, int(py*l.sy)-l.cells.Min.Y
	if px >= 0 && py >= 0 && x >= 0 && y >= 0 && x < l.cells.Dx() && y < l.cells.Dy() {
		if pane := l.label[y*l.cells.Dx()+x]; pane >= 0 {
			return l.level[pane], l.levelY[pane]
		}
	}
	return p, luma(p)
}

// through returns the car's premultiplied linear colour (r, g, b, a) at
// photo point (px, py), where it is glass to the share g, as the layer
// drawn over the new background.
func (l *glassLook) through(r, gr, b, a, g float32, px, py float64) (float32, float32, float32, float32) {
	inv := 1 / a
	p := [3]float32{r * inv, gr * inv, b * inv}
	lv, lvY := l.levelAt(px, py, p)
	m := float32(1)
	if y := luma(p); y < lvY {
		m = y / lvY
	}
	var f [3]float32
	for c := range 3 {
		f[c] = max(0, l.base*m*lv[c]+l.reflect*(p[c]-m*lv[c])) * a
	}
	alpha := a * (1 - l.trans*(1-l.interior*(1-m)))
	k := 1 - g
	return r*k + f[0]*g, gr*k + f[1]*g, b*k + f[2]*g, a*k + alpha*g
}
