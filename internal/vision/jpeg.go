package vision

// #cgo pkg-config: libjpeg lcms2 vips
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
//
// It stops at scan maxScans+1 (errTooManyScans) and once stop is set
// (errCancelled); libjpeg's whole-image buffers may take maxMemory bytes
// (0: no limit), or errTooLarge. A warning that leaves the image whole
// (garbage between markers, as some cameras write) is ignored; any other
// fails the decode where it is raised.
func decodeJPEG(data []byte, w, h, maxScans int, maxMemory int64, stop *cancelFlag) (*image.NRGBA, error) {
	if len(data) == 0 {
		return nil, errors.New("jpeg: no data")
	}
	img := newNRGBA(w, h)
	var icc *C.uchar
	var iccLen C.uint
	var msg [200]C.char
	// Go memory passed to C for the call only: cgo's rules allow it, as
	// no buffer holds Go pointers and C keeps none.
	rc := C.sr_jpeg_decode((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)),
		(*C.uchar)(unsafe.Pointer(&img.Pix[0])), C.int(w), C.int(h), C.int(maxScans), C.long(maxMemory),
		stop.c(), &icc, &iccLen, &msg[0], C.size_t(len(msg)))
	if rc != C.SR_OK {
		Recycle(img)
		return nil, decodeError(rc, "jpeg", C.GoString(&msg[0]))
	}
	if icc != nil {
		profile := C.GoBytes(unsafe.Pointer(icc), C.int(iccLen))
		C.free(unsafe.Pointer(icc))
		toSRGBFrom(profile, img)
	}
	return img, nil
}

// Why a decode in C stopped, as decodeError tells it.
var (
	errCancelled = errors.New("cancelled")
	errTooLarge  = errors.New("needs more memory than allowed")
)

// decodeError turns a result of sr_jpeg_decode or sr_vips_decode into an
// error that errors.Is can tell apart.
func decodeError(rc C.int, what, msg string) error {
	switch rc {
	case C.SR_UNSUPPORTED:
		return errJPEGUnsupported
	case C.SR_CANCELLED:
		return errCancelled
	case C.SR_TOO_LARGE:
		return fmt.Errorf("%s: %w (%s)", what, errTooLarge, msg)
	case C.SR_TOO_MANY_SCANS:
		return fmt.Errorf("%s: %w (%s)", what, errTooManyScans, msg)
	}
	return fmt.Errorf("%s: %s", what, msg)
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

// EncodeJPEG writes img's pixels, alpha ignored, as a JPEG at quality
// (1-100) with libjpeg-turbo, straight from img's buffer: what libvips's
// jpegsave with optimised coding and no metadata writes, without its copy
// of the image (docs/benchmarks.md). The chroma is subsampled 2×2 below
// quality 90.
func EncodeJPEG(img *image.NRGBA, quality int) ([]byte, error) {
	w, err := NewJPEGWriter(img.Rect.Dx(), img.Rect.Dy(), quality)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if err := w.WriteRows(img, img.Rect.Min.Y, img.Rect.Max.Y); err != nil {
		return nil, err
	}
	return w.Finish()
}

// JPEGWriter is EncodeJPEG a band of rows at a time, top to bottom, so that
// the rows can be compressed as they are made. Not for concurrent use; Close
// frees it, whatever happened before.
type JPEGWriter struct {
	w          *C.sr_jpeg_writer
	next, rows int // the next row to write, and how many in all
	err        error
}

// NewJPEGWriter starts a width×height JPEG at quality (1-100).
func NewJPEGWriter(width, height, quality int) (*JPEGWriter, error) {
	if width <= 0 || height <= 0 {
		return nil, errors.New("jpeg: empty image")
	}
	var rc C.int
	w := C.sr_jpeg_writer_start(C.int(width), C.int(height), C.int(quality), &rc)
	if w == nil {
		return nil, errors.New("jpeg: encoding: out of memory")
	}
	j := &JPEGWriter{w: w, rows: height}
	if rc != C.SR_OK {
		defer j.Close()
		return nil, j.fail()
	}
	return j, nil
}

// fail records the writer's message as its error, for good.
func (j *JPEGWriter) fail() error {
	j.err = fmt.Errorf("jpeg: encoding: %s", C.GoString(C.sr_jpeg_writer_message(j.w)))
	return j.err
}

// WriteRows compresses img's rows lo to hi (image coordinates), which must
// follow the rows written before; img must be as wide as the writer's
// image.
func (j *JPEGWriter) WriteRows(img *image.NRGBA, lo, hi int) error {
	switch {
	case j.err != nil:
		return j.err
	case lo-img.Rect.Min.Y != j.next || hi < lo || hi-img.Rect.Min.Y > j.rows:
		return fmt.Errorf("jpeg: rows %d to %d written after %d of %d", lo, hi, j.next, j.rows)
	case hi == lo:
		return nil
	}
	pix := img.Pix[img.PixOffset(img.Rect.Min.X, lo):]
	if rc := C.sr_jpeg_writer_rows(j.w, (*C.uchar)(unsafe.Pointer(&pix[0])), C.int(img.Stride), C.int(hi-lo)); rc != C.SR_OK {
		return j.fail()
	}
	j.next += hi - lo
	return nil
}

// Finish ends the JPEG once every row is written and returns the file.
func (j *JPEGWriter) Finish() ([]byte, error) {
	if j.err != nil {
		return nil, j.err
	}
	if j.next != j.rows {
		return nil, fmt.Errorf("jpeg: finished after %d of %d rows", j.next, j.rows)
	}
	if rc := C.sr_jpeg_writer_finish(j.w); rc != C.SR_OK {
		return nil, j.fail()
	}
	var n C.ulong
	out := C.sr_jpeg_writer_output(j.w, &n)
	return C.GoBytes(unsafe.Pointer(out), C.int(n)), nil
}

// Close frees the writer.
func (j *JPEGWriter) Close() {
	C.sr_jpeg_writer_free(j.w)
	j.w = nil
}
