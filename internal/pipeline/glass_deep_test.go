package pipeline

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/showroom/showroom/internal/vision"
)

// TestPredictDeepIsTheModel checks predictDeep, which projects the
// activations onto the hidden units before sampling them, against the
// model as it is trained: each pixel's input vector sampled in full
// (deepVector, the trainer's path), standardised and multiplied out.
func TestPredictDeepIsTheModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	feats := []vision.Features{{Channels: 6, Side: 16}, {Channels: 9, Side: 8}}
	for i := range feats {
		f := &feats[i]
		f.Data = make([]float32, f.Channels*f.Side*f.Side)
		for k := range f.Data {
			// Activations with a mean well off zero, as a ReLU's are.
			f.Data[k] = 2 + 3*rng.Float32()
		}
	}
	pos := glassPosFeatures
	n := deepInputs(pos, feats)
	m := &probeModel{Channels: []int{6, 9}, Hidden: 5, Mean: make([]float32, n), Std: make([]float32, n),
		W1: make([]float32, 5*n), B1: make([]float32, 5), W2: make([]float32, 5), B2: -0.3}
	for i := range n {
		m.Mean[i], m.Std[i] = 2+rng.Float32(), 0.5+rng.Float32()
	}
	for i := range m.W1 {
		m.W1[i] = float32(rng.NormFloat64()) / 4
	}
	for i := range m.B1 {
		m.B1[i], m.W2[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	if !m.fits(feats) {
		t.Fatal("the test's model does not fit its activations")
	}
	g := &workGrid{w: 120, h: 80}
	gg := &glassGrid{w: 40, h: 26, k: 3}
	// Candidates in a few rows, and lone ones apart from each other
	// below them, so that only some of the activations are read and each
	// lone candidate reads four pixels that no other does.
	var idx []int
	cand := make([]bool, gg.w*gg.h)
	for i := range gg.w * gg.h {
		x, y := i%gg.w, i/gg.w
		if (y >= 7 && y < 10 && i%3 != 1) || (y >= 12 && x%5 == 2 && y%4 == 1) {
			idx, cand[i] = append(idx, i), true
		}
	}
	hand := make([]float32, len(idx)*glassFeatureCount)
	for i := range hand {
		hand[i] = rng.Float32()
	}
	got := gg.predictDeep(m, g, feats, hand, idx)
	x, z, h := make([]float32, n), make([]float32, n), make([]float32, m.Hidden)
	worst := 0.0
	for j, i := range idx {
		deepVector(gg, g, feats, pos, hand[j*glassFeatureCount:(j+1)*glassFeatureCount], i, x)
		for k := range z {
			z[k] = (x[k] - m.Mean[k]) / m.Std[k]
		}
		for u := range h {
			s := m.B1[u]
			for k, v := range z {
				s += m.W1[u*n+k] * v
			}
			h[u] = max(s, 0)
		}
		s := m.B2
		for u, v := range h {
			s += m.W2[u] * v
		}
		worst = max(worst, math.Abs(float64(got[i]-sigmoid(s))))
	}
	t.Logf("largest difference %.2g", worst)
	if worst > 1e-5 {
		t.Errorf("predictDeep differs from the model by up to %.2g", worst)
	}
	for i, p := range got {
		if !cand[i] && p != 0 {
			t.Fatalf("pixel %d, not a candidate, has probability %g", i, p)
		}
	}
}
