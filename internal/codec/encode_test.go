package codec

import (
	"bytes"
	"image"
	"image/draw"
	"math/rand/v2"
	"testing"
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
