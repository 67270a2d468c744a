package glasstrain

import (
	"image"

	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// What both trainers share: which candidates they learn from, with which
// label and weight, and how they are scored on photos they never saw.

// sampled reports whether training keeps candidate cell i, one in every
// n: a fixed hash, so that training is reproducible, and neighbours say
// the same.
func sampled(i, n int) bool { return (uint64(i)*2654435761)%uint64(n) == 0 }

// label is a candidate's label and weight: annotated glass is glass and
// never-glass is not, both at weight 1; the rest of the car (unannotated)
// is not glass at weight rest.
func label(glass, never bool, rest float32) (lab, wt float32) {
	switch {
	case glass:
		return 1, 1
	case never:
		return 0, 1
	}
	return 0, rest
}

// crossValidate scores a model on photos it was not trained on: the
// prepared examples are split into folds by photo (every folds-th), a
// model is trained on all folds but one and score scores each photo i of
// that one with it.
func crossValidate[P, M any](prepared []P, folds int, train func([]P) M, score func(i int, m *M) Result) []Result {
	out := make([]Result, len(prepared))
	for f := range folds {
		var rest []P
		for i, p := range prepared {
			if i%folds != f {
				rest = append(rest, p)
			}
		}
		m := train(rest)
		for i := range prepared {
			if i%folds == f {
				out[i] = score(i, &m)
			}
		}
	}
	return out
}

// roofCells marks the candidate cells (cells, on a w×h grid) that lie
// above an annotated pane in its own columns, more than margin cells over
// the pane's top, and are neither glass nor never-glass: the roof, a
// spoiler or the frame over a windscreen or a rear window. The dataset
// annotates neither roofs nor doors, so without them a roof the model
// takes for glass costs it only RestWeight.
func roofCells(w, h int, cells []int, windows, never []bool, margin int) []bool {
	top := make([]int, w)
	for x := range top {
		top[x] = -1
		for y := range h {
			if windows[y*w+x] {
				top[x] = y
				break
			}
		}
	}
	roof := make([]bool, w*h)
	for _, i := range cells {
		x, y := i%w, i/w
		roof[i] = top[x] >= 0 && y < top[x]-margin && !windows[i] && !never[i]
	}
	return roof
}

// result scores the glass layer found on ex: recall and false glass, torn
// panes, and the glass over the roof.
func result(ex Example, layer *image.Gray) Result {
	return Result{vision.CompareGlass(layer, ex.Windows, ex.Never), pipeline.ScorePanes(layer, ex.Windows), layer, roofGlass(ex, layer)}
}

// roofGlass returns how much of ex's roof layer makes glass, as a share
// of the annotated panes' own area: a see-through roof as large as the
// windscreen under it is 1; -1 when the photo has no annotated pane. The
// roof is roofCells' at the photo's size, the car's matte its candidates
// and the margin 1% of the photo's height. The bars do not see it (the
// dataset annotates no roof), a dealer does.
func roofGlass(ex Example, layer *image.Gray) float64 {
	if ex.Windows == nil || ex.Mask == nil || ex.Mask.Alpha == nil {
		return -1
	}
	r := ex.Windows.Rect
	w, h := r.Dx(), r.Dy()
	windows, never, car := inside(ex.Windows, r), inside(ex.Never, r), inside(ex.Mask.Alpha, r)
	var cells []int
	panes := 0
	for i := range car {
		if car[i] {
			cells = append(cells, i)
		}
		if windows[i] {
			panes++
		}
	}
	if panes == 0 {
		return -1
	}
	hit := 0
	glass := inside(layer, r)
	for i, roof := range roofCells(w, h, cells, windows, never, max(1, h/100)) {
		if roof && glass[i] {
			hit++
		}
	}
	return float64(hit) / float64(panes)
}

// inside returns which pixels of r are inside g (at least 128); a nil g,
// and r beyond g, are inside nowhere.
func inside(g *image.Gray, r image.Rectangle) []bool {
	out := make([]bool, r.Dx()*r.Dy())
	if g == nil {
		return out
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if (image.Point{x, y}).In(g.Rect) && g.Pix[g.PixOffset(x, y)] >= 128 {
				out[(y-r.Min.Y)*r.Dx()+x-r.Min.X] = true
			}
		}
	}
	return out
}
