package pipeline

import (
	"image"

	"github.com/showroom/showroom/internal/vision"
)

// What the glass trainer (internal/glasstrain) needs of the glass
// detector: the candidates' inputs as the models see them, the models'
// types, and the detector's path run with a model under training. The
// service does not call any of it.

// BoostModel is the hand-made-feature glass model (glass_model.json), the
// detector's fallback when the segmenter gives no activations.
type BoostModel = boostModel

// BoostTree is one tree of a BoostModel.
type BoostTree = boostTree

// Leaf returns the tree's value for one feature vector.
func (tr *BoostTree) Leaf(f []float32) float32 { return tr.leaf(f) }

// ProbeModel is the deep glass model (glass_probe.json): one hidden layer
// over the segmenter's activations and a few hand-made features.
type ProbeModel = probeModel

// GlassFeatureCount is the length of a candidate's hand-made feature
// vector.
const GlassFeatureCount = glassFeatureCount

// GlassInputs is one photo's glass candidates as the glass models see
// them: the car pixels of the glass grid that may be glass.
type GlassInputs struct {
	scene *Scene
	grid  *workGrid
	gg    *glassGrid
	feats []vision.Features
	// Cells are the candidates' indexes on the glass grid; Hand holds
	// their hand-made feature vectors, GlassFeatureCount each, in Cells'
	// order.
	Cells []int
	Hand  []float32
}

// NewGlassInputs finds the glass candidates of photo, whose car mask
// (with the segmenter's activations) is mask.
func NewGlassInputs(photo *image.NRGBA, mask *vision.Mask) *GlassInputs {
	s := NewScene(photo)
	s.setCar(mask.Alpha, mask.Box, mask.Raw)
	g := s.workGrid()
	gg := newGlassGrid(g, g.toWork(s.Box), s.Raw)
	in := &GlassInputs{scene: s, grid: g, gg: gg, feats: mask.Features}
	in.Hand, in.Cells = gg.features()
	return in
}

// HasCar reports whether the mask held a car.
func (in *GlassInputs) HasCar() bool { return in.scene.hasCar() }

// OnGrid samples an annotation mask (>= 128 inside) onto the glass grid,
// one value per grid cell (index as Cells); nil reads as nowhere.
func (in *GlassInputs) OnGrid(m *image.Gray) []bool {
	gg := in.gg
	out := make([]bool, gg.w*gg.h)
	if m == nil {
		return out
	}
	W, H := m.Rect.Dx(), m.Rect.Dy()
	for y := range gg.h {
		for x := range gg.w {
			sx, sy := (x*W+W/2)/gg.w, (y*H+H/2)/gg.h
			out[y*gg.w+x] = m.Pix[m.PixOffset(m.Rect.Min.X+sx, m.Rect.Min.Y+sy)] >= 128
		}
	}
	return out
}

// Deep returns the deep model's input vectors of the cells, whose
// hand-made vectors are hand (GlassFeatureCount each, in cells' order),
// reading the hand-made features pos (nil: the default ones).
func (in *GlassInputs) Deep(cells []int, pos []int, hand []float32) []float32 {
	if len(pos) == 0 {
		pos = glassPosFeatures
	}
	return deepFeatures(in.gg, in.grid, in.feats, pos, hand, cells)
}

// BoostLayer runs the photo through the glass path the processor runs,
// with the hand-made-feature model m in place of the deep one (regions,
// the working grid, refinement), and returns the glass at the photo's
// size.
func (in *GlassInputs) BoostLayer(m *BoostModel) *image.Gray {
	s := in.scene
	if len(in.Cells) == 0 {
		return image.NewGray(s.Photo.Rect)
	}
	coarse := glassOnWork(in.grid, in.gg, postGlass(in.gg, in.gg.predict(m, in.Hand, in.Cells)))
	return wholeGray(refineGlass(s.Photo, s.Matte, in.grid, coarse), s.Photo.Rect)
}

// DetectGlassWith is DetectGlass with the deep model m in place of the
// embedded one.
func DetectGlassWith(photo *image.NRGBA, mask *vision.Mask, m *ProbeModel) *image.Gray {
	s := NewScene(photo)
	s.setCar(mask.Alpha, mask.Box, mask.Raw)
	if !s.hasCar() {
		return image.NewGray(s.Photo.Rect)
	}
	return wholeGray(s.detectGlassWith(mask.Features, m), s.Photo.Rect)
}

// SetGlassGrow sets the probability glass grows over (glassGrow), for
// tuning it with glasstrain.
func SetGlassGrow(v float32) { glassGrow = v }

// SetPaneSure sets the smoothed probability under which a pixel is sure
// not to be glass when fillPanes takes a region out to its frame
// (paneSure), for tuning it with glasstrain.
func SetPaneSure(v float32) { paneSure = v }

// SetPaneSoftSure sets the smoothed probability from which dropSoftPanes
// reads a region's border as running over glass (paneSoftSure), for
// tuning it with glasstrain.
func SetPaneSoftSure(v float32) { paneSoftSure = v }

// SetPaneSoftEdge sets the share of a region's border over glass above
// which dropSoftPanes leaves it as photographed (paneSoftEdge; 0: none
// is), for tuning it with glasstrain.
func SetPaneSoftEdge(v float32) { paneSoftEdge = v }

// SetGlassConfidence sets the least mean probability of a region drawn as
// glass (glassConfidence), for tuning it with glasstrain.
func SetGlassConfidence(v float32) { glassConfidence = v }

// SetGlassReach sets how far glass grows (glassReach), for tuning.
func SetGlassReach(v float32) { glassReach = v }

// SetGlassSnap sets the guided filter's radius and regularisation that
// fit the glass probability's edges to the photo's, for tuning.
func SetGlassSnap(r int, eps float32) { glassSnap, glassSnapEps = r, eps }

// Grid returns the glass grid's size and the car's box on it.
func (in *GlassInputs) Grid() (w, h int, box image.Rectangle) { return in.gg.w, in.gg.h, in.gg.box }

// SetFootDrop sets the fall of the probability across a pane's seal
// under which cutUnsureFoot cuts the band below (footDrop; 0: no cut), for
// measuring it with glasstrain.
func SetFootDrop(v float32) { footDrop = v }

// SetSealFoot sets the least step of the lightness across a region's foot
// that puts it on the pane's frame (sealFoot; 0: cutAtSeal cuts nothing),
// for measuring cutAtSeal with glasstrain.
func SetSealFoot(v float32) { sealFoot = v }

// SetSealValley sets the least depth of the probability's valley between
// a pane and the panel under it that cutAtValley cuts at (0: none), for
// measuring it with glasstrain.
func SetSealValley(v float32) { sealValley = v }

// SetPaintBelow sets the least share of the car's paint in a region's rows
// under its seal at which cutPaintedBody cuts them (paintBelow; 0: no
// cut), for measuring it with glasstrain.
func SetPaintBelow(v float32) { paintBelow = v }

// SetSealLighter sets how much lighter than a region's part above its
// seal the part under it must be for cutAtSeal and cutAtSlantedSeal to cut
// it when it is less sure at all (sealLighter; 0: only when less sure by
// sealLess), for measuring it with glasstrain.
func SetSealLighter(v float32) { sealLighter = v }

// SetSlantSeal sets the steepest slope (rows per column) along which
// cutAtSlantedSeal looks for a seal, in steps of a quarter (0: it cuts
// nothing), for measuring it with glasstrain.
func SetSlantSeal(steepest float32) {
	slantSeal = nil
	for s := float32(0.25); s <= steepest; s += 0.25 {
		slantSeal = append(slantSeal, -s, s)
	}
}
