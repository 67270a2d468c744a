package pipeline

import (
	"context"
	"errors"
	"image"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// middleSegmenter finds a car in the middle half of any photo, whatever
// its shape: for photos the synthetic car's matte does not fit.
type middleSegmenter struct{}

func (middleSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
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

// plainPNG is a w×h PNG of one colour: a few hundred bytes, whatever its
// shape.
func plainPNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	return pngBytes(tb, plain(w, h))
}

func plain(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	fill(img.Pix, []byte{90, 120, 150, 255})
	return img
}

// TestOutputSizesAreBounded: sizes worked out from parameters and the
// shapes of extreme photos and content are refused before anything of
// their size is allocated (which would kill the process), at once, with a
// client's error that names the processor and the limit; the largest the
// catalog names still render.
func TestOutputSizesAreBounded(t *testing.T) {
	content := mapContent{"tall": plain(8, 65_000), "wide": plain(65_000, 8)}
	e, err := NewEngine(EngineConfig{Segmenter: middleSegmenter{}, Content: content, MaxPixels: 60_000_000})
	if err != nil {
		t.Fatal(err)
	}
	car := testCar(t)
	carPhoto := pngBytes(t, car.Photo)
	bg := func(name string, kv ...any) Step {
		st := Step{"processorName": AddBackgroundAndCrop, "background": name}
		for i := 0; i+1 < len(kv); i += 2 {
			st[kv[i].(string)] = kv[i+1]
		}
		return st
	}
	resize := func(kv ...any) Step {
		st := Step{"processorName": Resize}
		for i := 0; i+1 < len(kv); i += 2 {
			st[kv[i].(string)] = kv[i+1]
		}
		return st
	}
	for _, tc := range []struct {
		what   string
		photo  []byte
		steps  []Step
		format string
		want   string // in the message
	}{
		{"a tall background covered 8192 wide", carPhoto, []Step{det(), bg("tall", "outputWidth", 8192.0)}, "",
			"AddBackgroundAndCropProcessor at /1 would make a canvas of 8192x66560000 pixels"},
		{"a wide background covered 8192 high", carPhoto, []Step{det(), bg("wide", "outputHeight", 8192.0)}, FormatPNG,
			"a canvas of 66560000x8192 pixels"},
		{"a wide photo resized to a height", plainPNG(t, 4000, 8), []Step{det(), resize("height", 8192.0)}, "",
			"ResizeProcessor at /1 would make an output of 4096000x8192 pixels"},
		{"a tall photo resized to a width", plainPNG(t, 8, 4000), []Step{det(), resize("width", 8192.0)}, FormatPNG,
			"an output of 8192x4096000 pixels"},
		{"a tall background's canvas resized", carPhoto, []Step{det(), bg("tall", "outputWidth", 8192.0), resize("width", 64.0)}, "",
			"AddBackgroundAndCropProcessor at /1 would make a canvas"},
		{"JPEG past 65,500 a side", plainPNG(t, 70_000, 8), []Step{det()}, FormatJPEG,
			"the configuration would make an output of 70000x8 pixels; JPEG allows at most 65500 pixels a side"},
		{"WebP past 16,383 a side, from the photo", plainPNG(t, 8, 16_384), []Step{det()}, FormatWebP,
			"the configuration would make an output of 8x16384 pixels; WebP allows at most 16383 pixels a side: ask for a smaller output, or for format png"},
		{"WebP past 16,383 a side", carPhoto, []Step{det(), bg("wide", "outputHeight", 64.0)}, FormatWebP,
			"AddBackgroundAndCropProcessor at /1 would make an output of 520000x64 pixels; WebP allows at most 16383"},
	} {
		start := time.Now()
		_, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, tc.steps...),
			Photo: tc.photo, Format: tc.format})
		var se *showroom.Error
		if !errors.As(err, &se) || se.Code != showroom.EInvalidConfig {
			t.Errorf("%s: %v, want INVALID_CONFIGURATION", tc.what, err)
			continue
		}
		if !strings.Contains(se.Message, tc.want) {
			t.Errorf("%s: message %q, want it to say %q", tc.what, se.Message, tc.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: refused after %v", tc.what, d)
		}
	}

	// At the limits: encoded.
	for _, tc := range []struct {
		what   string
		photo  []byte
		steps  []Step
		format string
		w, h   int
		media  string
	}{
		{"JPEG of 65,500 a side", plainPNG(t, 8, 65_500), []Step{det(), Step{"processorName": PlaceCar}}, FormatJPEG, 8, 65_500, "image/jpeg"},
		{"PNG past JPEG's limit", plainPNG(t, 70_000, 8), []Step{det()}, FormatPNG, 70_000, 8, "image/png"},
		{"no format named, opaque, past JPEG's limit: PNG", plainPNG(t, 8, 65_501), []Step{det(), Step{"processorName": PlaceCar}}, "", 8, 65_501, "image/png"},
		{"WebP of 16,383 a side", plainPNG(t, 16_383, 8), []Step{det(), Step{"processorName": PlaceCar}}, FormatWebP, 16_383, 8, "image/webp"},
		{"a wide background covered 64 wide: one pixel high", carPhoto, []Step{det(), bg("wide", "outputWidth", 64.0)}, "", 64, 1, "image/jpeg"},
		{"the largest output named", carPhoto, []Step{det(), bg("tall", "outputWidth", 64.0, "outputHeight", 64.0),
			resize("width", 8192.0, "height", 8192.0, "fit", FitFill)}, FormatJPEG, 8192, 8192, "image/jpeg"},
	} {
		res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, tc.steps...),
			Photo: tc.photo, Format: tc.format})
		if err != nil {
			t.Errorf("%s: %v", tc.what, err)
			continue
		}
		if res.Width != tc.w || res.Height != tc.h || res.MediaType != tc.media {
			t.Errorf("%s: %dx%d %s, want %dx%d %s", tc.what, res.Width, res.Height, res.MediaType, tc.w, tc.h, tc.media)
		}
	}
}

