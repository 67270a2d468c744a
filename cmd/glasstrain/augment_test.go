package main

import (
	"image"
	"image/color"
	"testing"
)

// TestRelightMirrors checks the training copy of a photo: mirrored left
// to right with its annotations, relit the same way over the whole photo
// (an order of lightness kept), different from one photo to the next.
func TestRelightMirrors(t *testing.T) {
	photo := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	gray := image.NewGray(photo.Rect)
	for x := range 4 {
		for y := range 2 {
			v := uint8(40 + 50*x)
			photo.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
			gray.SetGray(x, y, color.Gray{v})
		}
	}
	m := mirror(gray)
	for x := range 4 {
		if m.GrayAt(x, 1) != gray.GrayAt(3-x, 1) {
			t.Fatalf("mirror: pixel %d is %v, want %v", x, m.GrayAt(x, 1), gray.GrayAt(3-x, 1))
		}
	}
	differ := false
	for i := range 8 {
		r := relight(photo, i)
		for x := 1; x < 4; x++ {
			if r.NRGBAAt(x, 0).G >= r.NRGBAAt(x-1, 0).G {
				t.Fatalf("copy %d: lightness not mirrored: %v then %v", i, r.NRGBAAt(x-1, 0), r.NRGBAAt(x, 0))
			}
		}
		if r.NRGBAAt(0, 0).A != 255 {
			t.Fatalf("copy %d: alpha %d, want 255", i, r.NRGBAAt(0, 0).A)
		}
		differ = differ || r.NRGBAAt(1, 1) != relight(photo, 0).NRGBAAt(1, 1)
	}
	if !differ {
		t.Error("every copy is relit alike, want the light to vary from photo to photo")
	}
}
