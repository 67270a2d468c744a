package codec

import (
	"image"
	"sync"
	"unsafe"
)

// pixels keeps the pixel buffers of photos and rendered images their users
// are done with (Recycle), for the next Decode or NewNRGBA. A fresh 48 MB
// buffer for a 12 MP photo costs Go a zeroing pass and, on this VM, some
// 12,000 page faults: about 90 ms, more than the JPEG decode itself. A
// recycled one is resident, and the decoder (or renderer) overwrites every
// byte of it. Package state, like the heap it stands in for; bounded, so it
// holds at most a few photos' worth: a photo, its canvas and its car
// layer fit; with more workers the larger buffers are kept.
var pixels struct {
	sync.Mutex
	free [][]byte
}

const pooledBuffers = 4

// newNRGBA returns a w×h image whose pixels are not zeroed: the caller
// overwrites all of them.
func newNRGBA(w, h int) *image.NRGBA {
	n := w * h * 4
	pixels.Lock()
	best := -1
	for i, b := range pixels.free {
		// The smallest buffer that fits and is not more than twice the
		// need: a small photo does not pin a large buffer.
		if cap(b) >= n && cap(b) <= 2*n && (best < 0 || cap(b) < cap(pixels.free[best])) {
			best = i
		}
	}
	var pix []byte
	if best >= 0 {
		pix = pixels.free[best][:n]
		pixels.free = append(pixels.free[:best], pixels.free[best+1:]...)
	}
	pixels.Unlock()
	if pix == nil {
		pix = make([]byte, n)
	}
	return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}
}

// NewNRGBA returns a w×h image for a caller that writes every pixel of it
// (a rendered canvas): from the buffers Recycle keeps when one fits, so
// its pixels are not zeroed.
func NewNRGBA(w, h int) *image.NRGBA { return newNRGBA(w, h) }

// Recycle hands the pixels of img, a photo from Decode or an image from
// NewNRGBA, back for a later Decode or NewNRGBA. The caller must not use
// img, or anything sharing its pixels, afterwards. Recycling is optional:
// an image never recycled is garbage collected as usual.
func Recycle(img *image.NRGBA) {
	if img == nil || cap(img.Pix) == 0 {
		return
	}
	pixels.Lock()
	defer pixels.Unlock()
	for _, b := range pixels.free {
		if unsafe.SliceData(b) == unsafe.SliceData(img.Pix) {
			return // recycled twice: once is all it takes
		}
	}
	if len(pixels.free) == pooledBuffers {
		// Keep the larger buffers: they are the expensive ones.
		small := 0
		for i, b := range pixels.free {
			if cap(b) < cap(pixels.free[small]) {
				small = i
			}
		}
		if cap(pixels.free[small]) >= cap(img.Pix) {
			return
		}
		pixels.free = append(pixels.free[:small], pixels.free[small+1:]...)
	}
	pixels.free = append(pixels.free, img.Pix[:0])
}
