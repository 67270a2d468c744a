package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// Segmenter is what DetectCarMaskProcessor needs from *vision.Segmenter:
// the car's matte, box, confidence and border share for a decoded photo.
type Segmenter interface {
	Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error)
}

// ContentLoader loads content (backgrounds, posters) by name, for the
// company the run acts for: the one ctx carries
// (showroom.CompanyFromContext), which the run's boundary (the queue, the
// CLI) resolved and put there. The pipeline names content and knows no
// company, so no name can reach another company's. A missing name is a
// *showroom.Error with code CONTENT_NOT_FOUND.
type ContentLoader interface {
	LoadContent(ctx context.Context, name string) (image.Image, error)
}

// EngineConfig configures an Engine.
type EngineConfig struct {
	Segmenter Segmenter
	Content   ContentLoader
	// MaxPixels refuses bigger photos (PAYLOAD_TOO_LARGE) from their
	// header, before decoding; 0 means no limit. It also bounds the
	// canvas and the output, but never below MaxNamedSide² pixels
	// (INVALID_CONFIGURATION, before they are drawn).
	MaxPixels int
	// MaxDecodeBytes refuses photos whose decode takes more memory
	// (PAYLOAD_TOO_LARGE; see codec.Header.DecodedBytes), from their
	// header; 0 means no limit.
	MaxDecodeBytes int64
	// Observe, when set, is called with each processor's name and time.
	Observe func(processor string, d time.Duration)
}

// Engine runs configurations on photos. Safe for concurrent use.
type Engine struct {
	cfg EngineConfig
}

// NewEngine returns an engine; the segmenter is required.
func NewEngine(cfg EngineConfig) (*Engine, error) {
	if cfg.Segmenter == nil {
		return nil, errors.New("pipeline: EngineConfig.Segmenter is required")
	}
	if cfg.MaxPixels < 0 || cfg.MaxDecodeBytes < 0 {
		return nil, fmt.Errorf("pipeline: MaxPixels %d or MaxDecodeBytes %d is negative", cfg.MaxPixels, cfg.MaxDecodeBytes)
	}
	if err := startVips(); err != nil {
		return nil, fmt.Errorf("pipeline: starting libvips: %w", err)
	}
	return &Engine{cfg: cfg}, nil
}

// Request is one photo to run through one configuration.
type Request struct {
	// Processors is the configuration's processor array as stored.
	Processors json.RawMessage
	// Photo is the encoded JPEG, PNG or WebP photo.
	Photo []byte
	// Format is "", "jpeg", "png" or "webp"; "" is JPEG, or PNG when the
	// result has transparency or a side past MaxJPEGSide.
	Format string
	// Quality is 1-100 for JPEG and WebP; 0 means DefaultQuality.
	Quality int
}

// Result is the processed image.
type Result struct {
	Image         []byte
	MediaType     string
	Width, Height int
	// Timings are, in order: decode, each processor by its name, render,
	// encode; a processor that waited for its turn at the model
	// (vision.Config.ConcurrentRuns) is followed by ModelWaitTiming, the
	// part of its time spent waiting.
	Timings []showroom.Timing
	// Warnings are what a person should check in the result (see
	// showroom.Warning); empty, not nil, for a clean photo.
	Warnings []showroom.Warning
}

// ModelWaitTiming names the timing of a wait for the model's turn.
const ModelWaitTiming = "ModelWait"

// step is a processor ready to change a scene.
type step interface {
	apply(ctx context.Context, r *run, s *Scene) error
}

// run is what processors may use besides the scene.
type run struct {
	e *Engine
	// modelWait is how long the current step waited for its turn at the
	// model, for the timings.
	modelWait time.Duration
	// features are the segmenter's activations for the photo
	// (vision.Mask.Features), for the glass detector; nil until
	// DetectCarMaskProcessor ran.
	features []vision.Features
}

// build makes a processor's step from its typed parameters.
func build(p catalog.Params) (step, error) {
	switch p := p.(type) {
	case catalog.DetectCarMaskParams:
		return newDetectMask(p), nil
	case catalog.DetectCarShadowParams:
		return newDetectShadow(p), nil
	case catalog.PlaceShadowParams:
		return newPlaceShadow(p), nil
	case catalog.CleanBackgroundParams:
		return newCleanBackground(p), nil
	case catalog.WindowsParams:
		return newWindows(p), nil
	case catalog.PlaceCarParams:
		return newPlaceCar(p), nil
	case catalog.AddBackgroundParams:
		return newAddBackground(p), nil
	case catalog.PosterParams:
		return newPoster(p), nil
	case catalog.ResizeParams:
		return newResize(p), nil
	}
	return nil, showroom.Internal(fmt.Errorf("pipeline: processor %s in the catalog has no implementation", p.Processor()))
}

// Parse checks a configuration against the catalog (catalog.Parse) and
// returns its processors' names and steps. Errors are
// INVALID_CONFIGURATION with details.
func Parse(raw json.RawMessage) ([]string, []step, error) {
	cfg, err := catalog.Parse(raw)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(cfg))
	steps := make([]step, len(cfg))
	for i, p := range cfg {
		if steps[i], err = build(p); err != nil {
			return nil, nil, err
		}
		names[i] = p.Processor()
	}
	return names, steps, nil
}

