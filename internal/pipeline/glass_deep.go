package pipeline

import (
	_ "embed"
	"encoding/json"
	"math"
	"sync"

	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/vision"
)

// The deep glass detector (issue 27). The hand-made colour and position
// features of glass_features.go learned the photos they were trained on
// rather than glass: under a new light a windscreen and a bonnet of the
// same colour read alike. The segmentation network has already looked at
// the whole car when it drew its matte, and its decoder's activations tell
// glass from paint the way it tells car from background: the detector reads
// them (vision.Mask.Features, two decoder stages) at each pixel of the glass
// grid, adds a few features of where the pixel lies on the car, and a small
// network (one hidden layer) gives its probability of being glass. The
// regions are then decided as before (postGlass) and refined to full
// resolution (refineGlass).

// glassPosFeatures are the hand-made features a deep model reads when it
// names none (probeModel.Hand), by their index in glassGrid.features'
// vector: height in the car's column, height in the box, distance across
// from the centre, distance to the outline, lightness against the car's,
// saturation, and the segmenter's own "left out" cue.
var glassPosFeatures = []int{0, 1, 2, 7, 9, 11, 23}

// probeModel is a network with one hidden layer of ReLU units over
// standardised inputs, giving the log-odds of glass.
type probeModel struct {
	// Layers names the activations it reads, with their channel counts,
	// so a model trained on other outputs is not applied to these.
	Channels []int
	// Hand names the hand-made features it reads, by their index in
	// glassGrid.features' vector, before the activations (none:
	// glassPosFeatures).
	Hand   []int `json:",omitempty"`
	Mean   []float32
	Std    []float32
	Hidden int
	W1     []float32 // Hidden rows of len(Mean)
	B1     []float32
	W2     []float32
	B2     float32
}

//go:embed glass_probe.json
var glassProbeJSON []byte

// glassProbe returns the embedded deep glass model, parsed once.
var glassProbe = sync.OnceValue(func() *probeModel {
	var m probeModel
	if err := json.Unmarshal(glassProbeJSON, &m); err != nil {
		panic("pipeline: glass_probe.json: " + err.Error())
	}
	return &m
})

// fits reports whether m reads the activations feats.
func (m *probeModel) fits(feats []vision.Features) bool {
	if m == nil || len(m.Channels) == 0 || len(feats) != len(m.Channels) || len(m.Mean) != deepInputs(m.hand(), feats) {
		return false
	}
	for i, f := range feats {
		if f.Channels != m.Channels[i] || len(f.Data) != f.Channels*f.Side*f.Side {
			return false
		}
	}
	return true
}

// hand returns the hand-made features m reads.
func (m *probeModel) hand() []int {
	if len(m.Hand) == 0 {
		return glassPosFeatures
	}
	return m.Hand
}

// deepInputs is the length of the input vector of a model that reads the
// hand-made features pos and the activations feats.
func deepInputs(pos []int, feats []vision.Features) int {
	n := len(pos)
	for _, f := range feats {
		n += f.Channels
	}
	return n
}

// logit returns the model's log-odds for x (raw, not standardised); z is
// scratch of len(m.Mean) and h of m.Hidden. x is standardised once, into
// z, as the trainer does, not once per hidden unit.
func (m *probeModel) logit(x, z, h []float32) float32 {
	n := len(m.Mean)
	z = z[:n:n]
	for i, v := range x[:n] {
		z[i] = (v - m.Mean[i]) / m.Std[i]
	}
	for j := range m.Hidden {
		w := m.W1[j*n : (j+1)*n : (j+1)*n]
		s := m.B1[j]
		for i, v := range z {
			s += w[i] * v
		}
		h[j] = max(s, 0)
	}
	out := m.B2
	for j, v := range h[:m.Hidden] {
		out += m.W2[j] * v
	}
	return out
}

func sigmoid(v float32) float32 { return float32(1 / (1 + math.Exp(-float64(v)))) }

