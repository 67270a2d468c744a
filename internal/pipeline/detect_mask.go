package pipeline

import (
	"context"
	"fmt"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// detectMask is DetectCarMaskProcessor: it segments the car, refuses a
// photo without a car or with the car cut off by the frame, and cuts the car
// out onto transparency.
type detectMask struct {
	detection, crop float64
}

func newDetectMask(p catalog.DetectCarMaskParams) step {
	return &detectMask{detection: p.DetectionThreshold, crop: p.CropThreshold}
}

func (d *detectMask) apply(ctx context.Context, r *run, s *Scene) error {
	m, err := r.e.cfg.Segmenter.Segment(ctx, s.Photo)
	if err != nil {
		return err
	}
	r.modelWait += m.ModelWait
	if m.Box.Empty() || m.Confidence < d.detection {
		return showroom.Errorf(showroom.ENoCarDetected,
			"no car found in the photo (confidence %.2f, threshold %.2f)", m.Confidence, d.detection)
	}
	// carCropThreshold 1 never rejects, even a car touching the border all
	// round.
	if d.crop < 1 && m.BorderShare > d.crop {
		return showroom.Errorf(showroom.ECarCropped,
			"the car is cut off by the photo's edge (%.0f%% of its outline on the border, at most %.0f%% allowed)",
			100*m.BorderShare, 100*d.crop)
	}
	if m.Alpha == nil || m.Alpha.Rect.Size() != s.Photo.Rect.Size() {
		return showroom.Internal(fmt.Errorf("pipeline: matte size differs from the photo's"))
	}
	s.setCar(m.Alpha, m.Box, m.Raw)
	r.features = m.Features
	s.Confidence, s.Detection = m.Confidence, d.detection
	return nil
}
