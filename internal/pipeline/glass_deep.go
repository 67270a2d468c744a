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
// them (vision.Mask.Features, three decoder stages) at each pixel of the glass
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
// standardised inputs, giving the log-odds of glass. glass_probe.json is
// four such networks trained from different seeds, merged into one: their
// hidden units side by side, the mean of their outputs.
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
	u, v := gg.cellCentre(g, i)
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
	i00, i01, i10, i11, wx, wy := bilinearAt(S, u, v)
	for c := range out {
		p := f.Data[c*S*S : (c+1)*S*S]
		top := p[i00] + (p[i01]-p[i00])*wx
		bot := p[i10] + (p[i11]-p[i10])*wx
		out[c] = top + (bot-top)*wy
	}
}

// bilinearAt returns the four pixels of a side×side grid around (u, v),
// fractions of the side, as indexes (row-major; clamped at the borders),
// and the weights across and down between them.
func bilinearAt(side int, u, v float64) (i00, i01, i10, i11 int, wx, wy float32) {
	fx, fy := u*float64(side)-0.5, v*float64(side)-0.5
	x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
	wx, wy = float32(fx-float64(x0)), float32(fy-float64(y0))
	cl := func(a int) int { return min(max(a, 0), side-1) }
	x1, y1 := cl(x0+1), cl(y0+1)
	x0, y0 = cl(x0), cl(y0)
	return y0*side + x0, y0*side + x1, y1*side + x0, y1*side + x1, wx, wy
}

// folded returns m's hidden layer with the standardisation folded in,
// so that it reads the raw inputs: wT holds the weights transposed (the
// Hidden weights of input i at wT[i*Hidden:]) and divided by the input's
// deviation, b the biases less each input's mean times its weight. Summed
// in float64, so the fold adds no error of its own beyond float32's.
func (m *probeModel) folded() (wT, b []float32) {
	n, hid := len(m.Mean), m.Hidden
	wT, b = make([]float32, n*hid), make([]float32, hid)
	for j := range hid {
		s := float64(m.B1[j])
		for i := range n {
			w := float64(m.W1[j*n+i]) / float64(m.Std[i])
			wT[i*hid+j] = float32(w)
			s -= w * float64(m.Mean[i])
		}
		b[j] = float32(s)
	}
	return wT, b
}

// hiddenMap projects the activations f onto the hidden units at the
// pixels px (indexes into f's Side×Side grid): for each, the hidden units'
// sums over its channels, the weights of channel c at wT[c*hid:]
// (folded's layout). The result is pixel-major, hid values a pixel of the
// grid, 0 at the pixels not asked for.
func hiddenMap(f vision.Features, wT []float32, hid int, px []int32) []float32 {
	n := f.Side * f.Side
	out := make([]float32, n*hid)
	// In bands of pixels, so that the band's sums stay in the cache while
	// the channels pass over them, four channels at a time.
	imaging.ParallelUneven(len(px), 256, func(lo, hi int) {
		c := 0
		for ; c+4 <= f.Channels; c += 4 {
			w0, w1 := wT[c*hid:(c+1)*hid], wT[(c+1)*hid:(c+2)*hid]
			w2, w3 := wT[(c+2)*hid:(c+3)*hid], wT[(c+3)*hid:(c+4)*hid]
			w1, w2, w3 = w1[:len(w0)], w2[:len(w0)], w3[:len(w0)]
			for _, p := range px[lo:hi] {
				v0, v1, v2, v3 := f.Data[c*n+int(p)], f.Data[(c+1)*n+int(p)], f.Data[(c+2)*n+int(p)], f.Data[(c+3)*n+int(p)]
				d := out[int(p)*hid:][:len(w0)]
				for j, w := range w0 {
					d[j] += w*v0 + w1[j]*v1 + w2[j]*v2 + w3[j]*v3
				}
			}
		}
		for ; c < f.Channels; c++ {
			w := wT[c*hid : (c+1)*hid]
			for _, p := range px[lo:hi] {
				v := f.Data[c*n+int(p)]
				d := out[int(p)*hid:][:len(w)]
				for j, wj := range w {
					d[j] += wj * v
				}
			}
		}
	})
	return out
}

