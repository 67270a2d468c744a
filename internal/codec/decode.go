package codec

// #include <stdlib.h>
// #include "jpeg.h"
// #include "vips.h"
import "C"

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/showroom/showroom/internal/showroom"
)

// vipsStart starts libvips once per process: libvips is a process-wide C
// library with its own global state, so this is package state by necessity.
var vipsStart = sync.OnceValue(func() error {
	var msg [200]C.char
	if C.sr_vips_start(&msg[0], C.size_t(len(msg))) != C.SR_OK {
		return errors.New(C.GoString(&msg[0]))
	}
	return nil
})

// Start starts libvips with the settings this package chose (one libvips
// thread, as requests run in parallel at the worker level; no operation
// cache), once. Decode and Encode call it; a caller may call it first, to
// fail at start-up rather than on the first image.
func Start() error { return vipsStart() }

// MinSide is the least width and height of a photo that can be processed.
const MinSide = showroom.MinPhotoSide

// Decode decodes a JPEG, PNG or WebP image into 8-bit sRGB pixels, upright
// (its EXIF orientation applied) and opaque (any alpha flattened onto
// white): a photo, or a background that stands in for one. It is the one
// decoder of Showroom: what an upload is checked with is what the pipeline
// decodes later.
//
// First Inspect checks the file against lim, from its header and its
// structure, so a small file cannot expand into gigabytes nor keep a
// decoder busy for minutes. Then bytes that do not decode to a whole image
// are INVALID_IMAGE, and so is a JPEG the decoder finds more than
// lim.MaxScans scans in. Once ctx is done the decode stops within
// milliseconds and returns ctx's error. A caller done with the image may
// Recycle it.
func Decode(ctx context.Context, data []byte, lim Limits) (*image.NRGBA, error) {
	return decodeData(ctx, data, lim, false)
}

// DecodeTransparent is Decode keeping the image's transparency: for a
// poster or a logo laid over a photo.
func DecodeTransparent(ctx context.Context, data []byte, lim Limits) (*image.NRGBA, error) {
	return decodeData(ctx, data, lim, true)
}

func decodeData(ctx context.Context, data []byte, lim Limits, keepAlpha bool) (*image.NRGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	in, err := Inspect(data, lim)
	if err != nil {
		return nil, err
	}
	return in.decode(ctx, keepAlpha)
}

// Inspected is an image Inspect read the header of and found within its
// limits: its Decode goes on from there, without reading the header again.
type Inspected struct {
	Header
	// data is what the decoder reads: the file, or a PNG's bytes without
	// its text chunks.
	data        []byte
	orientation int
	typ         C.int
	lim         Limits
}

// Decode is Decode of the inspected image.
func (in Inspected) Decode(ctx context.Context) (*image.NRGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return in.decode(ctx, false)
}

// DecodeTransparent is DecodeTransparent of the inspected image.
func (in Inspected) DecodeTransparent(ctx context.Context) (*image.NRGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return in.decode(ctx, true)
}

// vipsTypes are the formats as sr_vips_header and sr_vips_decode take them.
var vipsTypes = map[Format]C.int{JPEG: C.SR_VIPS_JPEG, PNG: C.SR_VIPS_PNG, WebP: C.SR_VIPS_WEBP}

// Inspect checks an image against lim without decoding a pixel, and
// returns its header (the size as stored, before any EXIF orientation). A
// file that is no JPEG, PNG or WebP, whose header cannot be read, with a
// side under lim.MinSide, a JPEG of more than lim.MaxScans scans, or a PNG
// whose image data is too short for its pixels (see pngDataCutShort) is
// INVALID_IMAGE; one over lim.MaxPixels or lim.MaxBytes is
// PAYLOAD_TOO_LARGE. It takes microseconds: a caller may do it before
// waiting for a turn to decode.
//
// A PNG's text chunks are never read: see withoutPNGText.
func Inspect(data []byte, lim Limits) (Inspected, error) {
	h, orientation, typ, decodable, err := inspect(data, lim)
	if err != nil {
		return Inspected{Header: h}, err
	}
	return Inspected{Header: h, data: decodable, orientation: orientation, typ: typ, lim: lim}, nil
}

// inspect is Inspect, returning besides the header what the decoder is to
// read: data, or a PNG's bytes without its text chunks.
func inspect(data []byte, lim Limits) (h Header, orientation int, typ C.int, decodable []byte, err error) {
	if err := vipsStart(); err != nil {
		return h, 0, 0, nil, showroom.Internal(fmt.Errorf("codec: starting libvips: %w", err))
	}
	// Under 12 bytes no file of these formats is whole (a WebP's
	// signature alone takes 12).
	f, ok := Sniff(data)
	if !ok || len(data) < 12 {
		return h, 0, 0, nil, invalidImage("the image is not a JPEG, PNG or WebP", fmt.Errorf("%d bytes", len(data)))
	}
	typ = vipsTypes[f]
	var layout jpegLayout
	if typ == C.SR_VIPS_JPEG {
		if layout, err = walkJPEG(data, lim.maxScans()); err != nil {
			return h, 0, 0, nil, invalidImage(fmt.Sprintf("the JPEG has more than %d scans", lim.maxScans()), err)
		}
	}
	// What the header claims is judged before a library reads on: a PNG
	// header with no data after it is still too large when it says so.
	if q, ok := quickHeader(data, layout.sof); ok {
		q.CoefficientBytes = layout.coefficientBytes
		if err := lim.check(q); err != nil {
			return h, 0, 0, nil, err
		}
	}
	if typ == C.SR_VIPS_PNG {
		if have, need, short, ok := pngDataCutShort(data); ok && short {
			return h, 0, 0, nil, invalidImage("the image is truncated or corrupt",
				fmt.Errorf("the PNG's image data is %d bytes, which inflate to at most %d of the %d its pixels take",
					have, have*deflateMaxRatio, need))
		}
		data = withoutPNGText(data)
	}
	if h, orientation, err = readHeader(data, typ); err != nil {
		return h, 0, 0, nil, invalidImage("the image's header cannot be read", err)
	}
	h.CoefficientBytes = layout.coefficientBytes
	return h, orientation, typ, data, lim.check(h)
}