// TestResizeOfAnExtremeShapeStaysSmall: stretching a tall canvas into a
// wide output passes through an image no larger than either, not one of
// the output's width and the canvas's height (here 300 MB).
func TestResizeOfAnExtremeShapeStaysSmall(t *testing.T) {
	e := newTestEngine(t, middleSegmenter{}, nil)
	steps := stepsJSONTest(t, det(), Step{"processorName": PlaceCar},
		Step{"processorName": Resize, "width": 1024.0, "height": 16.0, "fit": FitFill})
	photo := plainPNG(t, 8, 20_000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := e.Run(context.Background(), Request{Processors: steps, Photo: photo, Format: FormatPNG})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("the run allocated %d MB", d>>20)
	}
	if res.Width != 1024 || res.Height != 16 {
		t.Errorf("%dx%d, want 1024x16", res.Width, res.Height)
	}
}

// TestResampleEitherPassFirst: the two orders of resample's passes give
// the same picture, but for float rounding.
func TestResampleEitherPassFirst(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 37, 211))
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(rnd.IntN(256))
	}
	for _, r := range []image.Rectangle{img.Rect, image.Rect(3, 20, 30, 190)} {
		for _, sz := range []image.Point{{100, 20}, {64, 300}, {10, 10}, {500, 3}} {
			a, b := resampleRowsFirst(img, r, sz.X, sz.Y), resampleColumnsFirst(img, r, sz.X, sz.Y)
			for i := range a.Pix {
				if d := int(a.Pix[i]) - int(b.Pix[i]); d < -1 || d > 1 {
					t.Fatalf("%v to %v: byte %d is %d one way, %d the other", r, sz, i, a.Pix[i], b.Pix[i])
				}
			}
		}
	}
}
