package codec

import (
	"errors"
	"fmt"

	"github.com/showroom/showroom/internal/showroom"
)

// DefaultMaxScans is how many scans a JPEG may have unless Limits says
// otherwise. Encoders write 1 (baseline) or about 10 (progressive: libjpeg's
// default script has 10, mozjpeg's optimised ones a dozen or so); each scan
// costs a pass over the whole image's coefficients, so a small file with
// thousands of scans keeps a decoder busy for seconds to minutes.
// libjpeg-turbo's own tools suggest 500 as a limit for untrusted files; 100
// leaves ample room for any encoder while bounding the work to about ten
// times a usual progressive decode.
const DefaultMaxScans = 100

// Limits bound what one decode may cost. Everything is checked from the
// file's header and structure before a pixel is decoded, except the scan
// count, which the JPEG decoders also enforce while they decode.
type Limits struct {
	// MinSide refuses an image narrower or lower (INVALID_IMAGE): MinSide
	// for a photo, which segmentation needs; 0 means 1 pixel, for content
	// such as a small logo.
	MinSide int
	// MaxPixels refuses an image of more pixels (width x height) with
	// PAYLOAD_TOO_LARGE; 0 means no limit.
	MaxPixels int
	// MaxBytes refuses an image whose decode takes more memory (see
	// DecodedBytes) with PAYLOAD_TOO_LARGE; 0 means no limit.
	MaxBytes int64
	// MaxScans refuses a JPEG of more scans with INVALID_IMAGE; 0 means
	// DefaultMaxScans. There is no "unlimited".
	MaxScans int
}

// DefaultLimits are the limits of a photo: MinSide, showroom.DefaultMaxPixels,
// showroom.DefaultMaxBytes, DefaultMaxScans.
func DefaultLimits() Limits {
	return Limits{MinSide: MinSide, MaxPixels: showroom.DefaultMaxPixels, MaxBytes: showroom.DefaultMaxBytes, MaxScans: DefaultMaxScans}
}

func (l Limits) maxScans() int {
	if l.MaxScans <= 0 {
		return DefaultMaxScans
	}
	return l.MaxScans
}

// Header is what an image's header says about its decode.
type Header struct {
	Width, Height int
	// Bands is the number of channels the file stores (3 for RGB, 4 for
	// RGBA or CMYK), SampleBytes the bytes of each (2 for a 16-bit PNG).
	Bands, SampleBytes int
	// CoefficientBytes is what a JPEG decoder keeps besides the pixels: a
	// progressive or multi-scan JPEG is decoded into a whole-image buffer
	// of DCT coefficients, 2 bytes a sample, before the first pixel comes
	// out.
	CoefficientBytes int64
}

// DecodedBytes is the memory the decode of an image with this header
// takes at most: the image as the file stores it (width x height x bands
// x bytes a sample, what a decoder holds of an interlaced PNG or a WebP),
// or the 4 bytes a pixel of the decoded RGBA if that is more, and a JPEG's
// coefficients.
func (h Header) DecodedBytes() int64 {
	perPixel := max(int64(h.Bands)*int64(h.SampleBytes), 4)
	return int64(h.Width)*int64(h.Height)*perPixel + h.CoefficientBytes
}

// check refuses a header over the limits: a side under MinSide
// (INVALID_IMAGE), too many pixels or bytes (PAYLOAD_TOO_LARGE).
func (l Limits) check(h Header) error {
	if minSide := max(l.MinSide, 1); h.Width < minSide || h.Height < minSide {
		return showroom.Errorf(showroom.EInvalidImage, "the image is %dx%d; each side must be at least %d pixels",
			h.Width, h.Height, minSide)
	}
	if px := int64(h.Width) * int64(h.Height); l.MaxPixels > 0 && px > int64(l.MaxPixels) {
		return showroom.Errorf(showroom.EPayloadTooLarge, "the image is %dx%d, %.1f megapixels; at most %.1f are accepted",
			h.Width, h.Height, float64(px)/1e6, float64(l.MaxPixels)/1e6)
	}
	if n := h.DecodedBytes(); l.MaxBytes > 0 && n > l.MaxBytes {
		return showroom.Errorf(showroom.EPayloadTooLarge,
			"the image is %dx%d with %d channels of %d bits: decoding it takes %s, and at most %s are allowed",
			h.Width, h.Height, h.Bands, 8*h.SampleBytes, mebibytes(n), mebibytes(l.MaxBytes))
	}
	return nil
}