// predictDeep returns m's glass probability for every pixel of idx (0
// elsewhere), whose hand-made vectors are hand.
//
// Until its ReLU the hidden layer is linear in the activations, and so is
// their bilinear sampling: the two commute. So each layer of activations
// is projected onto the hidden units once per activation pixel that some
// candidate reads (hiddenMap over footprint: Hidden numbers in place of
// the layer's 64 or 128 channels), and each candidate samples the
// projections: 2×16 reads a candidate where it sampled 192 activations
// and multiplied them out (a 12 MP photo has about 30,000 candidates).
// The answer is the same to float32's rounding (TestPredictDeepIsTheModel
// checks it against deepVector, the trainer's path).
func (gg *glassGrid) predictDeep(m *probeModel, g *workGrid, feats []vision.Features, hand []float32, idx []int) []float32 {
	out := make([]float32, gg.w*gg.h)
	pos, hid := m.hand(), m.Hidden
	wT, b1 := m.folded()
	maps := make([][]float32, len(feats))
	off := len(pos)
	for l, f := range feats {
		maps[l] = hiddenMap(f, wT[off*hid:], hid, footprint(f.Side, gg, g, idx))
		off += f.Channels
	}
	imaging.Parallel(len(idx), func(lo, hi int) {
		h := make([]float32, hid)
		for j := lo; j < hi; j++ {
			copy(h, b1)
			for k, f := range pos {
				v := hand[j*glassFeatureCount+f]
				for u, w := range wT[k*hid : (k+1)*hid] {
					h[u] += w * v
				}
			}
			u, v := gg.cellCentre(g, idx[j])
			for l, f := range feats {
				i00, i01, i10, i11, wx, wy := bilinearAt(f.Side, u, v)
				p := maps[l]
				p00, p01 := p[i00*hid:(i00+1)*hid], p[i01*hid:(i01+1)*hid]
				p10, p11 := p[i10*hid:(i10+1)*hid], p[i11*hid:(i11+1)*hid]
				for k := range h {
					top := p00[k] + (p01[k]-p00[k])*wx
					bot := p10[k] + (p11[k]-p10[k])*wx
					h[k] += top + (bot-top)*wy
				}
			}
			s := m.B2
			for k, v := range h {
				s += m.W2[k] * max(v, 0)
			}
			out[idx[j]] = sigmoid(s)
		}
	})
	return out
}

// footprint returns the pixels of a side×side grid of activations that
// the candidates idx of the glass grid read (bilinearAt's four each), in
// order: the car's glass candidates cover a part of the square the
// activations cover, the whole photo.
func footprint(side int, gg *glassGrid, g *workGrid, idx []int) []int32 {
	read := make([]bool, side*side)
	for _, i := range idx {
		u, v := gg.cellCentre(g, i)
		i00, i01, i10, i11, _, _ := bilinearAt(side, u, v)
		read[i00], read[i01], read[i10], read[i11] = true, true, true, true
	}
	var px []int32
	for p, r := range read {
		if r {
			px = append(px, int32(p))
		}
	}
	return px
}

// cellCentre returns the centre of the glass grid's pixel i as fractions
// of the working grid g's width and height.
func (gg *glassGrid) cellCentre(g *workGrid, i int) (u, v float64) {
	x, y := i%gg.w, i/gg.w
	return (float64(x) + 0.5) * float64(gg.k) / float64(g.w), (float64(y) + 0.5) * float64(gg.k) / float64(g.h)
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
		gg.deep = true
		return gg.predictDeep(deep, g, feats, hand, idx)
	}
	return gg.predict(glassModel(), hand, idx)
}
