package httpapi_test

import (
	"bytes"
	"context"
	"image"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// drawnSegmenter answers with a drawn car's exact matte, whatever the
// photo: the warnings are about the photo's framing, not the model.
type drawnSegmenter struct{ car *drawncar.Car }

func (s drawnSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	return &vision.Mask{Alpha: s.car.Matte, Box: s.car.Box, Confidence: 0.95}, nil
}

// TestResultWarnings: a photo whose car the frame cuts is processed, and
// its job record and result say so (the record with a message naming the
// side, the result's Showroom-Warnings header with the code); a clean,
// centred photo's record has an empty list and its result no header.
func TestResultWarnings(t *testing.T) {
	car := drawncar.New(480, 300, 0)
	cut := drawncar.Crop(car, image.Rect(120, 0, 480, 300))
	for _, tc := range []struct {
		name   string
		car    *drawncar.Car
		header string
		says   string
	}{
		{"clean and centred", car, "", ""},
		{"cut on the left", cut, showroom.WarnCarCutByFrame, "left edge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), drawnSegmenter{tc.car}))
			e.addUser("acme", "alice")
			alice := e.bearer("alice")
			res := e.do("POST", "/v1/process/single/free_cutout", bytes.NewReader(encodePNG(t, tc.car.Photo)),
				with(alice, "Content-Type", "application/octet-stream")).wantStatus(200)
			got, present := res.header.Get("Showroom-Warnings"), len(res.header.Values("Showroom-Warnings")) > 0
			if got != tc.header || present != (tc.header != "") {
				t.Errorf("Showroom-Warnings %q (present %v), want %q", got, present, tc.header)
			}
			id := res.header.Get("X-Job-ID")
			var job struct {
				Warnings []struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"warnings"`
			}
			e.do("GET", "/v1/process/jobs/"+id, nil, alice).wantStatus(200).decode(&job)
			if job.Warnings == nil {
				t.Fatal("the job record has no warnings list")
			}
			var codes []string
			for _, w := range job.Warnings {
				codes = append(codes, w.Code)
				if !strings.Contains(w.Message, tc.says) {
					t.Errorf("warning %s says %q, want it to name %q", w.Code, w.Message, tc.says)
				}
			}
			if strings.Join(codes, ",") != tc.header {
				t.Errorf("the job's warnings %+v, want codes %q", job.Warnings, tc.header)
			}
			again := e.do("GET", "/v1/process/jobs/"+id+"/result", nil, alice).wantStatus(200)
			if h := again.header.Get("Showroom-Warnings"); h != tc.header {
				t.Errorf("the stored result's Showroom-Warnings %q, want %q", h, tc.header)
			}
		})
	}
}
