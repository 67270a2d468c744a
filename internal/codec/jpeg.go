package codec

// #cgo pkg-config: libjpeg lcms2 vips
// #include <stdlib.h>
// #include "jpeg.h"
import "C"

import (
	"errors"
	"fmt"
	"image"
	"runtime"
	"sync"
	"unsafe"
)

// errJPEGUnsupported means decodeJPEG cannot decode this file (CMYK or YCCK
// JPEG); libvips can.
var errJPEGUnsupported = errors.New("codec: JPEG variant left to libvips")

// decodeJPEG decodes the w×h JPEG in data with libjpeg-turbo, straight into
// the returned image, and converts an embedded colour profile to sRGB with
// Little CMS. It does what libvips's load, ICC transform and copy out do,
// in one pass over the pixels instead of three: 12 MP in about a third of
// the time (docs/benchmarks.md). The rows are decoded a band at a time and
// each band's colours converted on another core while the next is decoded.
// EXIF orientation is the caller's.
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
	// libjpeg reads data between the reader's calls: pinned until it is
	// done (cgo lets C keep pointers to pinned memory). The output rows
	// and the cancel flag are passed for one call at a time.
	var pin runtime.Pinner
	pin.Pin(&data[0])
	defer pin.Unpin()
	var icc *C.uchar
	var iccLen C.uint
	var rc C.int
	r := C.sr_jpeg_reader_start((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)), C.int(w), C.int(h),
		C.int(maxScans), C.long(maxMemory), stop.c(), &icc, &iccLen, &rc)
	if r == nil {
		return nil, errors.New("jpeg: out of memory")
	}
	defer C.sr_jpeg_reader_free(r)
	failed := func(rc C.int) error {
		return decodeError(rc, "jpeg", C.GoString(C.sr_jpeg_reader_message(r)))
	}
	if rc != C.SR_OK {
		return nil, failed(rc)
	}
	var t unsafe.Pointer
	if icc != nil {
		var release func()
		t, release = srgbTransform(C.GoBytes(unsafe.Pointer(icc), C.int(iccLen)))
		C.free(unsafe.Pointer(icc))
		defer release() // after the conversion, finished before any return
	}
	img := newNRGBA(w, h)
	conv := convertBands(t, img, (h+decodeBand-1)/decodeBand)
	for lo := 0; lo < h; lo += decodeBand {
		n := min(decodeBand, h-lo)
		if rc := C.sr_jpeg_reader_rows(r, (*C.uchar)(unsafe.Pointer(&img.Pix[lo*img.Stride])), C.size_t(img.Stride),
			C.int(n), stop.c()); rc != C.SR_OK {
			conv.finish()
			Recycle(img)
			return nil, failed(rc)
		}
		conv.add(lo, lo+n)
	}
	rc = C.sr_jpeg_reader_finish(r, stop.c())
	conv.finish()
	if rc != C.SR_OK {
		Recycle(img)
		return nil, failed(rc)
	}
	return img, nil
}

// decodeBand is how many rows decodeJPEG decodes at a time.
const decodeBand = 128

// bandConverter converts bands of an image's rows to sRGB as they are
// handed to it: on a goroutine of its own while they come, then also on
// the caller's.
type bandConverter struct {
	t     unsafe.Pointer // the transform, or nil for none
	img   *image.NRGBA
	bands chan [2]int
	done  sync.WaitGroup
}

// convertBands starts converting img's bands (at most n) with the
// transform t; a nil t converts nothing.
func convertBands(t unsafe.Pointer, img *image.NRGBA, n int) *bandConverter {
	c := &bandConverter{t: t, img: img}
	if t == nil {
		return c
	}
	c.bands = make(chan [2]int, n)
	c.done.Go(c.convert)
	return c
}

func (c *bandConverter) convert() {
	w := c.img.Rect.Dx()
	for b := range c.bands {
		C.sr_icc_apply(c.t, (*C.uchar)(unsafe.Pointer(&c.img.Pix[b[0]*c.img.Stride])), C.size_t((b[1]-b[0])*w))
	}
}

// add hands over rows lo to hi.
func (c *bandConverter) add(lo, hi int) {
	if c.t != nil {
		c.bands <- [2]int{lo, hi}
	}
}

// finish converts the bands still waiting, on this goroutine too, and
// returns once every band handed over is converted.
func (c *bandConverter) finish() {
	if c.t == nil {
		return
	}
	close(c.bands)
	c.convert()
	c.done.Wait()
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

// srgbTransform returns the transform from the colours of the ICC profile
// to sRGB, or nil for a profile that is broken, not RGB, or sRGB itself,
// and what to call once done with it: the cache keeps its transforms, and
// when it is full an odd profile's transform is freed after its photo.
func srgbTransform(profile []byte) (unsafe.Pointer, func()) {
	profiles.Lock()
	defer profiles.Unlock()
	t, ok := profiles.m[string(profile)]
	if ok {
		return t, func() {}
	}
	t = C.sr_icc_to_srgb((*C.uchar)(unsafe.Pointer(&profile[0])), C.uint(len(profile)))
	if len(profiles.m) < maxCachedProfiles {
		profiles.m[string(profile)] = t
		return t, func() {}
	}
	return t, func() {
		if t != nil {
			C.sr_icc_free(t)
		}
	}
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
	width      int
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
	j := &JPEGWriter{w: w, width: width, rows: height}
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
// follow the rows written before, in an image as wide as the writer's.
func (j *JPEGWriter) WriteRows(img *image.NRGBA, lo, hi int) error {
	switch {
	case j.err != nil:
		return j.err
	case img.Rect.Dx() != j.width:
		return fmt.Errorf("jpeg: rows %d pixels wide for a JPEG %d wide", img.Rect.Dx(), j.width)
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
