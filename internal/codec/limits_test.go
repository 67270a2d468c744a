package codec

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/showroom"
)

// wantCode fails unless err is a *showroom.Error with code.
func wantCode(t *testing.T, name string, err error, code string) {
	t.Helper()
	var se *showroom.Error
	if !errors.As(err, &se) || se.Code != code {
		t.Errorf("%s: %v, want %s", name, err, code)
	}
}

// A JPEG with thousands of scans is refused before it costs the decoder a
// pass over the image per scan (about 3 s for this one, 188 kB, without the
// limit), whichever decoder it would go to: libjpeg-turbo for grey and
// colour, libvips for CMYK.
func TestDecodeBoundsScans(t *testing.T) {
	ctx := context.Background()
	for name, data := range map[string][]byte{
		"grey, 10,000 scans":        codectest.ProgressiveJPEG(2048, 2048, 1, 10_000),
		"CMYK, 10,000 scans":        codectest.ProgressiveJPEG(1024, 1024, 4, 10_000),
		"grey, 101 scans":           codectest.ProgressiveJPEG(64, 64, 1, DefaultMaxScans+1),
		"1,000 scans after garbage": codectest.Garbage(codectest.ProgressiveJPEG(64, 64, 1, 1000), 0xC4, 3),
	} {
		start := time.Now()
		_, err := Decode(ctx, data, DefaultLimits())
		wantCode(t, name, err, showroom.EInvalidImage)
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("%s: refused after %v", name, d)
		}
	}
	for name, data := range map[string][]byte{
		"grey, 100 scans": codectest.ProgressiveJPEG(64, 64, 1, DefaultMaxScans),
		"CMYK, 100 scans": codectest.ProgressiveJPEG(64, 64, 4, DefaultMaxScans),
	} {
		if _, err := Decode(ctx, data, DefaultLimits()); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Decode(ctx, codectest.ProgressiveJPEG(64, 64, 1, 30), Limits{MaxScans: 20}); showroom.ErrorCode(err) != showroom.EInvalidImage {
		t.Errorf("30 scans over a limit of 20: %v", err)
	}
}

// The decoder counts scans itself too, as it reads them: the limit holds
// for a file the marker walk in front of it would miss.
func TestDecodeJPEGStopsAtTheScanLimit(t *testing.T) {
	data := codectest.ProgressiveJPEG(2048, 2048, 1, 10_000)
	start := codectest.CPUTime()
	_, err := decodeJPEG(data, 2048, 2048, 100, 0, nil)
	if !errors.Is(err, errTooManyScans) {
		t.Errorf("10,000 scans: %v, want the scan limit", err)
	}
	if d := codectest.CPUTime() - start; d > 500*time.Millisecond {
		t.Errorf("stopped after %v of CPU", d)
	}
}

// Once the caller gives up (the job's deadline, the client hanging up), a
// decode stops within milliseconds and says why: the context's error, which
// the queue does not retry as a failure of the photo.
func TestDecodeStopsWhenCancelled(t *testing.T) {
	// Without a scan limit to speak of, a decode of seconds.
	data := codectest.ProgressiveJPEG(2048, 2048, 1, 10_000)
	lim := Limits{MaxScans: 1 << 30}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := Decode(ctx, data, lim)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled decode: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 250*time.Millisecond {
		t.Errorf("a decode cancelled after 50 ms returned after %v", d)
	}
	// Done before it starts: no decoder is entered, whatever the format.
	for name, data := range map[string][]byte{"JPEG": data, "PNG": noisePNG(t, 64, 64, false)} {
		if _, err := Decode(ctx, data, lim); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v", name, err)
		}
	}
}