// deepFeatures returns the deep detector's input vectors for the pixels
// idx of the glass grid (row-major), deepVector's each, one after another.
// hand holds their hand-made vectors (glassFeatureCount each, in idx's
// order).
func deepFeatures(gg *glassGrid, g *workGrid, feats []vision.Features, pos []int, hand []float32, idx []int) []float32 {
	n := deepInputs(pos, feats)
	out := make([]float32, len(idx)*n)
	imaging.Parallel(len(idx), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			deepVector(gg, g, feats, pos, hand[j*glassFeatureCount:(j+1)*glassFeatureCount], idx[j], out[j*n:(j+1)*n])
		}
	})
	return out
}

// deepVector writes into o the deep detector's input vector for pixel i
// of the glass grid: the hand-made features pos of its vector hand, then
// the activations feats, which cover the whole working grid g stretched
// to a square.
func deepVector(gg *glassGrid, g *workGrid, feats []vision.Features, pos []int, hand []float32, i int, o []float32) {
	x, y := i%gg.w, i/gg.w
	u := (float64(x) + 0.5) * float64(gg.k) / float64(g.w)
	v := (float64(y) + 0.5) * float64(gg.k) / float64(g.h)
	for k, f := range pos {
		o[k] = hand[f]
	}
	o = o[len(pos):]
	for _, f := range feats {
		sampleChannels(f, u, v, o[:f.Channels])
		o = o[f.Channels:]
	}
}

// sampleChannels writes the bilinear value of every channel of f at (u, v),
// fractions of the square's side, into out.
func sampleChannels(f vision.Features, u, v float64, out []float32) {
	S := f.Side
	fx, fy := u*float64(S)-0.5, v*float64(S)-0.5
	x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
	wx, wy := float32(fx-float64(x0)), float32(fy-float64(y0))
	cl := func(a int) int { return min(max(a, 0), S-1) }
	x1, y1 := cl(x0+1), cl(y0+1)
	x0, y0 = cl(x0), cl(y0)
	i00, i01, i10, i11 := y0*S+x0, y0*S+x1, y1*S+x0, y1*S+x1
	for c := range out {
		p := f.Data[c*S*S : (c+1)*S*S]
		top := p[i00] + (p[i01]-p[i00])*wx
		bot := p[i10] + (p[i11]-p[i10])*wx
		out[c] = top + (bot-top)*wy
	}
}

// predictDeep returns m's glass probability for every pixel of idx (0
// elsewhere), whose hand-made vectors are hand. Each pixel's input vector
// is made and read at once: the vectors of a 12 MP photo's hundred
// thousand candidates would take 80 MB.
func (gg *glassGrid) predictDeep(m *probeModel, g *workGrid, feats []vision.Features, hand []float32, idx []int) []float32 {
	out := make([]float32, gg.w*gg.h)
	n, pos := len(m.Mean), m.hand()
	imaging.Parallel(len(idx), func(lo, hi int) {
		x, z, h := make([]float32, n), make([]float32, n), make([]float32, m.Hidden)
		for j := lo; j < hi; j++ {
			deepVector(gg, g, feats, pos, hand[j*glassFeatureCount:(j+1)*glassFeatureCount], idx[j], x)
			out[idx[j]] = sigmoid(m.logit(x, z, h))
		}
	})
	return out
}

// glassProb returns the glass probability on the glass grid: the deep
// model's when the segmenter gave the activations it reads, else the
// hand-made model's (a segmentation model without them, U2-Netp).
func glassProb(gg *glassGrid, g *workGrid, feats []vision.Features, deep *probeModel) []float32 {
	hand, idx := gg.features()
	if len(idx) == 0 {
		return nil
	}
	if deep.fits(feats) {
		return gg.predictDeep(deep, g, feats, hand, idx)
	}
	return gg.predict(glassModel(), hand, idx)
}
