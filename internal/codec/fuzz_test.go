package codec

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"testing"
	"testing/iotest"
	"time"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/showroom"
)

// fuzzLimits keep each fuzzed decode small and quick.
var fuzzLimits = Limits{MaxPixels: 1 << 20, MaxBytes: 8 << 20, MaxScans: 40}

// seeds are small valid files of every format and path, and their hostile
// variants, for the fuzzers to mutate.
func seeds(f *testing.F) [][]byte {
	f.Helper()
	jpg := codectest.BaselineJPEG(40, 24)
	grey := new(bytes.Buffer)
	png.Encode(grey, image.NewGray(image.Rect(0, 0, 9, 9)))
	return [][]byte{
		jpg,
		testJPEG(f, 24, 16, 6, vips.InterpretationSRGB), // progressive, rotated
		// CMYK without the 500 kB profile libvips would embed: small seeds
		// are mutated (and minimised) faster.
		codectest.ProgressiveJPEG(16, 16, 4, 2),
		codectest.ProgressiveJPEG(16, 16, 1, 5),
		codectest.ProgressiveJPEG(16, 16, 4, 5),
		codectest.ProgressiveJPEG(16, 16, 1, 60),
		codectest.Garbage(jpg, 0xC4, 7),
		codectest.AfterFirstScan(codectest.ProgressiveJPEG(16, 16, 1, 3), 5),
		jpg[:len(jpg)/2],
		noisePNG(f, 12, 10, false),
		noisePNG(f, 12, 10, true),
		grey.Bytes(),
		codectest.PNGHeader(2000, 2000, 16, 6),
		// Compressed text chunks, which no decoder may inflate, and a
		// comment ahead of a JPEG's frame header, or no frame header.
		codectest.TextBombPNG(9, 9, 3, 1<<16, "zTXt"),
		codectest.TextBombPNG(9, 9, 3, 1<<16, "iTXt"),
		codectest.Commented(jpg, 1000),
		codectest.WithoutFrame(jpg),
		noiseWebP(f, 12, 10),
	}
}

// checkDecoded fails unless a decode either gave a whole RGBA image within
// the limits or refused the file as the client's (INVALID_IMAGE,
// PAYLOAD_TOO_LARGE): never INTERNAL, never a panic.
func checkDecoded(t *testing.T, img *image.NRGBA, err error) {
	t.Helper()
	if err != nil {
		if c := showroom.ErrorCode(err); c != showroom.EInvalidImage && c != showroom.EPayloadTooLarge {
			t.Fatalf("%v", err)
		}
		return
	}
	b := img.Rect
	if b.Dx() <= 0 || b.Dy() <= 0 || b.Dx()*b.Dy() > fuzzLimits.MaxPixels || len(img.Pix) != 4*b.Dx()*b.Dy() {
		t.Fatalf("decoded %v with %d bytes", b, len(img.Pix))
	}
	Recycle(img)
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, alpha bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var img *image.NRGBA
		var err error
		if alpha {
			img, err = DecodeTransparent(ctx, data, fuzzLimits)
		} else {
			img, err = Decode(ctx, data, fuzzLimits)
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a decode within the limits ran for 10 s")
		}
		checkDecoded(t, img, err)
	})
}

// FuzzDecodeJPEG drives libjpeg-turbo directly, without the marker walk in
// front of it: its own scan limit, warnings policy and memory limit must
// hold alone.
func FuzzDecodeJPEG(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if vipsStart() != nil || len(data) < 3 {
			return
		}
		w, h := 16, 16
		if hdr, _, err := readHeader(data, 0); err == nil {
			w, h = hdr.Width, hdr.Height
		}
		if w*h > fuzzLimits.MaxPixels || w <= 0 || h <= 0 {
			return
		}
		img, err := decodeJPEG(data, w, h, fuzzLimits.MaxScans, fuzzLimits.MaxBytes, nil)
		if err == nil {
			if img.Rect != image.Rect(0, 0, w, h) {
				t.Fatalf("decoded %v for %dx%d", img.Rect, w, h)
			}
			Recycle(img)
		}
	})
}

// FuzzWalkJPEG: the marker walk never panics, counts no more scans than
// the limit allows, and never claims fewer coefficient bytes than zero.
func FuzzWalkJPEG(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, data []byte, maxScans int) {
		maxScans = max(1, min(maxScans, 1000))
		l, err := walkJPEG(data, maxScans)
		if err == nil && l.scans > maxScans || err != nil && !errors.Is(err, errTooManyScans) {
			t.Fatalf("%d scans, limit %d: %v", l.scans, maxScans, err)
		}
		if l.coefficientBytes < 0 {
			t.Fatalf("%d coefficient bytes", l.coefficientBytes)
		}
		if q, ok := quickHeader(data, l.sof); ok && (q.Width < 0 || q.Height < 0) {
			t.Fatalf("header %+v", q)
		}
	})
}

// FuzzReadHeader: reading a header from a stream never panics, takes a
// prefix of the stream, refuses only what the decoder refuses too, and
// reads the size the decoder finds.
func FuzzReadHeader(f *testing.F) {
	for _, s := range seeds(f) {
		f.Add(s)
	}
	f.Add(codectest.Commented(codectest.BaselineJPEG(40, 24), 70_000))
	f.Fuzz(func(t *testing.T, data []byte) {
		read, h, ok, err := ReadHeader(iotest.HalfReader(bytes.NewReader(data)))
		if !bytes.HasPrefix(data, read) {
			t.Fatalf("read %d bytes that are not the stream's first", len(read))
		}
		if err != nil && showroom.ErrorCode(err) != showroom.EInvalidImage {
			t.Fatalf("%v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		img, derr := Decode(ctx, data, Limits{MaxPixels: fuzzLimits.MaxPixels})
		if err != nil && derr == nil {
			t.Fatalf("refused (%v) what decodes to %v", err, img.Rect)
		}
		if derr == nil {
			defer Recycle(img)
			if hdr, _ := Inspect(data, Limits{}); ok && (h.Width != hdr.Width || h.Height != hdr.Height) {
				t.Fatalf("read %dx%d, the decoder %dx%d", h.Width, h.Height, hdr.Width, hdr.Height)
			}
		}
	})
}
