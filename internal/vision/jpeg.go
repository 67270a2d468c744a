package vision

// #cgo pkg-config: libjpeg lcms2
// #include <stdlib.h>
// #include "jpeg.h"
import "C"

import (
	"errors"
	"fmt"
	"image"
	"sync"
	"unsafe"

	"github.com/showroom/showroom/internal/imaging"
)

// errJPEGUnsupported means decodeJPEG cannot decode this file (CMYK or YCCK
// JPEG); libvips can.
var errJPEGUnsupported = errors.New("vision: JPEG variant left to libvips")

// decodeJPEG decodes the w×h JPEG in data with libjpeg-turbo, straight into
// the returned image, and converts an embedded colour profile to sRGB with
// Little CMS. It does what libvips's load, ICC transform and copy out do,
// in one pass over the pixels instead of three: 12 MP in about a third of
// the time (docs/benchmarks.md). EXIF orientation is the caller's.
func decodeJPEG(data []byte, w, h int) (*image.NRGBA, error) {
	img := newNRGBA(w, h)
	var icc *C.uchar
	var iccLen C.uint
	var msg [200]C.char
	// Go memory passed to C for the call only: cgo's rules allow it, as
	// neither buffer holds Go pointers and C keeps neither.
	rc := C.sr_jpeg_decode((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)),
		(*C.uchar)(unsafe.Pointer(&img.Pix[0])), C.int(w), C.int(h), &icc, &iccLen, &msg[0], C.size_t(len(msg)))
	switch rc {
	case C.SR_OK:
	case C.SR_UNSUPPORTED:
		Recycle(img)
		return nil, errJPEGUnsupported
	default:
		Recycle(img)
		return nil, fmt.Errorf("jpeg: %s", C.GoString(&msg[0]))
	}
	if icc != nil {
		profile := C.GoBytes(unsafe.Pointer(icc), C.int(iccLen))
		C.free(unsafe.Pointer(icc))
		toSRGBFrom(profile, img)
	}
	return img, nil
}

// profiles caches the transforms from the colour profiles photos carry to
// sRGB: a few profiles (Display P3 from phones, Adobe RGB from cameras)
// cover almost every photo, and a transform takes milliseconds to build.
// Package state because the transforms are C objects shared by every
// decode; bounded, so odd profiles cannot grow it without end.
var profiles = struct {
	sync.Mutex
	m map[string]unsafe.Pointer // nil value: the profile needs no conversion
}{m: map[string]unsafe.Pointer{}}

const maxCachedProfiles = 32

// toSRGBFrom converts img, in the colours of the ICC profile, to sRGB in
// place, rows split over the cores. A profile that is broken, not RGB, or
// sRGB itself leaves img as it is.
func toSRGBFrom(profile []byte, img *image.NRGBA) {
	profiles.Lock()
	t, ok := profiles.m[string(profile)]
	if !ok {
		t = C.sr_icc_to_srgb((*C.uchar)(unsafe.Pointer(&profile[0])), C.uint(len(profile)))
		if len(profiles.m) < maxCachedProfiles {
			profiles.m[string(profile)] = t
		} else if t != nil {
			defer C.sr_icc_free(t)
		}
	}
	profiles.Unlock()
	if t == nil {
		return
	}
	w := img.Rect.Dx()
	imaging.Parallel(img.Rect.Dy(), func(lo, hi int) {
		C.sr_icc_apply(t, (*C.uchar)(unsafe.Pointer(&img.Pix[lo*img.Stride])), C.size_t((hi-lo)*w))
	})
}