// Warnings that leave the image whole (garbage between header segments or
// after the last scan, as some cameras write) do not fail a decode: the
// pixels are the clean file's. Garbage after a scan before the next one
// does (TestDecodeJPEGRefusesBrokenData).
func TestDecodeToleratesHarmlessWarnings(t *testing.T) {
	ctx := context.Background()
	clean := codectest.BaselineJPEG(320, 240)
	want, err := Decode(ctx, clean, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{
		"30 bytes before DHT":   codectest.Garbage(clean, 0xC4, 30),
		"3000 bytes before EOI": codectest.Garbage(clean, 0xD9, 3000),
		"before SOF and DHT":    codectest.Garbage(codectest.Garbage(clean, 0xC4, 5), 0xC0, 7),
	} {
		got, err := Decode(ctx, data, DefaultLimits())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		sameImage(t, name, got, want, 0, 0)
	}
	// CMYK goes through libvips, with the same tolerance.
	cmyk := codectest.ProgressiveJPEG(64, 64, 4, 5)
	if _, err := Decode(ctx, codectest.Garbage(cmyk, 0xC4, 30), DefaultLimits()); err != nil {
		t.Errorf("CMYK with garbage before DHT: %v", err)
	}
}

// A file cut short is INVALID_IMAGE in every format and on every path,
// wherever the cut: no decoder pads the missing rows with grey.
func TestDecodeRefusesTruncatedFiles(t *testing.T) {
	ctx := context.Background()
	files := map[string][]byte{
		"baseline JPEG":    codectest.BaselineJPEG(320, 240),
		"progressive JPEG": testJPEG(t, 320, 240, 1, vips.InterpretationSRGB),
		"CMYK JPEG":        testJPEG(t, 320, 240, 1, vips.InterpretationCMYK),
		"PNG":              noisePNG(t, 320, 240, false),
		"16-bit PNG":       noisePNG(t, 320, 240, true),
		"WebP":             noiseWebP(t, 320, 240),
	}
	for name, data := range files {
		if _, err := Decode(ctx, data, DefaultLimits()); err != nil {
			t.Fatalf("%s, whole: %v", name, err)
		}
		for _, keep := range []float64{0.2, 0.5, 0.9, 0.99} {
			_, err := Decode(ctx, data[:int(keep*float64(len(data)))], DefaultLimits())
			wantCode(t, name+" cut short", err, showroom.EInvalidImage)
		}
	}
}

// Memory is bounded by bytes, not only by pixels: a 16-bit PNG within the
// pixel limit (57 MP, as the issue has it: 480 MB decoded) is refused from
// its header, as is a progressive JPEG whose coefficients would not fit;
// the same pixels in 8 bits (or baseline) are not.
func TestDecodeBoundsMemoryByBytes(t *testing.T) {
	ctx := context.Background()
	for name, data := range map[string][]byte{
		"57 MP, 16-bit RGBA": codectest.PNGHeader(7550, 7550, 16, 6),
		"57 MP, 16-bit RGB":  codectest.PNGHeader(7550, 7550, 16, 2),
	} {
		start := time.Now()
		_, err := Decode(ctx, data, DefaultLimits())
		wantCode(t, name, err, showroom.EPayloadTooLarge)
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Errorf("%s: refused after %v; the header alone decides", name, d)
		}
	}
	lim := Limits{MaxBytes: 4 << 20} // a 1000x1000 8-bit RGBA image fits, just
	if _, err := Decode(ctx, noisePNG(t, 1000, 1000, true), lim); showroom.ErrorCode(err) != showroom.EPayloadTooLarge {
		t.Errorf("16-bit 1000x1000 PNG over 4 MiB: %v", err)
	}
	if _, err := Decode(ctx, noisePNG(t, 1000, 1000, false), lim); err != nil {
		t.Errorf("8-bit 1000x1000 PNG within 4 MiB: %v", err)
	}
	lim = Limits{MaxBytes: 5 << 20} // 1024x1024: 4 MiB of pixels, and 2 MiB of coefficients if progressive
	if _, err := Decode(ctx, codectest.ProgressiveJPEG(1024, 1024, 1, 3), lim); showroom.ErrorCode(err) != showroom.EPayloadTooLarge {
		t.Errorf("progressive 1024x1024 JPEG over 5 MiB: %v", err)
	}
	if _, err := Decode(ctx, codectest.BaselineJPEG(1024, 1024), lim); err != nil {
		t.Errorf("baseline 1024x1024 JPEG within 5 MiB: %v", err)
	}
	// libjpeg itself is held to the budget should the estimate miss.
	if _, err := decodeJPEG(codectest.ProgressiveJPEG(1024, 1024, 1, 3), 1024, 1024, 100, 1<<20, nil); !errors.Is(err, errTooLarge) {
		t.Errorf("libjpeg with 1 MiB for 2 MiB of coefficients: %v", err)
	}
}

// A PNG whose image data is too short for the pixels its header declares,
// however well compressed, is refused from its structure: libpng would
// allocate the whole image (230 MB for a 57 MP header) and inflate what
// there is before finding the rows missing, a second of CPU a request.
// The bound is deflate's own, so the most compressible real files, a
// blank 1-bit page and a blank RGB one, still decode.
func TestDecodeRefusesPNGDataTooShortForItsPixels(t *testing.T) {
	ctx := context.Background()
	start := codectest.CPUTime()
	for range 10 {
		_, err := Decode(ctx, codectest.PNGHeader(7550, 7550, 8, 2), DefaultLimits())
		wantCode(t, "57 MP header with an empty stream", err, showroom.EInvalidImage)
	}
	if d := codectest.CPUTime() - start; d > 100*time.Millisecond {
		t.Errorf("refused ten times in %v of CPU; the structure alone decides", d)
	}
	// With no limits at all, the largest header PNG allows (2^62 pixels of
	// 64 bits) is still judged by its data.
	_, err := Decode(ctx, codectest.PNGHeader(1<<31-1, 1<<31-1, 16, 6), Limits{})
	wantCode(t, "2^62 pixels, no limits", err, showroom.EInvalidImage)
	blankBits := image.NewPaletted(image.Rect(0, 0, 6000, 4000), color.Palette{color.White, color.Black})
	blankRGB := image.NewNRGBA(image.Rect(0, 0, 3000, 2000))
	for i := range blankRGB.Pix {
		blankRGB.Pix[i] = 0xFF
	}
	for name, img := range map[string]image.Image{"blank 1-bit": blankBits, "blank RGB": blankRGB} {
		var b bytes.Buffer
		enc := png.Encoder{CompressionLevel: png.BestCompression}
		if err := enc.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		got, err := Decode(ctx, b.Bytes(), DefaultLimits())
		if err != nil {
			t.Errorf("%s, %d bytes: %v", name, b.Len(), err)
			continue
		}
		Recycle(got)
	}
}

