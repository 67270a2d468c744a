package httpapi_test

import (
	"bytes"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// TestOutputTooLarge: a configuration that would make a canvas or an
// output past the limits from the shape of its content or of the photo
// is answered 422 INVALID_CONFIGURATION at once, synchronously or as a job
// failed on its first attempt, instead of taking the process down; an
// output past its format's side is refused naming the limit. Content of
// an extreme shape is accepted: only what it would make is refused.
func TestOutputTooLarge(t *testing.T) {
	e := newEnvWith(t, library.DefaultConfig(), withEngine(runnerConfig(), carSegmenter{}))
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	process := func(config string, body []byte, query string) *response {
		return e.do("POST", "/v1/process/single/"+config+query, bytes.NewReader(body), with(alice, "Content-Type", "image/png"))
	}
	wantBody := func(r *response, message string) {
		t.Helper()
		body := r.wantError(422, showroom.EInvalidConfig)
		if body["message"] != message {
			t.Errorf("message %q, want %q", body["message"], message)
		}
		var keys []string
		for k := range body {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"errorCode", "message", "reason", "status", "timestamp"}; !slices.Equal(keys, want) {
			t.Errorf("body fields %v, want %v", keys, want)
		}
	}

	e.upload(alice, "tall", "BACKGROUND_SIMPLE", pngBytes(t, 8, 65_000), "image/png").wantStatus(201)
	e.do("POST", "/v1/configuration/tall", rawJSON(`[{"processorName":"DetectCarMaskProcessor"},`+
		`{"processorName":"AddBackgroundAndCropProcessor","background":"tall","outputWidth":8192}]`), alice).wantStatus(201)
	const tooLarge = "AddBackgroundAndCropProcessor at /1 would make a canvas of 8192x66560000 pixels (545259.5 megapixels) " +
		"from this photo and content; at most 67.1 megapixels are made: name both of the output's sides"
	photo := pngBytes(t, 480, 300)
	start := time.Now()
	wantBody(process("tall", photo, ""), tooLarge)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("answered after %v", d)
	}

	var job struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Attempts int    `json:"attempts"`
		Error    *struct {
			Status    int    `json:"status"`
			ErrorCode string `json:"errorCode"`
			Message   string `json:"message"`
		} `json:"error"`
	}
	process("tall", photo, "?async=true").wantStatus(http.StatusAccepted).decode(&job)
	for deadline := time.Now().Add(10 * time.Second); job.Status != "failed"; time.Sleep(20 * time.Millisecond) {
		e.do("GET", "/v1/process/jobs/"+job.ID, nil, alice).wantStatus(200).decode(&job)
		if job.Status == "succeeded" || time.Now().After(deadline) {
			t.Fatalf("job %+v", job)
		}
	}
	if job.Error == nil || job.Error.Status != 422 || job.Error.ErrorCode != showroom.EInvalidConfig ||
		job.Error.Message != tooLarge || job.Attempts != 1 {
		t.Errorf("job failed with %+v after %d attempts, want 422 INVALID_CONFIGURATION on the first", job.Error, job.Attempts)
	}

	// Past a format's side: refused naming the limit; without a format
	// named, the pipeline's choice is PNG.
	wide := pngBytes(t, 70_000, 8)
	wantBody(process("free_cutout", wide, "?format=jpeg"), "the configuration would make an output of 70000x8 pixels; "+
		"JPEG allows at most 65500 pixels a side: ask for a smaller output, or for format png")
	wantBody(process("free_cutout", pngBytes(t, 16_384, 8), "?format=webp"), "the configuration would make an output of 16384x8 pixels; "+
		"WebP allows at most 16383 pixels a side: ask for a smaller output, or for format png")
	if ct := process("free_cutout", wide, "").wantStatus(200).header.Get("Content-Type"); ct != "image/png" {
		t.Errorf("Content-Type %q, want image/png", ct)
	}
}
