package library_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/showroom"
)

// What an upload is accepted with is what a run decodes it with: a camera
// file with garbage between its header segments is accepted and used;
// a file whose scan ends before its data (bytes lost in the middle), which
// Go's decoder took and libjpeg refuses, is refused at upload, not in
// every run after three model runs.
func TestUploadIsCheckedByThePipelineDecoder(t *testing.T) {
	f := newFixture(t)
	camera := codectest.Garbage(codectest.BaselineJPEG(320, 240), 0xC4, 30)
	if _, _, err := f.lib.Upload(f.alice, "camera", showroom.ContentBackground, camera); err != nil {
		t.Fatalf("a camera file with garbage between segments: %v", err)
	}
	img, err := f.lib.LoadContent(f.alice, "camera")
	if err != nil {
		t.Fatalf("running with it: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 320 || b.Dy() != 240 {
		t.Errorf("decoded %v", b)
	}
	broken := codectest.AfterFirstScan(codectest.ProgressiveJPEG(320, 240, 1, 5), 40)
	for _, typ := range showroom.ContentTypes {
		_, _, err := f.lib.Upload(f.alice, "broken", typ, broken)
		if showroom.ErrorCode(err) != showroom.EInvalidImage {
			t.Errorf("%s with a scan that ends before its data: %v, want INVALID_IMAGE", typ, err)
		}
	}
}

// Hostile uploads are refused from their header and structure, at once,
// without a decode slot: thousands of JPEG scans (422), a 16-bit PNG over
// the decode budget though within the pixel limit (413).
func TestUploadLimitsWorkAndMemory(t *testing.T) {
	f := newFixture(t)
	for name, tc := range map[string]struct {
		body []byte
		code string
	}{
		"10,000 scans":            {codectest.ProgressiveJPEG(2048, 2048, 1, 10_000), showroom.EInvalidImage},
		"10,000 scans, CMYK":      {codectest.ProgressiveJPEG(1024, 1024, 4, 10_000), showroom.EInvalidImage},
		"57 MP 16-bit RGBA PNG":   {codectest.PNGHeader(7550, 7550, 16, 6), showroom.EPayloadTooLarge},
		"over the pixel limit":    {codectest.PNGHeader(8000, 8000, 8, 2), showroom.EPayloadTooLarge},
		"57 MP 8-bit, no IDAT ok": {codectest.PNGHeader(7550, 7550, 8, 2), showroom.EInvalidImage},
	} {
		start := codectest.CPUTime()
		_, _, err := f.lib.Upload(f.alice, "bg", showroom.ContentBackground, tc.body)
		if showroom.ErrorCode(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
		if d := codectest.CPUTime() - start; d > time.Second {
			t.Errorf("%s: answered after %v of CPU", name, d)
		}
	}
}

// Content stored before a check it now fails (or under limits since
// lowered) is the client's to replace: a run gets INVALID_IMAGE naming it,
// which the queue does not retry, not INTERNAL three times over.
func TestStoredContentThatNoLongerDecodes(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	rec, _, err := f.lib.Upload(f.alice, "oldbg", showroom.ContentBackground, codectest.BaselineJPEG(64, 48))
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"10,000 scans": codectest.ProgressiveJPEG(2048, 2048, 1, 10_000),
		"truncated":    codectest.BaselineJPEG(320, 240)[:2000],
		"16-bit 57 MP": codectest.PNGHeader(7550, 7550, 16, 6),
	} {
		// The bytes as an earlier version let them in.
		if err := f.blobs.Put(ctx, rec.BlobKey, bytes.NewReader(bad)); err != nil {
			t.Fatal(err)
		}
		start := codectest.CPUTime()
		_, err := f.lib.LoadContent(f.alice, "oldbg")
		var se *showroom.Error
		if showroom.ErrorCode(err) != showroom.EInvalidImage || !errors.As(err, &se) || !strings.Contains(se.Message, `"oldbg"`) {
			t.Errorf("%s: %v, want INVALID_IMAGE naming the content", name, err)
		}
		if d := codectest.CPUTime() - start; d > time.Second {
			t.Errorf("%s: answered after %v of CPU", name, d)
		}
	}
}
