// Package glasstrain trains the glass detector's models on annotated
// photos and scores them as the processor runs them: the deep model
// (glass_probe.json) and the hand-made-feature one (glass_model.json),
// which the pipeline embeds. cmd/glasstrain runs it (make glass-model);
// the service does not link it.
package glasstrain

// This file trains the hand-made-feature model.

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// Example is one photo of the glass training set: the photo, the
// segmenter's mask of it, and its annotation (Windows: glass; Never: parts
// that are never glass; the rest of the car is unannotated).
type Example struct {
	Name           string
	Photo          *image.NRGBA
	Mask           *vision.Mask
	Windows, Never *image.Gray
}

// glassTraining holds the settings the model is trained with
// (docs/glass-and-shadow.md states them beside the cross-validated scores).
var glassTraining = struct {
	boostParams
	// RestWeight is the weight of car pixels that are neither annotated
	// glass nor never-glass (doors, roof, pillars, side windows): enough to
	// keep the roof and pillars opaque, little enough that unannotated side
	// windows do not teach the model that glass is body.
	RestWeight float32
	// Sample keeps one pixel in Sample for training: neighbours say the
	// same, and the whole set would take minutes.
	Sample int
}{boostParams{Trees: 120, Depth: 5, Rate: 0.1, MinLeaf: 5, Lambda: 1, Bins: 64, Features: pipeline.GlassFeatureCount}, 0.15, 5}

// glassSet is an example prepared for training: its candidates' inputs
// and its labels on the glass grid.
type glassSet struct {
	in             *pipeline.GlassInputs
	windows, never []bool // on the glass grid, for training
	ex             Example
}

func prepareGlass(ex Example) glassSet {
	in := pipeline.NewGlassInputs(ex.Photo, ex.Mask)
	return glassSet{in: in, windows: in.OnGrid(ex.Windows), never: in.OnGrid(ex.Never), ex: ex}
}

func trainGlass(sets []glassSet) pipeline.BoostModel {
	p := glassTraining
	var x, y, w []float32
	for _, s := range sets {
		for j, i := range s.in.Cells {
			if !sampled(i, p.Sample) {
				continue
			}
			lab, wt := label(s.windows[i], s.never[i], p.RestWeight)
			x = append(x, s.in.Hand[j*pipeline.GlassFeatureCount:(j+1)*pipeline.GlassFeatureCount]...)
			y = append(y, lab)
			w = append(w, wt)
		}
	}
	return trainBoost(x, y, w, p.boostParams)
}

// score runs the photo through the glass path the processor runs, with
// model m (regions, the working grid, refinement to full resolution), and
// scores the full-resolution layer against the annotation.
func (s glassSet) score(m *pipeline.BoostModel) Result {
	layer := s.in.BoostLayer(m)
	return result(s.ex, layer)
}

// TrainGlassModel trains the glass model on every example and returns it
// as the JSON that glass_model.json holds.
func TrainGlassModel(examples []Example) ([]byte, error) {
	if len(examples) == 0 {
		return nil, fmt.Errorf("glasstrain: no glass examples")
	}
	sets := make([]glassSet, len(examples))
	for i, ex := range examples {
		sets[i] = prepareGlass(ex)
	}
	m := trainGlass(sets)
	return json.Marshal(m)
}

// CrossValidateGlass scores the glass model on photos it was not trained
// on: the examples are split into folds (every folds-th photo), a model is
// trained on all folds but one and scored on that one. This is the number
// to expect on photos like these that nobody tuned on.
func CrossValidateGlass(examples []Example, folds int) []Result {
	sets := make([]glassSet, len(examples))
	for i, ex := range examples {
		sets[i] = prepareGlass(ex)
	}
	return crossValidate(sets, folds, trainGlass, func(i int, m *pipeline.BoostModel) Result { return sets[i].score(m) })
}

// boostParams are the training settings of a pipeline.BoostModel.
type boostParams struct {
	Trees    int
	Depth    int
	Rate     float64
	MinLeaf  float64 // least hessian weight in a leaf
	Lambda   float64 // L2 penalty on leaf values
	Bins     int     // candidate thresholds per feature (quantiles)
	Features int     // length of a feature vector
}