// Run decodes the photo, applies the configuration's processors to its
// scene in order, renders the scene once and encodes it. Errors a client
// caused are *showroom.Error; others are internal.
func (e *Engine) Run(ctx context.Context, req Request) (*Result, error) {
	names, steps, err := Parse(req.Processors)
	if err != nil {
		return nil, err
	}
	if req.Format != "" && !codec.Format(req.Format).Known() {
		return nil, showroom.Errorf(showroom.EInvalidBody, "unknown output format %q: use jpeg, png or webp", req.Format)
	}
	res := &Result{}
	lap := &stopwatch{ts: &res.Timings, t: time.Now()}

	photo, err := codec.Decode(ctx, req.Photo, codec.Limits{MinSide: codec.MinSide, MaxPixels: e.cfg.MaxPixels, MaxBytes: e.cfg.MaxDecodeBytes})
	if err != nil {
		return nil, err
	}
	// The scene and its layers are gone with this call; only the encoded
	// result leaves it.
	defer codec.Recycle(photo)
	lap.lap("decode")
	s := NewScene(photo)
	r := &run{e: e}
	// The activations, like the photo, are done with when the run is.
	defer func() { vision.RecycleFeatures(r.features) }()
	var sized sizing
	for i := 0; i < len(steps); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		group := steps[i : i+analysesTogether(steps[i:])]
		canvas, output := s.Canvas, s.Output
		took, err := applyTogether(ctx, r, s, group)
		if err != nil {
			return nil, err
		}
		// Analyses run together never size: a group that did is one step.
		if s.Canvas != canvas {
			sized.canvas = fmt.Sprintf("%s at /%d", names[i], i)
		}
		if s.Output != output {
			sized.output = fmt.Sprintf("%s at /%d", names[i], i)
		}
		for k, d := range took {
			lap.add(names[i+k], d)
			if e.cfg.Observe != nil {
				e.cfg.Observe(names[i+k], d)
			}
		}
		if r.modelWait > 0 {
			// Part of the step's time just recorded, said apart.
			res.Timings = append(res.Timings, showroom.Timing{Name: ModelWaitTiming, Duration: r.modelWait})
			r.modelWait = 0
		}
		i += len(group)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Read from the scene as the processors left it, before the render
	// hands its layers back.
	res.Warnings = warnings(s)
	// Sizes are only numbers until the render: refused here, nothing of
	// their size has been allocated.
	format := outputFormat(s, req.Format)
	if err := checkSizes(s, format, e.outputPixels(), sized); err != nil {
		return nil, err
	}
	img, hasAlpha, streamed, err := renderEncoding(s, format, req.Quality)
	lap.lap("render")
	switch {
	case err != nil:
	case streamed != nil:
		res.Image, res.MediaType = streamed, codec.JPEG.MediaType()
	default:
		res.Image, res.MediaType, err = encode(img, hasAlpha, format, req.Quality)
	}
	res.Width, res.Height = img.Rect.Dx(), img.Rect.Dy()
	// The encoder keeps no reference to the canvas: its buffer can serve
	// the next photo (a fresh one costs page faults, see codec.NewNRGBA).
	codec.Recycle(img)
	if err != nil {
		return nil, err
	}
	lap.lap("encode")
	return res, nil
}

// renderEncoding renders s and, when the result is sure to be an opaque
// JPEG, compresses it as the rows are rendered: the encoder on one core
// beside the renderer, instead of after it. Then out is the file (the
// render's time includes the encoder's on the rows rendered, the encode's
// what is left after the last row); else out is nil and the canvas is
// still to encode.
func renderEncoding(s *Scene, format string, quality int) (img *image.NRGBA, hasAlpha bool, out []byte, err error) {
	// A quality out of range is left for encode to refuse.
	quality, qerr := outputQuality(quality)
	if (format != "" && format != FormatJPEG) || qerr != nil ||
		len(s.Posters) > 0 || s.Output != nil || !s.opaqueBackground() {
		img, hasAlpha = Render(s)
		return img, hasAlpha, nil, nil
	}
	w, err := codec.NewJPEGWriter(s.Canvas.X, s.Canvas.Y, quality)
	if err != nil {
		img, hasAlpha = Render(s)
		return img, hasAlpha, nil, fmt.Errorf("pipeline: encode jpeg: %w", err)
	}
	defer w.Close()
	rows := newRowFrontier(s.Canvas.Y)
	var written sync.WaitGroup
	var writeErr error
	written.Go(func() {
		for next := 0; next < s.Canvas.Y && writeErr == nil; {
			ready, img := rows.wait(next)
			writeErr = w.WriteRows(img, next, ready)
			next = ready
		}
	})
	img, hasAlpha = renderRows(s, rows.mark)
	written.Wait()
	if hasAlpha {
		// Not expected over an opaque background; encode sees to it.
		return img, hasAlpha, nil, nil
	}
	if writeErr == nil {
		out, writeErr = w.Finish()
	}
	if writeErr != nil {
		return img, hasAlpha, nil, fmt.Errorf("pipeline: encode jpeg: %w", writeErr)
	}
	return img, hasAlpha, out, nil
}