// Transparency is kept by DecodeTransparent (posters, logos) and flattened
// onto white by Decode (photos, backgrounds).
func TestDecodeTransparent(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 16, 16))
	src.SetNRGBA(3, 4, color.NRGBA{200, 10, 10, 128})
	var b bytes.Buffer
	if err := png.Encode(&b, src); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	kept, err := DecodeTransparent(ctx, b.Bytes(), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got := kept.NRGBAAt(3, 4); got != (color.NRGBA{200, 10, 10, 128}) {
		t.Errorf("DecodeTransparent: %v", got)
	}
	if got := kept.NRGBAAt(0, 0); got.A != 0 {
		t.Errorf("DecodeTransparent: a clear pixel is %v", got)
	}
	flat, err := Decode(ctx, b.Bytes(), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if got := flat.NRGBAAt(0, 0); got != (color.NRGBA{255, 255, 255, 255}) {
		t.Errorf("Decode: a clear pixel is %v, want white", got)
	}
}

// noisePNG encodes a w×h PNG of noise (so it does not compress away), 8 or
// 16 bits a channel.
func noisePNG(t testing.TB, w, h int, deep bool) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	var img image.Image
	if deep {
		m := image.NewNRGBA64(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = uint8(r.Uint32())
		}
		img = m
	} else {
		m := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range m.Pix {
			m.Pix[i] = uint8(r.Uint32())
		}
		img = m
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// noiseWebP encodes a w×h lossy WebP of noise with libvips.
func noiseWebP(t testing.TB, w, h int) []byte {
	t.Helper()
	if err := vipsStart(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	pix := make([]byte, w*h*3)
	for i := range pix {
		pix[i] = uint8(r.Uint32())
	}
	img, err := vips.NewImageFromMemory(pix, w, h, 3, vips.BandFormatUchar, vips.InterpretationSRGB)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	data, _, err := img.ExportWebp(vips.NewWebpExportParams())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// A PNG's compressed text chunks are never inflated: 100 of them, each of
// 8 MB of text in 8 kB, took 30 s of CPU and 2.4 GB to inspect and decode
// (libpng inflates them with the header, libvips copies them). Now the
// image decodes as if they were not there, in milliseconds, whichever kind
// of chunk carries the text and whether the decode keeps transparency.
func TestDecodeIgnoresPNGText(t *testing.T) {
	ctx := context.Background()
	plain, err := Decode(ctx, codectest.TextBombPNG(64, 48, 0, 0, "zTXt"), DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"zTXt", "iTXt"} {
		bomb := codectest.TextBombPNG(64, 48, 100, 8<<20, typ)
		start := codectest.CPUTime()
		h, err := Inspect(bomb, DefaultLimits())
		if err != nil || h.Width != 64 || h.Height != 48 {
			t.Errorf("%s: inspected as %+v, %v", typ, h, err)
		}
		for _, decode := range []func(context.Context, []byte, Limits) (*image.NRGBA, error){Decode, DecodeTransparent} {
			img, err := decode(ctx, bomb, DefaultLimits())
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			if img.Rect != plain.Rect || !bytes.Equal(img.Pix, plain.Pix) {
				t.Errorf("%s: decoded %v, not the image without its text", typ, img.Rect)
			}
			Recycle(img)
		}
		if d := codectest.CPUTime() - start; d > 500*time.Millisecond {
			t.Errorf("%s: inspected and decoded twice in %v of CPU", typ, d)
		}
	}
	// A text chunk that claims more than the file holds: libpng would
	// allocate the claim (1.6 GB here) before finding the file short. Found
	// by FuzzInspect, as a hang.
	short := codectest.TextBombPNG(9, 9, 1, 64, "zTXt")
	short = short[:33+8+20]                               // signature and IHDR, the text chunk's length, type and 20 bytes
	binary.BigEndian.PutUint32(short[33:], 1_652_556_130) // its length
	for i := range 3 {
		start := codectest.CPUTime()
		if _, err := Inspect(short, DefaultLimits()); showroom.ErrorCode(err) != showroom.EInvalidImage {
			t.Errorf("a text chunk longer than the file, inspected: %v, want INVALID_IMAGE", err)
		}
		if _, err := Decode(ctx, short, DefaultLimits()); showroom.ErrorCode(err) != showroom.EInvalidImage {
			t.Errorf("a text chunk longer than the file, decoded: %v, want INVALID_IMAGE", err)
		}
		if d := codectest.CPUTime() - start; d > 100*time.Millisecond {
			t.Errorf("a text chunk longer than the file, run %d: %v of CPU", i, d)
		}
	}
}
