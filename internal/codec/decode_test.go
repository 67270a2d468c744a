package codec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/showroom/showroom/internal/showroom"
)

// govips is only the tests' reference decoder and fixture writer: its
// start-up lines (each loader it registers) would fill the test output.
func init() { vips.LoggingSettings(nil, vips.LogLevelWarning) }

// testJPEG encodes a w×h picture that is different in every direction (a
// gradient across, another down, a red block in the top-left corner) as a
// JPEG, in colour space space, with EXIF orientation o.
func testJPEG(t testing.TB, w, h, o int, space vips.Interpretation) []byte {
	t.Helper()
	if err := vipsStart(); err != nil {
		t.Fatal(err)
	}
	pix := make([]byte, w*h*3)
	for y := range h {
		for x := range w {
			p := pix[3*(y*w+x):]
			p[0], p[1], p[2] = uint8(x*255/w), uint8(y*255/h), 128
			if x < w/4 && y < h/4 {
				p[0], p[1], p[2] = 230, 20, 20
			}
		}
	}
	img, err := vips.NewImageFromMemory(pix, w, h, 3, vips.BandFormatUchar, vips.InterpretationSRGB)
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	if space != vips.InterpretationSRGB {
		if err := img.ToColorSpace(space); err != nil {
			t.Fatal(err)
		}
	}
	if err := img.SetOrientation(o); err != nil {
		t.Fatal(err)
	}
	params := vips.NewJpegExportParams()
	params.Quality = 95
	data, _, err := img.ExportJpeg(params)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// viaLibvips decodes data the reference way, all in govips: autorotate,
// the embedded profile to sRGB, alpha flattened onto white, as Decode did
// before it had decoders of its own.
func viaLibvips(t *testing.T, data []byte) *image.NRGBA {
	t.Helper()
	img, err := vips.LoadImageFromBuffer(data, vips.NewImportParams())
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(img.AutoRotate())
	if img.HasICCProfile() {
		must(img.TransformICCProfile(vips.SRGBIEC6196621ICCProfilePath))
	}
	if img.Interpretation() != vips.InterpretationSRGB || img.BandFormat() != vips.BandFormatUchar {
		must(img.ToColorSpace(vips.InterpretationSRGB))
	}
	if img.HasAlpha() {
		must(img.Flatten(&vips.Color{R: 255, G: 255, B: 255}))
	}
	if img.BandFormat() != vips.BandFormatUchar {
		must(img.Cast(vips.BandFormatUchar))
	}
	if img.Bands() != 3 {
		must(img.ExtractBand(0, 3))
	}
	must(img.AddAlpha())
	pix, err := img.ToBytes()
	must(err)
	w, h := img.Width(), img.Height()
	return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
}

// sameImage fails unless got and want have the same size and every
// channel within maxDiff, and on average within meanDiff.
func sameImage(t *testing.T, name string, got, want *image.NRGBA, maxDiff int, meanDiff float64) {
	t.Helper()
	if got.Rect != want.Rect {
		t.Errorf("%s: size %v, libvips %v", name, got.Rect, want.Rect)
		return
	}
	worst, sum := 0, 0
	for i := range got.Pix {
		d := int(got.Pix[i]) - int(want.Pix[i])
		d = max(d, -d)
		worst, sum = max(worst, d), sum+d
	}
	mean := float64(sum) / float64(len(got.Pix))
	if worst > maxDiff || mean > meanDiff {
		t.Errorf("%s: channels differ from libvips by up to %d, %.3f on average; want at most %d and %.3f",
			name, worst, mean, maxDiff, meanDiff)
	}
}

func TestDecodeJPEGMatchesLibvips(t *testing.T) {
	for o := 1; o <= 8; o++ {
		data := testJPEG(t, 40, 24, o, vips.InterpretationSRGB)
		got, err := Decode(context.Background(), data, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		sameImage(t, fmt.Sprintf("orientation %d", o), got, viaLibvips(t, data), 1, 0.01)
		// The red corner lands top-left once upright, whatever the
		// orientation, and the size has turned with it.
		if o >= 5 && got.Rect.Dx() != 24 || o < 5 && got.Rect.Dx() != 40 {
			t.Errorf("orientation %d: %v", o, got.Rect)
		}
	}
	// Grey JPEGs come out as RGBA too, on the fast path; CMYK ones go
	// through libvips.
	for _, space := range []vips.Interpretation{vips.InterpretationBW, vips.InterpretationCMYK} {
		data := testJPEG(t, 40, 24, 1, space)
		got, err := Decode(context.Background(), data, Limits{})
		if err != nil {
			t.Fatalf("colour space %v: %v", space, err)
		}
		sameImage(t, fmt.Sprintf("colour space %v", space), got, viaLibvips(t, data), 1, 0.01)
	}
}

func TestDecodeJPEGRefusesBrokenData(t *testing.T) {
	data := testJPEG(t, 400, 300, 1, vips.InterpretationSRGB)
	for name, bad := range map[string][]byte{
		"truncated":      data[:len(data)/2],
		"corrupt middle": append(append(append([]byte{}, data[:len(data)/2]...), make([]byte, 200)...), data[len(data)/2+200:]...),
	} {
		_, err := Decode(context.Background(), bad, Limits{})
		var se *showroom.Error
		if !errors.As(err, &se) || se.Code != showroom.EInvalidImage {
			t.Errorf("%s: %v, want INVALID_IMAGE", name, err)
		}
	}
}

// TestDecodeRefusesTinyPhotos: a photo under MinSide on a side is the
// client's mistake, refused from its header (a retry cannot cure it); the
// segmenter refuses the same (TestSegmentRefusesTinyPhotos).
func TestDecodeRefusesTinyPhotos(t *testing.T) {
	for _, size := range []image.Point{{7, 40}, {40, 7}, {1, 1}} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, image.NewGray(image.Rectangle{Max: size})); err != nil {
			t.Fatal(err)
		}
		_, err := Decode(context.Background(), buf.Bytes(), Limits{MinSide: MinSide})
		var se *showroom.Error
		if !errors.As(err, &se) || se.Code != showroom.EInvalidImage {
			t.Errorf("%v: %v, want INVALID_IMAGE", size, err)
		}
	}
	if _, err := Decode(context.Background(), testJPEG(t, MinSide, MinSide, 1, vips.InterpretationSRGB), Limits{MinSide: MinSide}); err != nil {
		t.Errorf("%dx%d: %v", MinSide, MinSide, err)
	}
}

