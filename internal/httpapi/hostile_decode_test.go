package httpapi_test

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/vision"
	"github.com/showroom/showroom/internal/vision/visiontest"
)

// Hostile image files, made here (visiontest writes them byte by byte),
// through the HTTP API: refused from their header or structure with the
// contract's error body, at once, or accepted when a camera's quirk leaves
// the image whole.
func TestHostileDecodeUploads(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	camera := visiontest.BaselineJPEG(320, 240)
	for _, tc := range []struct {
		what   string
		body   []byte
		ct     string
		status int
		code   string
	}{
		{"10,000 scans", visiontest.ProgressiveJPEG(2048, 2048, 1, 10_000), "image/jpeg", 422, showroom.EInvalidImage},
		{"10,000 scans, CMYK", visiontest.ProgressiveJPEG(1024, 1024, 4, 10_000), "image/jpeg", 422, showroom.EInvalidImage},
		{"101 scans", visiontest.ProgressiveJPEG(64, 64, 1, 101), "image/jpeg", 422, showroom.EInvalidImage},
		{"scan ends before its data", visiontest.AfterFirstScan(visiontest.ProgressiveJPEG(320, 240, 1, 5), 40), "image/jpeg", 422, showroom.EInvalidImage},
		{"truncated", camera[:len(camera)*3/4], "image/jpeg", 422, showroom.EInvalidImage},
		{"57 MP 16-bit PNG", visiontest.PNGHeader(7550, 7550, 16, 6), "image/png", 413, showroom.EPayloadTooLarge},
	} {
		start := time.Now()
		e.upload(alice, "bg", "BACKGROUND_SIMPLE", tc.body, tc.ct).wantError(tc.status, tc.code)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: answered after %v", tc.what, d)
		}
	}
	for _, tc := range []struct {
		what string
		body []byte
	}{
		{"garbage between header segments", visiontest.Garbage(camera, 0xC4, 30)},
		{"garbage before EOI", visiontest.Garbage(camera, 0xD9, 300)},
		{"CMYK", visiontest.ProgressiveJPEG(64, 48, 4, 10)},
	} {
		if res := e.upload(alice, "ok", "BACKGROUND_SIMPLE", tc.body, "image/jpeg"); res.status != 201 {
			t.Errorf("%s: %d %s, want 201", tc.what, res.status, res.body)
		}
		e.do("DELETE", "/v1/content/ok", nil, alice)
	}
}

// A background accepted on upload is decoded the same way by every run
// that uses it; one stored before the checks of today that no longer
// decodes is the client's to replace: 422 INVALID_IMAGE naming it, at once,
// and an async job fails on its first attempt instead of three model runs
// and a 500. A hostile photo is refused the same way.
func TestHostileDecodeProcessing(t *testing.T) {
	var blobs *blob.Local
	keepBlobs := func(t testing.TB, db *sqlite.DB, b *blob.Local, lib *library.Service, api *httpapi.APIServer) {
		blobs = b
	}
	e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), carSegmenter{}), keepBlobs)
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	car := pipeline.NewSyntheticCar(480, 300, 0)
	var photo bytes.Buffer
	if err := jpeg.Encode(&photo, car.Photo, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	process := func(config string, body []byte, query string) *response {
		return e.do("POST", "/v1/process/single/"+config+query, bytes.NewReader(body), with(alice, "Content-Type", "image/jpeg"))
	}

	// A camera file with garbage between its segments: accepted, and used.
	e.upload(alice, "camera", "BACKGROUND_SIMPLE", visiontest.Garbage(visiontest.BaselineJPEG(640, 400), 0xC4, 30), "image/jpeg").wantStatus(201)
	e.do("POST", "/v1/configuration/onCamera", rawJSON(backgroundConfig("camera")), alice).wantStatus(201)
	process("onCamera", photo.Bytes(), "").wantStatus(200)

	// A background stored by an earlier version, which no longer decodes.
	e.upload(alice, "oldbg", "BACKGROUND_SIMPLE", visiontest.BaselineJPEG(640, 400), "image/jpeg").wantStatus(201)
	c, err := e.lib.Content(context.Background(), &showroom.Principal{Company: "acme"}, "oldbg")
	if err != nil {
		t.Fatal(err)
	}
	if err := blobs.Put(context.Background(), c.BlobKey, bytes.NewReader(visiontest.ProgressiveJPEG(2048, 2048, 1, 10_000))); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/v1/configuration/onOld", rawJSON(backgroundConfig("oldbg")), alice).wantStatus(201)
	start := time.Now()
	body := process("onOld", photo.Bytes(), "").wantError(422, showroom.EInvalidImage)
	if msg, _ := body["message"].(string); !strings.Contains(msg, `"oldbg"`) {
		t.Errorf("the message does not name the content: %q", msg)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %v", d)
	}
	var job struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
		Error    *struct {
			ErrorCode string `json:"errorCode"`
		} `json:"error"`
	}
	process("onOld", photo.Bytes(), "?async=true").wantStatus(202).decode(&job)
	for deadline := time.Now().Add(30 * time.Second); job.Status != "failed"; time.Sleep(20 * time.Millisecond) {
		e.do("GET", "/v1/process/jobs/"+job.ID, nil, alice).wantStatus(200).decode(&job)
		if job.Status == "succeeded" || time.Now().After(deadline) {
			t.Fatalf("job %+v", job)
		}
	}
	if job.Error == nil || job.Error.ErrorCode != showroom.EInvalidImage || job.Attempts != 1 {
		t.Errorf("job failed with %+v after %d attempts, want INVALID_IMAGE on the first", job.Error, job.Attempts)
	}

	// Hostile photos: refused before any model runs.
	for name, tc := range map[string]struct {
		body   []byte
		status int
		code   string
	}{
		"10,000 scans":       {visiontest.ProgressiveJPEG(2048, 2048, 1, 10_000), 422, showroom.EInvalidImage},
		"57 MP 16-bit PNG":   {visiontest.PNGHeader(7550, 7550, 16, 6), 413, showroom.EPayloadTooLarge},
		"scan ends too soon": {visiontest.AfterFirstScan(visiontest.ProgressiveJPEG(320, 240, 1, 5), 40), 422, showroom.EInvalidImage},
	} {
		start := time.Now()
		process("onCamera", tc.body, "").wantError(tc.status, tc.code)
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: answered after %v", name, d)
		}
	}
}

// backgroundConfig is a configuration that puts the car on content bg.
func backgroundConfig(bg string) string {
	return `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"` + bg + `"}]`
}

// carSegmenter finds, in any photo, a car in the middle: the pipeline runs
// without the model, which these tests are not about.
type carSegmenter struct{}

func (carSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	b := img.Rect
	box := image.Rect(b.Dx()/4, b.Dy()/4, b.Dx()*3/4, b.Dy()*3/4)
	alpha := image.NewGray(b)
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			alpha.Pix[y*alpha.Stride+x] = 255
		}
	}
	return &vision.Mask{Alpha: alpha, Box: box, Confidence: 0.95}, nil
}
