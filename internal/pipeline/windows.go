package pipeline

import (
	"context"
	"image"
	"math"
	"slices"
)

// windows is SemiTransparentWindowsProcessor: it finds the glass and lets
// the new background show through it at windowTransparency, the glass's
// own brightness scaled by windowBrightness.
type windows struct {
	transparency, brightness float64
}

func newWindows(p Params) step {
	return windows{transparency: p.Float("windowTransparency"), brightness: p.Float("windowBrightness")}
}

func (w windows) apply(ctx context.Context, r *run, s *Scene) error {
	if !s.hasCar() {
		return nil
	}
	s.Glass, s.WindowTransparency, s.WindowBrightness = s.detectGlass(), w.transparency, w.brightness
	return nil
}

// findGlass returns, on the working grid, how much each car pixel is
// glass. Five cues find glass, each only in the upper part of the car and
// away from its outline (so the roof line, pillars' edges, body panels
// below the belt line and the tyres stay opaque):
//   - see-through: the segmentation model left the pixel out although it
//     lies inside the car's outline — the old background shows there;
//   - tinted background: the pixel has the hue of the background beside the
//     car at that height, darker, as through tinted glass;
//   - dark glass: dark and unsaturated, the usual look of a window onto a
//     dark interior;
//   - light car: on a light car, glass is far darker than the paint;
//   - grey on colour: on clearly coloured paint, a pixel far greyer than
//     the paint that does not carry the paint's chroma (reflections on
//     glass; a reflection on paint keeps it),
//
// and no pixel coloured like the car's own body panels is glass, whatever
// the cues say. A region found is a window only if it is shaped and placed
// like one: large and broad (not a strip along the doors), reaching up
// near the roof line, ending above the belt line, framed by the car rather
// than lying along its outline, and not under another window.
func findGlass(g *workGrid, box image.Rectangle, raw *image.Gray) plane {
	w, h := g.w, g.h
	out := newPlane(w, h)
	bw, bh := box.Dx(), box.Dy()
	if bw < 8 || bh < 8 {
		return out
	}
	if raw != nil && raw.Rect.Dx() != w {
		raw = nil
	}
	car := make([]bool, w*h)
	for i, m := range g.matte.p {
		car[i] = m > 0.5
	}
	inner := erode(car, w, h, max(bw/100, 2))

	// The old background's colour at each height, from beside the car.
	var bgc [3][]float32
	for c := range bgc {
		bgc[c] = make([]float32, h)
	}
	for y := box.Min.Y; y < box.Max.Y; y++ {
		var sum [3]float32
		n := 0
		for x := max(box.Min.X-bw/2, 0); x < min(box.Max.X+bw/2, w); x++ {
			if i := y*w + x; g.matte.p[i] < 0.05 {
				for c := range 3 {
					sum[c] += g.rgb[c].p[i]
				}
				n++
			}
		}
		if n > 0 {
			for c := range 3 {
				bgc[c][y] = sum[c] / float32(n)
			}
		}
	}
	for c := range bgc {
		fillGaps(bgc[c][box.Min.Y:box.Max.Y])
	}

	// The body colour: the median of the band between the windows' lower
	// edge and the wheel arches.
	var body [3]float32
	{
		var vals [3][]float32
		for y := box.Min.Y + bh*55/100; y < box.Min.Y+bh*75/100; y++ {
			for x := box.Min.X; x < box.Max.X; x++ {
				if i := y*w + x; inner[i] {
					for c := range 3 {
						vals[c] = append(vals[c], g.rgb[c].p[i])
					}
				}
			}
		}
		for c := range 3 {
			if len(vals[c]) > 0 {
				slices.Sort(vals[c])
				body[c] = vals[c][len(vals[c])/2]
			}
		}
	}
	bodyLum := 0.2126*body[0] + 0.7152*body[1] + 0.0722*body[2]
	bodySat := saturation(body)
	bodyChroma := chroma(body)

	// Heights are measured per column, from the car's top to its bottom
	// in that column: windows sit in the upper half of the car wherever
	// they are, while a box-relative height would be thrown off by a
	// raised tailgate or anything else the matte holds above the roof.
	top, bottom := make([]int, w), make([]int, w)
	for x := box.Min.X; x < box.Max.X; x++ {
		top[x], bottom[x] = -1, -1
		for y := box.Min.Y; y < box.Max.Y; y++ {
			if car[y*w+x] {
				if top[x] < 0 {
					top[x] = y
				}
				bottom[x] = y + 1
			}
		}
	}
	height := make([]float32, w*h)
	// When the body itself has the background's hue (a white or silver
	// car in a white studio), a darker background-coloured patch may be
	// shaded paint as well as glass: that cue is then left out.
	bodyLike := cosine(body, [3]float32{bgc[0][box.Min.Y+bh/2], bgc[1][box.Min.Y+bh/2], bgc[2][box.Min.Y+bh/2]}) > 0.985
	score := make([]bool, w*h)
	paint := make([]bool, w*h) // body-coloured
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			i := y*w + x
			if !inner[i] || top[x] < 0 || bottom[x]-top[x] < bh/4 {
				continue
			}
			yr := float64(y-top[x]) / float64(bottom[x]-top[x])
			height[i] = float32(yr)
			// ... and have a good part of the car's height below them: the
			// upper half of a wheel, in a column where the body above it is
			// thin, has not.
			prior := (1 - smoothstep(0.5, 0.6, yr)) * smoothstep(0.34, 0.42, float64(bottom[x]-y)/float64(bh))
			if prior <= 0 {
				continue
			}
			px := [3]float32{g.rgb[0].p[i], g.rgb[1].p[i], g.rgb[2].p[i]}
			// Body-coloured pixels are never glass.
			var dist float32
			for c := range 3 {
				dist = max(dist, abs32(px[c]-body[c]))
			}
			if dist < 0.03+0.25*bodyLum {
				paint[i] = true
				continue
			}
			var cue float64
			if raw != nil && raw.Pix[y*raw.Stride+x] == 0 {
				cue = 1
			}
			b := [3]float32{bgc[0][y], bgc[1][y], bgc[2][y]}
			lum := float64(g.lum.p[i])
			bl := float64(0.2126*b[0] + 0.7152*b[1] + 0.0722*b[2])
			if bl > 0.01 && !bodyLike {
				ratio := lum / bl
				cos := cosine(px, b)
				cue = math.Max(cue, smoothstep(0.985, 0.998, cos)*smoothstep(0.08, 0.15, ratio)*(1-smoothstep(0.55, 0.7, ratio)))
			}
			sat := saturation(px)
			cue = math.Max(cue, (1-smoothstep(0.04, 0.08, lum))*(1-smoothstep(0.25, 0.4, sat)))
			// On clearly coloured paint, glass is far greyer than the
			// paint, whatever it reflects. Shaded paint keeps its
			// saturation, and paint reflecting a light (a roof under the
			// studio's ceiling) keeps its chroma: a reflection adds light
			// of every colour alike. Both are measured in linear light;
			// dark paint (navy, maroon) has too little chroma to tell
			// through a JPEG's colour noise.
			if bodySat > 0.4 && bodyChroma > 0.07 {
				along := chromaAlong(px, body)
				cue = math.Max(cue, (1-smoothstep(0.3*bodySat, 0.5*bodySat, sat))*(1-smoothstep(0.2, 0.4, along)))
			}
			// On a light car, glass is far darker than the paint, whatever
			// reflections tint it.
			if bodyLum > 0.15 {
				cue = math.Max(cue, (1-smoothstep(0.25, 0.4, lum/float64(bodyLum)))*(1-smoothstep(0.45, 0.6, sat)))
			}
			score[i] = cue*prior > 0.5
		}
	}
	// Close small gaps (reflections, wipers), then keep window-sized
	// regions that end above the belt line.
	closeR := max(bh/150, 1)
	score = erode(dilate(score, w, h, closeR), w, h, closeR)
	labels, comps := components(score, w, h)
	lowest, highest := make([]float32, len(comps)), make([]float32, len(comps))
	for l := range highest {
		highest[l] = 1
	}
	for i, l := range labels {
		if l >= 0 {
			lowest[l] = max(lowest[l], height[i])
			highest[l] = min(highest[l], height[i])
		}
	}
	// A window is framed by the car: roof, pillars, doors or bonnet. A
	// dark part that lies along the car's outline instead (a mirror
	// housing, a spoiler, a black roof edge) is not glass.
	edge, rim := make([]int, len(comps)), make([]int, len(comps))
	for i, l := range labels {
		if l < 0 {
			continue
		}
		x, y := i%w, i/w
		border, outside := false, false
		for _, n := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
			if n[0] < 0 || n[1] < 0 || n[0] >= w || n[1] >= h {
				border, outside = true, true
				continue
			}
			j := n[1]*w + n[0]
			if labels[j] != l {
				border = true
				if !inner[j] {
					outside = true
				}
			}
		}
		if border {
			edge[l]++
			if outside {
				rim[l]++
			}
		}
	}
	// A window is broad: the dark line where bonnet meets grille, a
	// chrome strip or a reflection along the doors is not, however long.
	// Its top is near the roof line in its columns, its bottom above the
	// belt line.
	notScore := make([]bool, w*h)
	for i, v := range score {
		notScore[i] = !v
	}
	depth := distanceTo(notScore, w, h)
	thick := make([]float32, len(comps))
	for i, l := range labels {
		if l >= 0 {
			thick[l] = max(thick[l], depth[i])
		}
	}
	minArea := max(bw*bh/500, 4)
	minThick := float32(max(0.035*float64(bh), 2))
	window := make([]bool, len(comps))
	for l, c := range comps {
		window[l] = c.area >= minArea && thick[l] >= minThick && highest[l] <= 0.3 && lowest[l] <= 0.62 && rim[l]*2 <= edge[l]
	}
	under := stacked(labels, window, comps, box, w)
	keep := make([]bool, w*h)
	for i, l := range labels {
		keep[i] = l >= 0 && window[l] && !under[l] && inner[i] && !paint[i]
	}
	// Reflections, stickers and wipers leave holes in a window; what is
	// wholly enclosed by glass is glass.
	fillEnclosed(keep, w, h)
	// Soften the glass's edge inwards only: blurring the region as found
	// would spread transparency onto the frames and pillars around it.
	// The softening is about two photo pixels on small photos and grows
	// with the photo, so that the working grid's steps do not show as a
	// staircase on a 12 MP result.
	soft := max(1, int(math.Round(0.5/g.sx)))
	for i, k := range erode(keep, w, h, soft) {
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

// saturation is HSV's: 0 grey, 1 a pure colour.
func saturation(c [3]float32) float64 {
	mx, mn := max(c[0], c[1], c[2]), min(c[0], c[1], c[2])
	return float64(mx-mn) / math.Max(float64(mx), 1e-4)
}

// chroma returns the length of c's chroma: c less its grey.
func chroma(c [3]float32) float64 {
	m := (c[0] + c[1] + c[2]) / 3
	var n float64
	for i := range 3 {
		n += float64((c[i] - m) * (c[i] - m))
	}
	return math.Sqrt(n)
}

// chromaAlong returns how much of ref's colour c carries: the projection
// of c's chroma (c less its grey) on ref's, in units of ref's. Adding or
// taking away grey light leaves it unchanged.
func chromaAlong(c, ref [3]float32) float64 {
	cm := (c[0] + c[1] + c[2]) / 3
	rm := (ref[0] + ref[1] + ref[2]) / 3
	var dot, rr float64
	for i := range 3 {
		dot += float64((c[i] - cm) * (ref[i] - rm))
		rr += float64((ref[i] - rm) * (ref[i] - rm))
	}
	if rr == 0 {
		return 0
	}
	return dot / rr
}

// stacked reports for each window region whether it lies under other
// window regions in most of its columns, and they are together at least
// as large as it: a column of a car crosses its greenhouse once, so glass
// below the windscreen (a dark reflection on the bonnet) is body. A
// windscreen split by its tinted top strip keeps its larger lower part.
func stacked(labels []int32, window []bool, comps []component, box image.Rectangle, w int) []bool {
	cols, below := make([]int, len(window)), make([]int, len(window))
	over := make([][]int32, len(window)) // the regions above each, in any column
	var met []int32                      // the window regions met so far in a column, top first
	for x := box.Min.X; x < box.Max.X; x++ {
		met = met[:0]
		for y := box.Min.Y; y < box.Max.Y; y++ {
			l := labels[y*w+x]
			if l < 0 || !window[l] || slices.Contains(met, l) {
				continue
			}
			cols[l]++
			if len(met) > 0 {
				below[l]++
			}
			for _, a := range met {
				if !slices.Contains(over[l], a) {
					over[l] = append(over[l], a)
				}
			}
			met = append(met, l)
		}
	}
	out := make([]bool, len(window))
	for l := range window {
		area := 0
		for _, a := range over[l] {
			area += comps[a].area
		}
		out[l] = below[l]*2 > cols[l] && area >= comps[l].area
	}
	return out
}

func abs32(v float32) float32 { return float32(math.Abs(float64(v))) }

func cosine(a, b [3]float32) float64 {
	var ab, aa, bb float64
	for c := range 3 {
		ab += float64(a[c] * b[c])
		aa += float64(a[c] * a[c])
		bb += float64(b[c] * b[c])
	}
	if aa == 0 || bb == 0 {
		return 0
	}
	return ab / math.Sqrt(aa*bb)
}

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

// dilate grows set by a square of radius r.
func dilate(set []bool, w, h, r int) []bool {
	return morph(set, w, h, r, true)
}

// erode shrinks set by a square of radius r.
func erode(set []bool, w, h, r int) []bool {
	return morph(set, w, h, r, false)
}

// morph is a separable square max (grow) or min filter of radius r; off
// the image counts as not set.
func morph(set []bool, w, h, r int, grow bool) []bool {
	tmp := make([]bool, w*h)
	out := make([]bool, w*h)
	pass := func(src, dst []bool, n, m, stride, step int) {
		for j := range m {
			base := j * stride
			// Count set samples in the window with a running sum.
			count := 0
			at := func(i int) bool { return i >= 0 && i < n && src[base+i*step] }
			for i := -r; i <= r; i++ {
				if at(i) {
					count++
				}
			}
			for i := range n {
				if grow {
					dst[base+i*step] = count > 0
				} else {
					dst[base+i*step] = count == 2*r+1
				}
				if at(i + r + 1) {
					count++
				}
				if at(i - r) {
					count--
				}
			}
		}
	}
	pass(set, tmp, w, h, w, 1)
	pass(tmp, out, h, w, 1, w)
	return out
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