// rowFrontier tells which of a canvas's rows are final, from the top: the
// render marks bands done in any order, the encoder waits for the next.
type rowFrontier struct {
	mu    sync.Mutex
	more  *sync.Cond
	done  []bool
	ready int // rows 0 to ready-1 are final
	img   *image.NRGBA
}

func newRowFrontier(rows int) *rowFrontier {
	f := &rowFrontier{done: make([]bool, rows)}
	f.more = sync.NewCond(&f.mu)
	return f
}

// mark records rows lo to hi of img as final.
func (f *rowFrontier) mark(img *image.NRGBA, lo, hi int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.img = img
	for y := lo; y < hi; y++ {
		f.done[y] = true
	}
	for f.ready < len(f.done) && f.done[f.ready] {
		f.ready++
	}
	f.more.Broadcast()
}

// wait returns once rows beyond from are final: up to which row, and the
// canvas.
func (f *rowFrontier) wait(from int) (int, *image.NRGBA) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.ready <= from {
		f.more.Wait()
	}
	return f.ready, f.img
}

// stopwatch appends the stages' times to ts.
type stopwatch struct {
	ts *[]showroom.Timing
	t  time.Time // when the stage under way began
}

// lap appends the time since the last stage ended.
func (w *stopwatch) lap(name string) {
	now := time.Now()
	*w.ts = append(*w.ts, showroom.Timing{Name: name, Duration: now.Sub(w.t)})
	w.t = now
}

// add appends a stage timed apart (one of steps that ran together) and
// starts the next stage now.
func (w *stopwatch) add(name string, d time.Duration) {
	*w.ts = append(*w.ts, showroom.Timing{Name: name, Duration: d})
	w.t = time.Now()
}

// analysis is a step that reads only the photo, the car's matte, box and
// raw answer and the working grid, and writes scene fields that no other
// kind of analysis reads or writes: analyses of different kinds in a row
// can run at the same time (two of one kind stay in order, the later one
// replacing the earlier's answer).
type analysis interface {
	step
	// finds names what the analysis finds, one name a kind.
	finds() string
}

// analysesTogether returns how many of steps, from the first, can run at
// the same time: the run of analyses of different kinds it starts, or 1.
func analysesTogether(steps []step) int {
	seen := map[string]bool{}
	n := 0
	for _, st := range steps {
		a, ok := st.(analysis)
		if !ok || seen[a.finds()] {
			break
		}
		seen[a.finds()] = true
		n++
	}
	return max(n, 1)
}

// applyTogether applies group to s, each step in a goroutine of its own when
// there are several (analysesTogether), and returns each step's time. The
// working grid they share is made first: it is made lazily, on first use.
func applyTogether(ctx context.Context, r *run, s *Scene, group []step) ([]time.Duration, error) {
	took := make([]time.Duration, len(group))
	if len(group) == 1 {
		t := time.Now()
		err := group[0].apply(ctx, r, s)
		took[0] = time.Since(t)
		return took, err
	}
	t := time.Now()
	if s.hasCar() {
		s.workGrid()
	}
	grid := time.Since(t)
	errs := make([]error, len(group))
	var wg sync.WaitGroup
	for k, st := range group {
		wg.Go(func() {
			t := time.Now()
			errs[k] = st.apply(ctx, r, s)
			took[k] = time.Since(t)
		})
	}
	wg.Wait()
	// The grid is the first step's cost, as it is when the steps go one
	// after the other.
	took[0] += grid
	for _, err := range errs {
		if err != nil {
			return nil, err // the first in the configuration's order
		}
	}
	return took, nil
}

// outputPixels returns the engine's output limit, 0 (none) without an
// engine.
func (r *run) outputPixels() int64 {
	if r.e == nil {
		return 0
	}
	return r.e.outputPixels()
}

// loadContent loads content as NRGBA, for the company in ctx.
func (r *run) loadContent(ctx context.Context, name string) (*image.NRGBA, error) {
	if r.e == nil || r.e.cfg.Content == nil {
		return nil, showroom.Errorf(showroom.EContentNotFound, "content %q not found", name)
	}
	img, err := r.e.cfg.Content.LoadContent(ctx, name)
	if err != nil {
		return nil, err
	}
	return toNRGBA(img), nil
}

// Apply applies a configuration's processors to s in order, as Run does
// between decoding and rendering, for pictures drawn on a scene after its
// processors placed the car (the docs' placement diagram).
func (e *Engine) Apply(ctx context.Context, processors json.RawMessage, s *Scene) error {
	_, steps, err := Parse(processors)
	if err != nil {
		return err
	}
	r := &run{e: e}
	for _, st := range steps {
		if err := st.apply(ctx, r, s); err != nil {
			return err
		}
	}
	return nil
}
