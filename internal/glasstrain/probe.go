package glasstrain

// This file trains the deep glass model (the pipeline's glass_deep.go
// runs it).

import (
	"encoding/json"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// probeTraining holds the settings the deep model is trained with
// (docs/glass-and-shadow.md states them beside the cross-validated scores).
var probeTraining = struct {
	Hidden, Epochs, Batch int
	Rate, L2              float64
	// Sample keeps one candidate pixel in Sample per photo for training.
	Sample int
	// RestWeight: as glassTraining's.
	RestWeight float32
	// NeverWeight is the weight of a never-glass candidate (a bonnet, a
	// tailgate, a mirror), and NeverDensity how many times more of them
	// are kept for training than of the other candidates: the hard
	// negatives, the false glass a dealer sees first.
	NeverWeight  float32
	NeverDensity int
	// NearReach, when above 0, keeps the weight and density to the
	// never-glass candidates within that share of the car's size (√ of
	// its box's area) of annotated glass: the bonnet under a windscreen's
	// foot, the tailgate under a rear window, a mirror beside a side
	// window, where the false glass is joined to a pane.
	NearReach float32
	// PriorShift, when set, adds ln(NeverWeight·NeverDensity) to the
	// trained model's bias: the shift the extra weight of the never-glass
	// puts on the log-odds, given back everywhere, so that the
	// probabilities keep the meaning the pane thresholds were set for and
	// only the order the weighting learned (a bonnet below a pane's edge)
	// stays.
	PriorShift bool
	// Hand names the hand-made features the model reads (nil: the
	// pipeline's default ones).
	Hand []int
	// RoofWeight, when above 0, is the weight of a roof candidate (the
	// car above an annotated pane, more than RoofMargin glass-grid cells
	// over its top: roofCells) as not glass, in place of RestWeight. The
	// margin leaves out the pane's frame, where the annotation's edge and
	// the grid's cells disagree.
	RoofWeight float32
	RoofMargin int
	// Seed is the first member's seed (its initial weights and the order
	// of its mini-batches); member k is trained from Seed+k.
	Seed uint64
	// Members is how many networks are trained on the same rows from
	// different seeds and averaged (see mergeMembers).
	Members int
}{Hidden: 16, Epochs: 6, Batch: 256, Rate: 2e-3, L2: 1e-4, Sample: 40, RestWeight: 0.15, NeverWeight: 1, NeverDensity: 1, RoofMargin: 2,
	Seed: 27, Members: 4}

// TuneMembers sets Seed and Members where they are not 0 (tuning).
func TuneMembers(seed uint64, members int) {
	if seed != 0 {
		probeTraining.Seed = seed
	}
	if members > 0 {
		probeTraining.Members = members
	}
}

// TuneProbe sets the deep model's never-glass weight and density and the
// hand-made features it reads (nil: the default ones), for measuring them
// with glasstrain.
func TuneProbe(neverWeight float32, neverDensity int, nearReach float32, hand []int) {
	probeTraining.NeverWeight, probeTraining.NeverDensity, probeTraining.Hand = neverWeight, max(neverDensity, 1), hand
	probeTraining.NearReach = nearReach
}

// TuneRoof sets RoofWeight and, when above 0, RoofMargin (tuning).
func TuneRoof(w float32, margin int) {
	probeTraining.RoofWeight = w
	if margin > 0 {
		probeTraining.RoofMargin = margin
	}
}

// ShiftProbePrior sets PriorShift (tuning).
func ShiftProbePrior(on bool) { probeTraining.PriorShift = on }

// hardNegatives returns the never-glass cells the weight and density
// apply to: all of them, or with NearReach those near annotated glass
// (4-connected steps on the glass grid).
func hardNegatives(in *pipeline.GlassInputs, windows, never []bool) []bool {
	hard := make([]bool, len(never))
	for i := range never {
		hard[i] = never[i] && !windows[i]
	}
	reach := probeTraining.NearReach
	if reach <= 0 {
		return hard
	}
	w, h, box := in.Grid()
	limit := int32(math.Ceil(float64(reach) * math.Sqrt(float64(box.Dx()*box.Dy()))))
	dist := imaging.Steps(windows, w, h, limit, nil)
	for i := range hard {
		hard[i] = hard[i] && dist[i] >= 0
	}
	return hard
}

// Result is one photo's glass scores: recall and false glass, and its
// torn panes.
type Result struct {
	Score vision.GlassScore
	Panes pipeline.PaneScore
	// Layer is the glass found (255 fully glass), at the photo's size.
	Layer *image.Gray
	// Roof is the glass over the car above the annotated panes, as a
	// share of the panes' own area (roofGlass; -1: no annotated pane).
	Roof float64
}

// probeRows are one photo's training rows.
type probeRows struct {
	x, y, w []float32
}

// probeExample prepares ex's training rows: a sample of its candidate
// pixels with their deep input vectors, labels and weights.
func probeExample(ex Example) probeRows {
	var r probeRows
	if len(ex.Mask.Features) == 0 {
		return r
	}
	in := pipeline.NewGlassInputs(ex.Photo, ex.Mask)
	if !in.HasCar() {
		return r
	}
	windows, never := in.OnGrid(ex.Windows), in.OnGrid(ex.Never)
	p := probeTraining
	var keep []int
	var keepHand []float32
	hard := hardNegatives(in, windows, never)
	var roof []bool
	if p.RoofWeight > 0 {
		w, h, _ := in.Grid()
		roof = roofCells(w, h, in.Cells, windows, never, p.RoofMargin)
	}
	for j, i := range in.Cells {
		n := p.Sample
		if hard[i] {
			n = max(1, p.Sample/p.NeverDensity)
		}
		if !sampled(i, n) {
			continue
		}
		keep = append(keep, i)
		keepHand = append(keepHand, in.Hand[j*pipeline.GlassFeatureCount:(j+1)*pipeline.GlassFeatureCount]...)
		lab, wt := label(windows[i], never[i], p.RestWeight)
		if hard[i] {
			wt *= p.NeverWeight
		}
		if roof != nil && roof[i] {
			wt = p.RoofWeight
		}
		r.y = append(r.y, lab)
		r.w = append(r.w, wt)
	}
	r.x = in.Deep(keep, p.Hand, keepHand)
	return r
}

// scoreGlass runs ex through the glass path the processor runs with the
// deep model m and scores it.
func scoreGlass(ex Example, m *pipeline.ProbeModel) Result {
	layer := pipeline.DetectGlassWith(ex.Photo, ex.Mask, m)
	return result(ex, layer)
}

// trainProbe fits probeTraining.Members networks to rows from their seeds
// and merges them into one model (mergeMembers).
func trainProbe(rows []probeRows, channels []int) pipeline.ProbeModel {
	p := probeTraining
	set := newProbeSet(rows)
	if len(set.y) == 0 {
		return pipeline.ProbeModel{}
	}
	members := make([]pipeline.ProbeModel, max(p.Members, 1))
	for k := range members {
		members[k] = trainMember(set, channels, p.Seed+uint64(k))
	}
	m := mergeMembers(members)
	if p.PriorShift {
		m.B2 += float32(math.Log(float64(p.NeverWeight) * float64(p.NeverDensity)))
	}
	return m
}

// mergeMembers returns the network whose output is the mean of the
// members' log-odds: their hidden units side by side, each member's output
// weights and bias divided by their number. The members read the same
// inputs standardised alike (the same rows), so the merged model is a
// probeModel like each, Members times as wide, that the pipeline runs
// unchanged. One network's answer depends on its seed: on the 313 glass
// photos, cross-validated, two seeds differ by several photos found or
// torn; the mean of a few is steadier, on the photos trained on and on
// others.
func mergeMembers(members []pipeline.ProbeModel) pipeline.ProbeModel {
	if len(members) == 1 {
		return members[0]
	}
	m := members[0]
	m.W1, m.B1, m.W2, m.B2, m.Hidden = nil, nil, nil, 0, 0
	k := float32(len(members))
	for _, e := range members {
		m.Hidden += e.Hidden
		m.W1 = append(m.W1, e.W1...)
		m.B1 = append(m.B1, e.B1...)
		for _, v := range e.W2 {
			m.W2 = append(m.W2, v/k)
		}
		m.B2 += e.B2 / k
	}
	return m
}

// probeSet is the training rows of every photo as one matrix, standardised
// once for all the members: xs holds n inputs a row, each less its mean
// and divided by its deviation, y the labels and w the weights.
type probeSet struct {
	xs, y, w  []float32
	mean, std []float32
	n         int
}

// newProbeSet gathers and standardises rows.
func newProbeSet(rows []probeRows) probeSet {
	var x, y, w []float32
	for _, r := range rows {
		x, y, w = append(x, r.x...), append(y, r.y...), append(w, r.w...)
	}
	N := len(y)
	if N == 0 {
		return probeSet{}
	}
	n := len(x) / N
	set := probeSet{y: y, w: w, n: n, mean: make([]float32, n), std: make([]float32, n)}
	for i := range n {
		var s, q float64
		for r := range N {
			v := float64(x[r*n+i])
			s += v
			q += v * v
		}
		mean := s / float64(N)
		set.mean[i] = float32(mean)
		set.std[i] = float32(math.Sqrt(math.Max(q/float64(N)-mean*mean, 0)) + 1e-3)
	}
	for r := range N {
		for i := range n {
			x[r*n+i] = (x[r*n+i] - set.mean[i]) / set.std[i]
		}
	}
	set.xs = x
	return set
}

// trainMember fits a probeModel to set with logistic loss by Adam over
// shuffled mini-batches, from seed (reproducible).
func trainMember(set probeSet, channels []int, seed uint64) pipeline.ProbeModel {
	p := probeTraining
	xs, y, w, n, N := set.xs, set.y, set.w, set.n, len(set.y)
	m := pipeline.ProbeModel{Channels: channels, Hand: p.Hand, Hidden: p.Hidden, Mean: set.mean, Std: set.std,
		W1: make([]float32, p.Hidden*n), B1: make([]float32, p.Hidden), W2: make([]float32, p.Hidden)}
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range m.W1 {
		m.W1[i] = float32(rng.NormFloat64() * math.Sqrt(2/float64(n)))
	}
	for i := range m.W2 {
		m.W2[i] = float32(rng.NormFloat64() * math.Sqrt(1/float64(p.Hidden)))
	}
	// Parameters as one vector for Adam: W1, B1, W2, B2.
	np := len(m.W1) + len(m.B1) + len(m.W2) + 1
	mom, vel, grad := make([]float64, np), make([]float64, np), make([]float64, np)
	order := make([]int, N)
	for i := range order {
		order[i] = i
	}
	var pos, tot float64
	for r := range N {
		pos += float64(y[r] * w[r])
		tot += float64(w[r])
	}
	m.B2 = float32(math.Log(pos / math.Max(tot-pos, 1e-9)))
	H := p.Hidden
	// A fixed number of parts, summed in order: the same model on any
	// machine.
	const workers = 2
	parts := make([][]float64, workers)
	for i := range parts {
		parts[i] = make([]float64, np)
	}
	step := 0
	for range p.Epochs {
		rng.Shuffle(N, func(i, j int) { order[i], order[j] = order[j], order[i] })
		for b0 := 0; b0 < N; b0 += p.Batch {
			batch := order[b0:min(b0+p.Batch, N)]
			// Gradients of the batch's weighted loss, in parallel parts.
			var wg sync.WaitGroup
			for part := range workers {
				lo, hi := part*len(batch)/workers, (part+1)*len(batch)/workers
				wg.Add(1)
				go func() {
					defer wg.Done()
					g := parts[part]
					clear(g)
					h := make([]float32, H)
					for _, r := range batch[lo:hi] {
						xr := xs[r*n : (r+1)*n]
						out := m.B2
						for j := range H {
							s := m.B1[j]
							wj := m.W1[j*n : (j+1)*n]
							for i, v := range xr {
								s += wj[i] * v
							}
							h[j] = max(s, 0)
							out += m.W2[j] * h[j]
						}
						d := float64(sigmoid(out)-y[r]) * float64(w[r])
						for j := range H {
							g[len(m.W1)+len(m.B1)+j] += d * float64(h[j])
							if h[j] <= 0 {
								continue
							}
							dj := d * float64(m.W2[j])
							g[len(m.W1)+j] += dj
							gj := g[j*n : (j+1)*n]
							for i, v := range xr {
								gj[i] += dj * float64(v)
							}
						}
						g[np-1] += d
					}
				}()
			}
			wg.Wait()
			clear(grad)
			for _, g := range parts {
				for i, v := range g {
					grad[i] += v
				}
			}
			step++
			const b1, b2 = 0.9, 0.999
			c1, c2 := 1-math.Pow(b1, float64(step)), 1-math.Pow(b2, float64(step))
			inv := 1 / float64(len(batch))
			param := func(i int) *float32 {
				switch {
				case i < len(m.W1):
					return &m.W1[i]
				case i < len(m.W1)+len(m.B1):
					return &m.B1[i-len(m.W1)]
				case i < np-1:
					return &m.W2[i-len(m.W1)-len(m.B1)]
				}
				return &m.B2
			}
			for i := range np {
				pp := param(i)
				g := grad[i]*inv + p.L2*float64(*pp)
				mom[i] = b1*mom[i] + (1-b1)*g
				vel[i] = b2*vel[i] + (1-b2)*g*g
				*pp -= float32(p.Rate * (mom[i] / c1) / (math.Sqrt(vel[i]/c2) + 1e-8))
			}
		}
	}
	return m
}

// featureChannels returns the channel counts of the first example with
// activations.
func featureChannels(examples []Example) []int {
	for _, ex := range examples {
		if len(ex.Mask.Features) > 0 {
			var c []int
			for _, f := range ex.Mask.Features {
				c = append(c, f.Channels)
			}
			return c
		}
	}
	return nil
}

// sigmoid is the logistic function, as the pipeline's deep model applies
// it (the same float32 rounding, so that training reproduces a model).
func sigmoid(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }

// ProbeRows are one photo's training rows for the deep model, so that a
// caller can prepare them one photo at a time and drop the photo.
type ProbeRows struct{ rows probeRows }

// PrepareProbe returns ex's training rows (a sample of its candidates).
func PrepareProbe(ex Example) ProbeRows { return ProbeRows{probeExample(ex)} }

// TrainProbeFolds trains one deep model per fold: model f on every photo
// i of rows with i%folds != f (folds by photo, every folds-th, as
// crossValidate splits them); channels are the activations' channel
// counts. Photo i is scored by model i%folds.
func TrainProbeFolds(rows []ProbeRows, folds int, channels []int) []pipeline.ProbeModel {
	models := make([]pipeline.ProbeModel, folds)
	for f := range folds {
		var rest []probeRows
		for i, r := range rows {
			if i%folds != f {
				rest = append(rest, r.rows)
			}
		}
		models[f] = trainProbe(rest, channels)
	}
	return models
}

// Channels returns the channel counts of ex's activations (nil: none).
func Channels(ex Example) []int { return featureChannels([]Example{ex}) }

// ScoreProbe runs ex through the processor's glass path with the deep
// model m and scores it.
func ScoreProbe(ex Example, m *pipeline.ProbeModel) Result { return scoreGlass(ex, m) }

// TrainProbe trains the deep glass model on the rows of every photo and
// returns it as the JSON that glass_probe.json holds. The rows are
// prepared one photo at a time (PrepareProbe), so that no run holds
// every photo.
func TrainProbe(rows []ProbeRows, channels []int) ([]byte, error) {
	if channels == nil {
		return nil, fmt.Errorf("glasstrain: no glass examples with the segmenter's activations")
	}
	all := make([]probeRows, len(rows))
	for i, r := range rows {
		all[i] = r.rows
	}
	return json.Marshal(trainProbe(all, channels))
}

// With returns r's rows followed by o's: a photo's rows with those of a
// copy made of it (glasstrain's --augment), which stay in its fold.
func (r ProbeRows) With(o ProbeRows) ProbeRows {
	return ProbeRows{probeRows{
		x: append(slices.Clip(r.rows.x), o.rows.x...),
		y: append(slices.Clip(r.rows.y), o.rows.y...),
		w: append(slices.Clip(r.rows.w), o.rows.w...),
	}}
}
