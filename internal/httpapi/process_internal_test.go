package httpapi

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/showroom"
)

func TestOutputFormat(t *testing.T) {
	for _, tc := range []struct {
		query, accept string
		want          string
		code          string
	}{
		{"", "", "", ""},
		{"format=png", "", "png", ""},
		{"format=JPG", "image/png", "jpeg", ""}, // the query wins over Accept
		{"format=webp", "", "webp", ""},
		{"format=gif", "", "", showroom.EInvalidParameter},
		{"", "image/webp", "webp", ""},
		{"", "image/png;q=0.5, image/jpeg;q=0.9", "jpeg", ""},
		{"", "image/*", "", ""},
		{"", "*/*", "", ""},
		{"", "text/html, image/webp;q=0.1", "webp", ""},
		{"", "text/html", "", showroom.ENotAcceptable},
		{"", "image/png;q=0", "", showroom.ENotAcceptable},
	} {
		r := httptest.NewRequest("POST", "/v1/process/single/x?"+tc.query, nil)
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		got, err := outputFormat(r)
		if code := showroom.ErrorCode(err); got != tc.want || code != tc.code {
			t.Errorf("format %q accept %q: %q, %q; want %q, %q", tc.query, tc.accept, got, code, tc.want, tc.code)
		}
	}
}

func TestWantsAsyncAndQuality(t *testing.T) {
	for _, tc := range []struct {
		query, prefer string
		async         bool
		err           bool
	}{
		{"", "", false, false},
		{"async=true", "", true, false},
		{"async=1", "", true, false},
		{"async=false", "respond-async", false, false},
		{"", "respond-async", true, false},
		{"", "handling=lenient, respond-async", true, false},
		{"async=maybe", "", false, true},
	} {
		r := httptest.NewRequest("POST", "/x?"+tc.query, nil)
		if tc.prefer != "" {
			r.Header.Set("Prefer", tc.prefer)
		}
		got, err := wantsAsync(r)
		if got != tc.async || (err != nil) != tc.err {
			t.Errorf("%q %q: %v, %v", tc.query, tc.prefer, got, err)
		}
	}
	for q, ok := range map[string]bool{"": true, "1": true, "100": true, "0": false, "101": false, "x": false} {
		_, err := quality(httptest.NewRequest("POST", "/x?quality="+q, nil))
		if (err == nil) != ok {
			t.Errorf("quality %q: %v", q, err)
		}
	}
}

func TestSniffPhoto(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
		code string
	}{
		{"jpeg", []byte{0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3}, ""},
		{"png", []byte("\x89PNG\r\n\x1a\nrest"), ""},
		{"webp", []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), ""},
		{"gif", []byte("GIF89a......"), showroom.EUnsupportedMedia},
		{"text", []byte("hello"), showroom.EUnsupportedMedia},
		{"empty", nil, showroom.EInvalidBody},
	} {
		r, err := sniffPhoto(bytes.NewReader(tc.data))
		if code := showroom.ErrorCode(err); code != tc.code {
			t.Errorf("%s: code %q, want %q", tc.name, code, tc.code)
			continue
		}
		if err == nil {
			got, _ := io.ReadAll(r)
			if !bytes.Equal(got, tc.data) {
				t.Errorf("%s: sniffing lost bytes", tc.name)
			}
		}
	}
}

// TestServerTiming: each step under its own name, without a description
// that says nothing; a step that comes again says which run it is.
func TestServerTiming(t *testing.T) {
	got := serverTiming([]showroom.Timing{{Name: "decode", Duration: 12300 * time.Microsecond}, {Name: "DetectCarMaskProcessor", Duration: time.Second},
		{Name: "PlaceShadowProcessor", Duration: 2 * time.Millisecond}, {Name: "PlaceShadowProcessor", Duration: 3 * time.Millisecond}})
	want := `decode;dur=12.3, DetectCarMaskProcessor;dur=1000.0, PlaceShadowProcessor;dur=2.0, PlaceShadowProcessor;dur=3.0;desc="run 2"`
	if got != want {
		t.Errorf("Server-Timing %q, want %q", got, want)
	}
}

func TestCheckPhotoHeader(t *testing.T) {
	encode := func(w, h int) []byte {
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	// A photo longer than one read, so the reader handed on must give back
	// what the check read as well as the rest.
	big := make([]byte, 1<<20)
	copy(big, encode(64, 64))
	jpg := codectest.BaselineJPEG(64, 48)
	for _, tc := range []struct {
		name      string
		photo     []byte
		maxPixels int
		code      string
	}{
		{"ordinary", encode(64, 48), 10_000, ""},
		{"longer than a read", big, 10_000, ""},
		{"too narrow", encode(7, 100), 0, showroom.EInvalidImage},
		{"too low", encode(100, 7), 0, showroom.EInvalidImage},
		{"over the pixel limit", encode(200, 100), 10_000, showroom.EPayloadTooLarge},
		{"no limit", encode(200, 100), 0, ""},
		{"header unreadable: left to the decoder", []byte("\x89PNG\r\n\x1a\nbroken"), 10_000, ""},
		{"JPEG", jpg, 10_000, ""},
		{"JPEG, 1 MB of comment before its frame header", codectest.Commented(jpg, 1<<20), 10_000, ""},
		{"JPEG, 1 MB of comment, over the pixel limit", codectest.Commented(jpg, 1<<20), 3000, showroom.EPayloadTooLarge},
		{"JPEG, 1 MB of comment, too narrow", codectest.Commented(codectest.BaselineJPEG(7, 48), 1<<20), 0, showroom.EInvalidImage},
		{"JPEG without a frame header", codectest.WithoutFrame(jpg), 10_000, showroom.EInvalidImage},
		{"JPEG, 1 MB of comment and no frame header", codectest.Commented(codectest.WithoutFrame(jpg), 1<<20), 10_000, showroom.EInvalidImage},
		{"JPEG cut in its comment", codectest.Commented(jpg, 1<<20)[:500_000], 10_000, showroom.EInvalidImage},
	} {
		r, err := checkPhotoHeader(bytes.NewReader(tc.photo), tc.maxPixels)
		if got := showroom.ErrorCode(err); err != nil && got != tc.code || err == nil && tc.code != "" {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.code)
			continue
		}
		if err != nil {
			continue
		}
		if b, err := io.ReadAll(r); err != nil || !bytes.Equal(b, tc.photo) {
			t.Errorf("%s: the photo read back differs (%d of %d bytes, %v)", tc.name, len(b), len(tc.photo), err)
		}
	}
}
