package codec

// #include <glib.h>
// #include "jpeg.h"
// #include "vips.h"
import "C"

import (
	"encoding/binary"
	"fmt"
	"image"
	"unsafe"
)

// Encode writes img as format at quality (1-100), every metadata field
// stripped: the pixels are upright sRGB, so neither an orientation tag nor
// a profile is needed to show them right, and EXIF (GPS, camera serial)
// must not leak into the output. hasAlpha says whether any pixel is
// transparent: an opaque image is written without an alpha band, and a
// JPEG, which has none, of a transparent one is flattened onto white.
func Encode(img *image.NRGBA, hasAlpha bool, format Format, quality int) ([]byte, error) {
	if !format.Known() {
		return nil, fmt.Errorf("codec: no format %q", format)
	}
	if quality < 1 || quality > 100 {
		return nil, fmt.Errorf("codec: quality %d out of range 1-100", quality)
	}
	if format == JPEG && !hasAlpha {
		// libjpeg-turbo straight from the canvas: the same bytes as
		// libvips's jpegsave below, without its copy of the canvas (a
		// 12 MP result's encode takes about half the time).
		out, err := EncodeJPEG(img, quality)
		if err != nil {
			return nil, fmt.Errorf("codec: encode jpeg: %w", err)
		}
		return out, nil
	}
	return encodeVips(img, hasAlpha, format, quality)
}

// encodeVips is Encode through libvips, for PNG, WebP and a transparent
// image flattened into a JPEG: PNG at compression 4 with adaptive
// filtering (within a few percent of the size of level 9 at a fraction of
// its time on 12 MP), WebP at effort 3. An opaque image is written without
// an alpha band: smaller, and read as opaque by every viewer.
func encodeVips(img *image.NRGBA, hasAlpha bool, format Format, quality int) ([]byte, error) {
	if err := vipsStart(); err != nil {
		return nil, fmt.Errorf("codec: starting libvips: %w", err)
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w <= 0 || h <= 0 || img.Stride != 4*w {
		return nil, fmt.Errorf("codec: encode %s: %dx%d pixels not in one block", format, w, h)
	}
	pix := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y):]
	if len(pix) < 4*w*h {
		return nil, fmt.Errorf("codec: encode %s: %dx%d pixels not in one block", format, w, h)
	}
	alpha := C.int(0)
	if hasAlpha {
		alpha = 1
	}
	var out unsafe.Pointer
	var n C.size_t
	var msg [300]C.char
	if C.sr_vips_encode((*C.uchar)(unsafe.Pointer(&pix[0])), C.int(w), C.int(h), alpha, vipsTypes[format],
		C.int(quality), &out, &n, &msg[0], C.size_t(len(msg))) != C.SR_OK {
		return nil, fmt.Errorf("codec: encode %s: %s", format, C.GoString(&msg[0]))
	}
	b := C.GoBytes(out, C.int(n))
	C.g_free(C.gpointer(out))
	if format == WebP {
		b = stripWebPMetadata(b)
	}
	return b, nil
}

// stripWebPMetadata drops EXIF and XMP chunks from a WebP file. libvips
// 8.14's webpsave writes a small EXIF block (orientation, resolution) even
// when asked to strip; harmless, but the contract is no metadata.
func stripWebPMetadata(b []byte) []byte {
	if f, _ := Sniff(b); f != WebP {
		return b
	}
	out := append([]byte(nil), b[:12]...)
	for i := 12; i+8 <= len(b); {
		id := string(b[i : i+4])
		n := int(binary.LittleEndian.Uint32(b[i+4 : i+8]))
		end := i + 8 + n + n%2 // chunks are padded to even sizes
		if end > len(b) {
			return b
		}
		switch id {
		case "EXIF", "XMP ":
		case "VP8X":
			c := append([]byte(nil), b[i:end]...)
			if len(c) > 8 {
				c[8] &^= 0x08 | 0x04 // the EXIF and XMP flags
			}
			out = append(out, c...)
		default:
			out = append(out, b[i:end]...)
		}
		i = end
	}
	binary.LittleEndian.PutUint32(out[4:8], uint32(len(out)-8))
	return out
}
