package pipeline

import (
	"context"
	"fmt"
	"time"
)

// WarmUp runs default_white runs times on a drawn car of w×h pixels, so
// that the first real photos after start find the model's session and the
// pipeline's recycled buffers as later ones do; it returns each run's
// time. A service calls it before it answers ready (issue 13: the first
// requests after start took up to 1.8 times the steady state).
func (e *Engine) WarmUp(ctx context.Context, w, h, runs int) ([]time.Duration, error) {
	photo, _, err := encode(NewSyntheticCar(w, h, 0).Photo, false, FormatJPEG, DefaultQuality)
	if err != nil {
		return nil, fmt.Errorf("pipeline: warm-up photo: %w", err)
	}
	cfg, _ := PredefinedConfiguration("default_white")
	var took []time.Duration
	for range runs {
		start := time.Now()
		if _, err := e.Run(ctx, Request{Company: SystemCompany, Processors: cfg.Processors, Photo: photo}); err != nil {
			return took, fmt.Errorf("pipeline: warm-up: %w", err)
		}
		took = append(took, time.Since(start))
	}
	return took, nil
}
