package vision

import (
	"context"
	"errors"
	"image"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// workSide is the long side of the working grid on which the model's
// answer is cleaned up (components, holes, lettering) before the
// edge-aware upsampling to full resolution. It matches IS-Net's input.
const workSide = 1024

// Segmenter cuts the main car out of photos. It holds one ONNX Runtime
// session, safe for concurrent use: create one per process and model.
type Segmenter struct {
	cfg   Config
	model *model
	// opinion is the second model (Config.SecondOpinion), nil without.
	opinion *model
}

// New loads the runtime and the model cfg names. It fails, naming the file
// and `make models`, when a file is missing.
func New(cfg Config) (*Segmenter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	lib := cfg.ModelDir + "/" + LibraryFile
	if err := acquireEnv(lib); err != nil {
		return nil, err
	}
	m, err := newModel(cfg, models[cfg.Model], lib)
	if err != nil {
		releaseEnv()
		return nil, err
	}
	s := &Segmenter{cfg: cfg, model: m}
	if cfg.usesSecondOpinion() {
		oc := cfg
		oc.Model = ModelU2Netp
		if s.opinion, err = newModel(oc, models[ModelU2Netp], lib); err != nil {
			return nil, errors.Join(err, m.close(), releaseEnv())
		}
	}
	return s, nil
}

// Model returns the name of the model s runs.
func (s *Segmenter) Model() string { return s.cfg.Model }

// Signature names what s's masks depend on besides the photo: the model,
// the second opinion, and the activations a mask carries
// (modelSpec.features), which a glass model is trained on and applies to
// only. Two segmenters with the same signature give a photo the same
// mask, so a cache of masks keys by it (package maskcache): adding a
// decoder stage, or switching models, leaves the old masks unread.
func (s *Segmenter) Signature() string {
	sig := s.cfg.Model
	if s.cfg.usesSecondOpinion() {
		sig += "+" + ModelU2Netp
	}
	if f := models[s.cfg.Model].features; len(f) > 0 {
		sig += ":" + strings.Join(f, ",")
	}
	return sig
}

// Close releases the model; the runtime goes with the last Segmenter.
func (s *Segmenter) Close() error {
	var err error
	if s.opinion != nil {
		err = s.opinion.close()
	}
	return errors.Join(err, s.model.close(), releaseEnv())
}

// Stage is one timed step of a segmentation, for Server-Timing and
// benchmarks.
type Stage struct {
	Name     string
	Duration time.Duration
}

// Mask is the car found in a photo.
type Mask struct {
	// Alpha is the car's matte at the photo's full resolution: 255 car,
	// 0 background, soft values along the edges.
	Alpha *image.Gray
	// Box is the car's bounding box in the photo; empty when no car.
	Box image.Rectangle
	// Confidence is in 0..1: how sure the segmentation is that it found
	// one solid object; see docs/segmentation.md for the formula.
	Confidence float64
	// BorderShare is the share (0..1) of the car's outline that runs along
	// the photo's border: 0 for a car wholly inside the frame.
	BorderShare float64
	// Stages are the timed steps in order (preprocess, model, cleanup,
	// second look where the model was unsure of the car's lower half,
	// second opinion where the car's foot looks cut, refine); the models'
	// include ModelWait.
	Stages []Stage
	// ModelWait is how long the model run waited for its turn
	// (Config.ConcurrentRuns) while other jobs' runs went.
	ModelWait time.Duration
	// Raw is the model's own answer at the working resolution,
	// thresholded at one half, without any of the car-specific cleanup;
	// kept for evaluation.
	Raw *image.Gray
	// Features are the model's intermediate activations (modelSpec.features;
	// none for a model without them), over the whole photo as the model
	// saw it, stretched to a square: the glass detector reads them.
	Features []Features
}

// Features is one intermediate activation of the model: Channels planes of
// Side×Side, channel-major, covering the whole photo stretched to a square.
type Features struct {
	Channels, Side int
	Data           []float32
}

// Segment finds the main car in img (as codec.Decode returns it).
func (s *Segmenter) Segment(ctx context.Context, img *image.NRGBA) (*Mask, error) {
	b := img.Rect
	if b.Dx() < showroom.MinPhotoSide || b.Dy() < showroom.MinPhotoSide {
		return nil, showroom.Errorf(showroom.EInvalidImage,
			"the photo is %dx%d; each side must be at least %d pixels", b.Dx(), b.Dy(), showroom.MinPhotoSide)
	}
	img = normalizeOrigin(img)
	var stages []Stage
	t := time.Now()
	lap := func(name string) {
		now := time.Now()
		stages = append(stages, Stage{name, now.Sub(t)})
		t = now
	}

	spec := s.model.spec
	ww, wh := workSize(b.Dx(), b.Dy())
	// One pass over the full-resolution pixels: a whole-factor box shrink to
	// just above both the model's input and the working grid, from which
	// both are resampled.
	fx := max(b.Dx()/max(spec.size, ww), 1)
	fy := max(b.Dy()/max(spec.size, wh), 1)
	base := shrinkRGB(img, fx, fy)
	square, work := resizeRGB2(base, spec.size, spec.size, ww, wh)
	input := modelInput(square, spec)
	// The planes go back to the pool as soon as they are done with; a
	// resample to the same size shares its input, hence releaseUnless.
	for c := range 3 {
		releaseUnless(square[c], work[c])
		releaseUnless(base[c], work[c], square[c])
	}
	lap("preprocess")

	sal, feats, _, wait, err := s.model.runWaiting(ctx, input)
	putFloats(input)
	if err != nil {
		return nil, err
	}
	lap("model")

	out := plane{W: spec.size, H: spec.size, Pix: sal}
	salw := out.Resize(floatPool{}, ww, wh)
	releaseUnless(out, salw)
	c := cleanup(salw, work, plane{})
	lap("cleanup")
	if crop, ok := secondLookCrop(salw, c); ok {
		look, w2, err := s.lookAgain(ctx, img, crop, ww, wh)
		if err != nil {
			salw.Release(floatPool{})
			c.matte.Release(floatPool{})
			return nil, err
		}
		wait += w2
		mergeSecondLook(salw, look, crop, c.box, c.floorY)
		look.Release(floatPool{})
		c.matte.Release(floatPool{})
		raw := c.raw
		c = cleanup(salw, work, plane{})
		c.raw = raw
		lap("second look")
	}
	if s.opinion != nil && wantsSecondOpinion(salw, c) {
		sq, w2, err := secondOpinion(ctx, s.opinion, work)
		if err != nil {
			salw.Release(floatPool{})
			c.matte.Release(floatPool{})
			return nil, err
		}
		wait += w2
		op := sq.Resize(floatPool{}, ww, wh)
		releaseUnless(sq, op)
		c.matte.Release(floatPool{})
		raw := c.raw
		c = cleanup(salw, work, op)
		c.raw = raw
		op.Release(floatPool{})
		lap("second opinion")
	}
	salw.Release(floatPool{})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	alpha := refine(img, work, c.matte)
	c.matte.Release(floatPool{})
	for _, p := range work {
		p.Release(floatPool{})
	}
	lap("refine")

	m := &Mask{
		Alpha:       alpha,
		Confidence:  c.confidence,
		Box:         scaleRect(c.box, ww, wh, b.Dx(), b.Dy()),
		BorderShare: c.borderShare,
		Stages:      stages,
		ModelWait:   wait,
		Raw:         c.raw,
		Features:    feats,
	}
	if !c.found {
		m.Box = image.Rectangle{}
	}
	return m, nil
}

// lookAgain runs the model on the part crop of img's working grid (ww×wh)
// alone, at the model's full input size, and returns its answer on crop's
// pixels of the grid and how long the run waited for its turn.
func (s *Segmenter) lookAgain(ctx context.Context, img *image.NRGBA, crop image.Rectangle, ww, wh int) (plane, time.Duration, error) {
	spec := s.model.spec
	b := img.Rect
	sub := normalizeOrigin(img.SubImage(scaleRect(crop, ww, wh, b.Dx(), b.Dy())).(*image.NRGBA))
	base := shrinkRGB(sub, max(sub.Rect.Dx()/spec.size, 1), max(sub.Rect.Dy()/spec.size, 1))
	square := resizeRGB(base, spec.size, spec.size)
	input := modelInput(square, spec)
	for c := range 3 {
		releaseUnless(square[c], base[c])
		base[c].Release(floatPool{})
	}
	out, _, _, wait, err := s.model.runWaiting(ctx, input)
	putFloats(input)
	if err != nil {
		return plane{}, wait, err
	}
	sq := plane{W: spec.size, H: spec.size, Pix: out}
	look := sq.Resize(floatPool{}, crop.Dx(), crop.Dy())
	releaseUnless(sq, look)
	return look, wait, nil
}

// secondOpinion runs the second model m on the working grid's colours
// work, resampled to its square input, and returns its answer there (m's
// input size) and how long the run waited for its turn.
func secondOpinion(ctx context.Context, m *model, work [3]plane) (plane, time.Duration, error) {
	square := resizeRGB(work, m.spec.size, m.spec.size)
	input := modelInput(square, m.spec)
	for c := range 3 {
		releaseUnless(square[c], work[c])
	}
	out, _, _, wait, err := m.runWaiting(ctx, input)
	putFloats(input)
	if err != nil {
		return plane{}, wait, err
	}
	return plane{W: m.spec.size, H: m.spec.size, Pix: out}, wait, nil
}

// Infer runs the model alone on img's input, prepared as Segment prepares
// it, and returns the inference time: the yardstick benchmarks measure the
// rest of the service against.
func (s *Segmenter) Infer(ctx context.Context, img *image.NRGBA) (time.Duration, error) {
	spec := s.model.spec
	img = normalizeOrigin(img)
	b := img.Rect
	base := shrinkRGB(img, max(b.Dx()/spec.size, 1), max(b.Dy()/spec.size, 1))
	square := resizeRGB(base, spec.size, spec.size)
	input := modelInput(square, spec)
	for c := range 3 {
		releaseUnless(square[c], base[c])
		base[c].Release(floatPool{})
	}
	sal, d, err := s.model.run(ctx, input)
	putFloats(input)
	putFloats(sal)
	return d, err
}

// normalizeOrigin returns img with its rectangle at (0,0), sharing pixels.
func normalizeOrigin(img *image.NRGBA) *image.NRGBA {
	if img.Rect.Min == (image.Point{}) {
		return img
	}
	return &image.NRGBA{Pix: img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):], Stride: img.Stride,
		Rect: image.Rect(0, 0, img.Rect.Dx(), img.Rect.Dy())}
}

// workSize is the working grid for a w×h photo: the photo itself when small,
// else fitted into workSide, aspect kept.
func workSize(w, h int) (int, int) {
	long := max(w, h)
	if long <= workSide {
		return w, h
	}
	return max(w*workSide/long, 1), max(h*workSide/long, 1)
}

// modelInput normalises rgb, resampled to the model's square input (aspect
// not kept, as the model was trained), into planar RGB.
func modelInput(rgb [3]plane, spec modelSpec) []float32 {
	n := spec.size * spec.size
	out := getFloats(3 * n)
	for c := range 3 {
		m, inv := spec.mean[c], 1/spec.std[c]
		dst := out[c*n : (c+1)*n]
		for i, v := range rgb[c].Pix {
			dst[i] = (v - m) * inv
		}
	}
	return out
}

// scaleRect maps r from a w×h grid to a W×H one, rounding outwards.
func scaleRect(r image.Rectangle, w, h, W, H int) image.Rectangle {
	return image.Rect(r.Min.X*W/w, r.Min.Y*H/h, min((r.Max.X*W+w-1)/w, W), min((r.Max.Y*H+h-1)/h, H))
}
