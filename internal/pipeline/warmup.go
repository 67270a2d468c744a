package pipeline

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/drawncar"
)

// WarmUp runs default_white runs times on a drawn car of w×h pixels, so
// that the first real photos after start find the model's session and the
// pipeline's recycled buffers as later ones do; it returns each run's
// time. A service calls it before it answers ready (issue 13: the first
// requests after start took up to 1.8 times the steady state).
func (e *Engine) WarmUp(ctx context.Context, w, h, runs int) ([]time.Duration, error) {
	photo, _, err := encode(warmUpPhoto(w, h), false, FormatJPEG, DefaultQuality)
	if err != nil {
		return nil, fmt.Errorf("pipeline: warm-up photo: %w", err)
	}
	cfg, _ := catalog.PredefinedConfiguration("default_white")
	var took []time.Duration
	for range runs {
		start := time.Now()
		if _, err := e.Run(ctx, Request{Processors: cfg.Processors, Photo: photo}); err != nil {
			return took, fmt.Errorf("pipeline: warm-up: %w", err)
		}
		took = append(took, time.Since(start))
	}
	return took, nil
}

// warmUpScale is how much smaller the drawn car is than the warm-up photo:
// drawing it at 12 MP takes seconds and leaves hundreds of megabytes of
// garbage, while the pipeline only needs a car of the photo's size.
const warmUpScale = 4

// warmUpPhoto is the synthetic car drawn at a quarter of w×h, enlarged to
// w×h by repeating pixels.
func warmUpPhoto(w, h int) *image.NRGBA {
	small := drawncar.New(max(w/warmUpScale, 1), max(h/warmUpScale, 1), 0).Photo
	sw, sh := small.Rect.Dx(), small.Rect.Dy()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		src := small.Pix[min(y/warmUpScale, sh-1)*small.Stride:]
		dst := img.Pix[y*img.Stride:]
		for x := range w {
			sx := min(x/warmUpScale, sw-1)
			copy(dst[4*x:4*x+4], src[4*sx:4*sx+4])
		}
	}
	return img
}