// trainBoost fits a pipeline.BoostModel with logistic loss on rows of features
// (row-major, p.Features each), their labels (0 or 1) and weights, by
// histogram-based gradient boosting: each feature is cut at quantile
// thresholds once, and every split is found over those bins.
func trainBoost(x []float32, y, wt []float32, p boostParams) pipeline.BoostModel {
	n := len(y)
	nf := p.Features
	// Thresholds per feature: distinct quantiles.
	thr := make([][]float32, nf)
	col := make([]float32, n)
	for f := range nf {
		for i := range n {
			col[i] = x[i*nf+f]
		}
		slices.Sort(col)
		var t []float32
		for b := 1; b < p.Bins; b++ {
			v := col[b*n/p.Bins]
			if len(t) == 0 || v > t[len(t)-1] {
				t = append(t, v)
			}
		}
		thr[f] = t
	}
	// Each sample's bin per feature: the number of thresholds <= value.
	bin := make([]uint8, n*nf)
	for i := range n {
		for f := range nf {
			v := x[i*nf+f]
			b, _ := slices.BinarySearchFunc(thr[f], v, func(t, v float32) int {
				if t <= v {
					return -1
				}
				return 1
			})
			bin[i*nf+f] = uint8(b)
		}
	}
	var pos, tot float64
	for i := range n {
		pos += float64(y[i] * wt[i])
		tot += float64(wt[i])
	}
	base := math.Log(pos / math.Max(tot-pos, 1e-9))
	m := pipeline.BoostModel{Base: float32(base)}
	score := make([]float64, n)
	for i := range score {
		score[i] = base
	}
	g, h := make([]float64, n), make([]float64, n)
	idx := make([]int32, n)
	for range p.Trees {
		for i := range n {
			pr := 1 / (1 + math.Exp(-score[i]))
			g[i] = (pr - float64(y[i])) * float64(wt[i])
			h[i] = math.Max(pr*(1-pr), 1e-6) * float64(wt[i])
		}
		for i := range idx {
			idx[i] = int32(i)
		}
		var tr pipeline.BoostTree
		alloc := func() int {
			tr.Feat, tr.Thr, tr.Left, tr.Value = append(tr.Feat, 0), append(tr.Thr, 0), append(tr.Left, 0), append(tr.Value, 0)
			return len(tr.Left) - 1
		}
		var grow func(rows []int32, depth, node int)
		grow = func(rows []int32, depth, node int) {
			var G, H float64
			for _, r := range rows {
				G += g[r]
				H += h[r]
			}
			tr.Value[node] = float32(-G / (H + p.Lambda) * p.Rate)
			if depth == p.Depth || H < 2*p.MinLeaf {
				return
			}
			best, bf, bb := 0.0, -1, 0
			parent := G * G / (H + p.Lambda)
			var hg, hh [256]float64
			for f := range nf {
				nb := len(thr[f]) + 1
				clear(hg[:nb])
				clear(hh[:nb])
				for _, r := range rows {
					b := bin[int(r)*nf+f]
					hg[b] += g[r]
					hh[b] += h[r]
				}
				var lg, lh float64
				for b := 0; b < nb-1; b++ {
					lg += hg[b]
					lh += hh[b]
					rg, rh := G-lg, H-lh
					if lh < p.MinLeaf || rh < p.MinLeaf {
						continue
					}
					if gain := lg*lg/(lh+p.Lambda) + rg*rg/(rh+p.Lambda) - parent; gain > best {
						best, bf, bb = gain, f, b
					}
				}
			}
			if bf < 0 {
				return
			}
			// Samples in bins 0..bb go left: their values are below
			// threshold bb.
			left := rows[:0:0]
			right := rows[:0:0]
			for _, r := range rows {
				if int(bin[int(r)*nf+bf]) <= bb {
					left = append(left, r)
				} else {
					right = append(right, r)
				}
			}
			tr.Feat[node], tr.Thr[node] = uint8(bf), thr[bf][bb]
			l := alloc()
			alloc()
			tr.Left[node] = uint16(l)
			grow(left, depth+1, l)
			grow(right, depth+1, l+1)
		}
		grow(idx, 0, alloc())
		m.Trees = append(m.Trees, tr)
		for i := range n {
			score[i] += float64(m.Trees[len(m.Trees)-1].Leaf(x[i*nf : (i+1)*nf]))
		}
	}
	return m
}