func mebibytes(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// errTooManyScans is a JPEG over Limits.MaxScans.
var errTooManyScans = errors.New("too many scans")

// quickHeader reads the size a PNG's IHDR, a JPEG's frame header (sof, as
// walkJPEG found it) or a WebP's VP8X, VP8 or VP8L header declares, for
// the limits to be checked before any library parses the file: a header
// with nothing after it (no IDAT, no scan) is still judged by what it
// claims. ok is false when the bytes do not say.
func quickHeader(data []byte, sof []byte) (h Header, ok bool) {
	be32 := func(b []byte) int { return int(b[0])<<24 | int(b[1])<<16 | int(b[2])<<8 | int(b[3]) }
	switch {
	case len(sof) >= 6: // JPEG: precision, height, width, components
		h = Header{Width: int(sof[3])<<8 | int(sof[4]), Height: int(sof[1])<<8 | int(sof[2]),
			Bands: int(sof[5]), SampleBytes: 1}
		if sof[0] > 8 {
			h.SampleBytes = 2
		}
		return h, true
	case len(data) >= 26 && string(data[:8]) == pngSignature && string(data[12:16]) == "IHDR":
		h = Header{Width: be32(data[16:]), Height: be32(data[20:]), SampleBytes: 1}
		if data[24] == 16 {
			h.SampleBytes = 2
		}
		// Grey, RGB, palette (decoded to RGB), grey and alpha, RGBA.
		h.Bands = map[byte]int{0: 1, 2: 3, 3: 3, 4: 2, 6: 4}[data[25]]
		return h, true
	case len(data) >= 30 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		le24 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
		h = Header{Bands: 4, SampleBytes: 1}
		switch string(data[12:16]) {
		case "VP8X":
			h.Width, h.Height = le24(data[24:])+1, le24(data[27:])+1
		case "VP8L":
			b := data[21:25]
			h.Width = 1 + (int(b[0]) | int(b[1]&0x3F)<<8)
			h.Height = 1 + (int(b[1])>>6 | int(b[2])<<2 | int(b[3]&0x0F)<<10)
		case "VP8 ":
			h.Width, h.Height = (int(data[26])|int(data[27])<<8)&0x3FFF, (int(data[28])|int(data[29])<<8)&0x3FFF
		default:
			return h, false
		}
		return h, true
	}
	return h, false
}

// jpegLayout is what walking a JPEG's markers tells before decoding it.
type jpegLayout struct {
	sof         []byte // the frame header's data
	scans       int
	progressive bool
	// coefficientBytes is the whole-image coefficient buffer of a
	// progressive or multi-scan decode; 0 for a single-scan one.
	coefficientBytes int64
}

// standaloneMarker reports whether JPEG marker m stands alone, with no
// segment after it: TEM, a reserved one, RSTn, SOI.
func standaloneMarker(m byte) bool { return m == 0x00 || m == 0x01 || m >= 0xD0 && m <= 0xD8 }

// frameMarker reports whether JPEG marker m starts a frame header (SOFn):
// C0-CF but DHT (C4), JPG (C8) and DAC (CC).
func frameMarker(m byte) bool { return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC }

// walkJPEG walks the markers of a JPEG, skipping each segment by its
// length and each scan's entropy-coded data up to the next marker, to count
// the scans without decoding any: a cheap first line, in front of every
// decoder (libjpeg-turbo here, libjpeg inside libvips for CMYK), against a
// file with thousands of them. It stops with errTooManyScans as soon as the
// count passes maxScans. Anything else odd (garbage between markers, a
// missing end) is left for the decoder to judge: walkJPEG only counts.
func walkJPEG(data []byte, maxScans int) (jpegLayout, error) {
	var l jpegLayout
	var sof []byte // the frame header, once seen
	i := 2         // after SOI
	for i+1 < len(data) {
		if data[i] != 0xFF {
			i++ // extraneous bytes before a marker: libjpeg skips them too
			continue
		}
		m := data[i+1]
		switch {
		case m == 0xFF: // fill byte
			i++
			continue
		case m == 0xD9: // EOI
			return l.finish(sof), nil
		case standaloneMarker(m):
			i += 2
			continue
		}
		if i+4 > len(data) {
			break
		}
		n := int(data[i+2])<<8 | int(data[i+3])
		end := min(i+2+n, len(data))
		seg := data[min(i+4, end):end]
		switch {
		case m == 0xDA: // SOS
			l.scans++
			if l.scans > maxScans {
				return l.finish(sof), fmt.Errorf("%w: more than %d", errTooManyScans, maxScans)
			}
			i = skipEntropyData(data, end)
			continue
		case frameMarker(m):
			if sof == nil {
				sof = seg
				l.progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE
			}
		}
		i = end
	}
	return l.finish(sof), nil
}

// skipEntropyData returns the position of the first marker at or after i
// in a scan's entropy-coded data, where 0xFF is followed by a stuffed 0x00,
// a restart marker or fill bytes, and anything else is a marker.
func skipEntropyData(data []byte, i int) int {
	for i+1 < len(data) {
		if data[i] != 0xFF {
			i++
			continue
		}
		if m := data[i+1]; m == 0x00 || m >= 0xD0 && m <= 0xD7 || m == 0xFF {
			i++
			continue
		}
		return i
	}
	return len(data)
}

// finish works out the coefficient buffer from the frame header sof: 64
// coefficients of 2 bytes for each 8x8 block of each component, the
// components subsampled by their factors.
func (l jpegLayout) finish(sof []byte) jpegLayout {
	l.sof = sof
	if !l.progressive && l.scans <= 1 || len(sof) < 6 {
		return l
	}
	h, w, nc := int64(sof[1])<<8|int64(sof[2]), int64(sof[3])<<8|int64(sof[4]), int(sof[5])
	if len(sof) < 6+3*nc {
		return l
	}
	var hmax, vmax int64 = 1, 1
	for c := range nc {
		f := sof[6+3*c+1]
		hmax, vmax = max(hmax, int64(f>>4)), max(vmax, int64(f&15))
	}
	for c := range nc {
		f := sof[6+3*c+1]
		cw, ch := ceilDiv(w*int64(f>>4), hmax), ceilDiv(h*int64(f&15), vmax)
		l.coefficientBytes += ceilDiv(cw, 8) * ceilDiv(ch, 8) * 64 * 2
	}
	return l
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return 0
	}
	return (a + b - 1) / b
}
