package codec

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
)

// orient returns img turned upright by its EXIF orientation o (1-8), as
// libvips's autorotate does (TestDecodeJPEGMatchesLibvips). 1 and unknown
// values return img itself; otherwise img is recycled.
func orient(img *image.NRGBA, o int) *image.NRGBA {
	if o < 2 || o > 8 {
		return img
	}
	W, H := img.Rect.Dx(), img.Rect.Dy()
	w, h := W, H
	if o >= 5 { // 5-8 swap the axes
		w, h = H, W
	}
	// src maps a result position to the source position; the comments say
	// what the correction does.
	src := map[int]func(x, y int) (int, int){
		2: func(x, y int) (int, int) { return W - 1 - x, y },         // flipped left to right
		3: func(x, y int) (int, int) { return W - 1 - x, H - 1 - y }, // turned 180°
		4: func(x, y int) (int, int) { return x, H - 1 - y },         // flipped top to bottom
		5: func(x, y int) (int, int) { return y, x },                 // transposed (flipped about the main diagonal)
		6: func(x, y int) (int, int) { return y, H - 1 - x },         // turned 90° clockwise
		7: func(x, y int) (int, int) { return W - 1 - y, H - 1 - x }, // transversed (flipped about the other diagonal)
		8: func(x, y int) (int, int) { return W - 1 - y, x },         // turned 90° anticlockwise
	}[o]
	out := newNRGBA(w, h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			row := out.Pix[y*out.Stride : y*out.Stride+4*w]
			for x := range w {
				sx, sy := src(x, y)
				copy(row[4*x:4*x+4], img.Pix[sy*img.Stride+4*sx:])
			}
		}
	})
	Recycle(img)
	return out
}