// decode decodes the inspected image, upright.
func (in Inspected) decode(ctx context.Context, keepAlpha bool) (*image.NRGBA, error) {
	hdr, orientation, typ, data, lim := in.Header, in.orientation, in.typ, in.data, in.lim
	if data == nil {
		return nil, errors.New("codec: decoding an image Inspect refused")
	}
	var err error
	stop := watch(ctx)
	defer stop.release()
	w, h := hdr.Width, hdr.Height
	var pix *image.NRGBA
	if typ == C.SR_VIPS_JPEG {
		// The common case, done without libvips's copies; see decodeJPEG.
		pix, err = decodeJPEG(data, w, h, lim.maxScans(), lim.MaxBytes, stop)
	}
	if pix == nil && (err == nil || errors.Is(err, errJPEGUnsupported)) {
		pix, err = decodeVips(data, typ, w, h, keepAlpha, stop)
	}
	switch {
	case errors.Is(err, errCancelled):
		return nil, ctx.Err()
	case errors.Is(err, errTooLarge):
		return nil, &showroom.Error{Code: showroom.EPayloadTooLarge, Cause: err,
			Message: fmt.Sprintf("decoding the image takes more than the %s allowed", mebibytes(lim.MaxBytes))}
	case errors.Is(err, errTooManyScans):
		return nil, invalidImage(fmt.Sprintf("the JPEG has more than %d scans", lim.maxScans()), err)
	case err != nil:
		return nil, invalidImage("the image is truncated or corrupt", err)
	}
	return orient(pix, orientation), nil
}

// invalidImage is INVALID_IMAGE with a public message and the decoder's
// words as the cause, for the log.
func invalidImage(msg string, cause error) error {
	return &showroom.Error{Code: showroom.EInvalidImage, Message: msg, Cause: cause}
}

// readHeader reads an image's header with libvips, decoding no pixel.
func readHeader(data []byte, typ C.int) (Header, int, error) {
	var info C.sr_vips_info
	var msg [200]C.char
	if C.sr_vips_header((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)), typ, &info,
		&msg[0], C.size_t(len(msg))) != C.SR_OK {
		return Header{}, 0, errors.New(C.GoString(&msg[0]))
	}
	h := Header{Width: int(info.width), Height: int(info.height), Bands: int(info.bands),
		SampleBytes: int(info.sample_bytes)}
	return h, int(info.orientation), nil
}

// srgbICC is the sRGB profile (IEC 61966-2-1, the International Color
// Consortium's, freely distributed) images are converted to: the same
// bytes govips handed libvips when it was the binding, so the colours stay
// as they were.
//
//go:embed srgb.icc
var srgbICC []byte

// srgbProfile is the path of srgbICC written to a file of its own, which is
// how libvips takes a profile, as a C string for the life of the process.
var srgbProfile = sync.OnceValues(func() (*C.char, error) {
	dir, err := os.MkdirTemp("", "showroom-codec-")
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, "srgb_iec61966_2_1.icc")
	if err := os.WriteFile(p, srgbICC, 0o600); err != nil {
		return nil, err
	}
	return C.CString(p), nil
})

// decodeVips decodes the w×h image in data with libvips (PNG, WebP, and the
// CMYK JPEGs decodeJPEG leaves) straight into the returned image, reading
// it top to bottom, and stops between strips of rows once stop is set.
// EXIF orientation is the caller's.
func decodeVips(data []byte, typ C.int, w, h int, keepAlpha bool, stop *cancelFlag) (*image.NRGBA, error) {
	profile, err := srgbProfile()
	if err != nil {
		return nil, fmt.Errorf("sRGB profile: %w", err)
	}
	img := newNRGBA(w, h)
	alpha := C.int(0)
	if keepAlpha {
		alpha = 1
	}
	var msg [300]C.char
	// Go memory for the call only, as in decodeJPEG.
	rc := C.sr_vips_decode((*C.uchar)(unsafe.Pointer(&data[0])), C.size_t(len(data)), typ, profile, alpha,
		(*C.uchar)(unsafe.Pointer(&img.Pix[0])), C.int(w), C.int(h), stop.c(), &msg[0], C.size_t(len(msg)))
	if rc != C.SR_OK {
		Recycle(img)
		return nil, decodeError(rc, "libvips", C.GoString(&msg[0]))
	}
	return img, nil
}

// cancelFlag is set when a context is done, for C code to see: a cgo call
// cannot watch a context, but the decoders look at this flag between rows.
type cancelFlag struct {
	// v is its own allocation, with no Go pointers in it, so that C may
	// read it during a call; C reads it atomically, Go writes it so.
	v    *int32
	stop func() bool
}

// watch returns a flag set once ctx is done; release it after the decode.
func watch(ctx context.Context) *cancelFlag {
	f := &cancelFlag{v: new(int32)}
	v := f.v
	f.stop = context.AfterFunc(ctx, func() { atomic.StoreInt32(v, 1) })
	return f
}

// release stops watching. The flag stays valid Go memory however late the
// watcher sets it.
func (f *cancelFlag) release() {
	if f != nil {
		f.stop()
	}
}

// c is the flag as C takes it; NULL for no flag.
func (f *cancelFlag) c() *C.int {
	if f == nil {
		return nil
	}
	return (*C.int)(unsafe.Pointer(f.v))
}