// TestDecodePhotosMatchLibvips compares the fast path with libvips on real
// photos: the dev photos, and the 12 MP phone photos with their Display P3
// profile, where Little CMS's 8-bit transform and libvips's float one
// differ by one level here and there (measured: at most 1, 0.006 on
// average).
func TestDecodePhotosMatchLibvips(t *testing.T) {
	photos, _ := filepath.Glob("../../../shared/testdata/cars/0[1-3]*.jpg")
	large, _ := filepath.Glob("../../../shared/testdata/large/*.jpg")
	photos = append(photos, large...)
	if len(photos) == 0 {
		t.Skip("skipping: ../shared/testdata is not there (the photos are not in the repository)")
	}
	for _, p := range photos {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(context.Background(), data, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		sameImage(t, filepath.Base(p), got, viaLibvips(t, data), 2, 0.05)
	}
}

// TestDecodeStopsWithItsColourConversion cuts a 12 MP phone photo (Display
// P3, so that its bands are converted to sRGB while the next are decoded)
// short, and cancels one: the decode fails, and once more whole it gives
// the same pixels as before.
func TestDecodeStopsWithItsColourConversion(t *testing.T) {
	data, err := os.ReadFile("../../../shared/testdata/large/cbr_view1.jpg")
	if err != nil {
		t.Skip("skipping: ../shared/testdata is not there (the photos are not in the repository)")
	}
	want, err := Decode(context.Background(), data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantPix := bytes.Clone(want.Pix)
	Recycle(want)
	if _, err := Decode(context.Background(), data[:len(data)/2], Limits{}); err == nil {
		t.Error("half a photo decoded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(5 * time.Millisecond); cancel() }()
	if _, err := Decode(ctx, data, Limits{}); err == nil {
		t.Log("the decode finished before it was cancelled")
	}
	got, err := Decode(context.Background(), data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Pix, wantPix) {
		t.Error("the photo decodes otherwise after a failed decode")
	}
}

func TestRecycledPixelsAreReusedOnce(t *testing.T) {
	data := testJPEG(t, 64, 48, 1, vips.InterpretationSRGB)
	a, err := Decode(context.Background(), data, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := append([]byte(nil), a.Pix...)
	Recycle(a)
	Recycle(a) // twice by mistake: must not hand the buffer out twice
	b, _ := Decode(context.Background(), data, Limits{})
	c, _ := Decode(context.Background(), data, Limits{})
	if &b.Pix[0] != &a.Pix[0] {
		t.Error("the recycled buffer was not reused")
	}
	if &c.Pix[0] == &b.Pix[0] {
		t.Fatal("one buffer handed out to two photos")
	}
	if !bytes.Equal(b.Pix, want) || !bytes.Equal(c.Pix, want) {
		t.Error("a photo decoded into a recycled buffer differs")
	}
}

// largePhoto is the first 12 MP photo of ../shared/testdata/large.
func largePhoto(b testing.TB) []byte {
	photos, _ := filepath.Glob("../../../shared/testdata/large/*.jpg")
	if len(photos) == 0 {
		b.Skip("skipping: ../shared/testdata/large is not there")
	}
	data, err := os.ReadFile(photos[0])
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkDecode12MP is the decode of a 12 MP JPEG (EXIF orientation,
// sRGB) through libvips.
func BenchmarkDecode12MP(b *testing.B) {
	data := largePhoto(b)
	for b.Loop() {
		if _, err := Decode(context.Background(), data, Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
