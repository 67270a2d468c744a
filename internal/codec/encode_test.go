package codec

import (
	"bytes"
	"image"
	"image/draw"
	"math/rand/v2"
	"testing"

	"github.com/davidbyttow/govips/v2/vips"
)

// TestJPEGIsLibvipsBytes checks that an opaque JPEG, written by
// libjpeg-turbo straight from the canvas, is byte for byte what libvips's
// jpegsave writes, at qualities with and without chroma subsampling, for
// an odd size (partial blocks at the edges) and for a canvas that is part
// of a larger buffer.
func TestJPEGIsLibvipsBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	big := image.NewNRGBA(image.Rect(0, 0, 341, 219))
	for y := range 219 {
		for x := range 341 {
			i := big.PixOffset(x, y)
			big.Pix[i], big.Pix[i+1], big.Pix[i+2], big.Pix[i+3] = uint8(x), uint8(y), uint8(r.IntN(256)), 255
		}
	}
	sub := big.SubImage(image.Rect(17, 9, 300, 200)).(*image.NRGBA)
	whole := image.NewNRGBA(image.Rect(0, 0, sub.Rect.Dx(), sub.Rect.Dy()))
	draw.Draw(whole, whole.Rect, sub, sub.Rect.Min, draw.Src)
	for _, c := range []struct {
		name      string
		img, flat *image.NRGBA
	}{{"odd size", big, big}, {"sub-image", sub, whole}} {
		for _, q := range []int{100, 90, 89, 75, 20} {
			got, err := Encode(c.img, false, JPEG, q)
			if err != nil {
				t.Fatalf("%s, quality %d: %v", c.name, q, err)
			}
			want, err := encodeVips(c.flat, false, JPEG, q)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s, quality %d: %d bytes, libvips writes %d other ones", c.name, q, len(got), len(want))
			}
			// The same a band of rows at a time, as Run streams them.
			w, err := NewJPEGWriter(c.img.Rect.Dx(), c.img.Rect.Dy(), q)
			if err != nil {
				t.Fatal(err)
			}
			for lo := c.img.Rect.Min.Y; lo < c.img.Rect.Max.Y; lo += 13 {
				if err := w.WriteRows(c.img, lo, min(lo+13, c.img.Rect.Max.Y)); err != nil {
					t.Fatal(err)
				}
			}
			banded, err := w.Finish()
			w.Close()
			if err != nil || !bytes.Equal(banded, want) {
				t.Errorf("%s, quality %d, in bands: %d bytes (%v), libvips writes %d other ones", c.name, q, len(banded), err, len(want))
			}
		}
	}
	// Rows out of order, of another width, and too few, are refused.
	w, err := NewJPEGWriter(big.Rect.Dx(), big.Rect.Dy(), 90)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteRows(big, 10, 20); err == nil {
		t.Error("rows 10 to 20 written first")
	}
	if err := w.WriteRows(sub, sub.Rect.Min.Y, sub.Rect.Min.Y+5); err == nil {
		t.Error("rows of a narrower image written")
	}
	if err := w.WriteRows(big, 0, 20); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Finish(); err == nil {
		t.Error("finished after 20 rows of 219")
	}
}

// encodeGovips is how results were written through govips before codec
// had its own binding, kept as the reference TestEncodeIsGovipsBytes
// holds encodeVips to.
func encodeGovips(t *testing.T, img *image.NRGBA, hasAlpha bool, format Format, quality int) []byte {
	t.Helper()
	ref, err := vips.NewImageFromMemory(img.Pix, img.Rect.Dx(), img.Rect.Dy(), 4, vips.BandFormatUchar, vips.InterpretationSRGB)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	switch {
	case !hasAlpha:
		err = ref.ExtractBand(0, 3)
	case format == JPEG:
		err = ref.Flatten(&vips.Color{R: 255, G: 255, B: 255})
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	switch format {
	case JPEG:
		p := vips.NewJpegExportParams()
		p.StripMetadata, p.Quality, p.Interlace = true, quality, false
		p.OptimizeCoding = true
		out, _, err = ref.ExportJpeg(p)
	case PNG:
		p := vips.NewPngExportParams()
		p.StripMetadata = true
		p.Compression, p.Filter = 4, vips.PngFilterAll
		out, _, err = ref.ExportPng(p)
	case WebP:
		p := vips.NewWebpExportParams()
		p.StripMetadata, p.Quality = true, quality
		p.ReductionEffort = 3
		out, _, err = ref.ExportWebp(p)
		out = stripWebPMetadata(out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEncodeIsGovipsBytes checks that codec's own libvips binding writes
// the same files as govips did, for every format, opaque and transparent.
func TestEncodeIsGovipsBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	img := image.NewNRGBA(image.Rect(0, 0, 123, 77))
	for y := range 77 {
		for x := range 123 {
			i := img.PixOffset(x, y)
			img.Pix[i], img.Pix[i+1], img.Pix[i+2] = uint8(2*x), uint8(3*y), uint8(r.IntN(256))
			img.Pix[i+3] = uint8(min(255, 4*x)) // transparent on the left, opaque on the right
		}
	}
	for _, format := range []Format{JPEG, PNG, WebP} {
		for _, alpha := range []bool{false, true} {
			for _, q := range []int{90, 40} {
				got, err := encodeVips(img, alpha, format, q)
				if err != nil {
					t.Fatal(err)
				}
				if want := encodeGovips(t, img, alpha, format, q); !bytes.Equal(got, want) {
					t.Errorf("%s, alpha %v, quality %d: %d bytes, govips wrote %d other ones", format, alpha, q, len(got), len(want))
				}
			}
		}
	}
}
