package codec

import (
	"encoding/binary"
	"fmt"
	"image"

	"github.com/davidbyttow/govips/v2/vips"
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
// image flattened into a JPEG.
func encodeVips(img *image.NRGBA, hasAlpha bool, format Format, quality int) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	ref, err := vips.NewImageFromMemory(img.Pix, w, h, 4, vips.BandFormatUchar, vips.InterpretationSRGB)
	if err != nil {
		return nil, fmt.Errorf("codec: to libvips: %w", err)
	}
	defer ref.Close()
	switch {
	case !hasAlpha:
		// An opaque result is written without an alpha band: smaller,
		// and read as opaque by every viewer. For JPEG it is the same
		// as flattening, at about 60% of its time (libvips flattens in
		// floating point).
		if err := ref.ExtractBand(0, 3); err != nil {
			return nil, fmt.Errorf("codec: drop alpha: %w", err)
		}
	case format == JPEG:
		if err := ref.Flatten(&vips.Color{R: 255, G: 255, B: 255}); err != nil {
			return nil, fmt.Errorf("codec: flatten: %w", err)
		}
	}
	var out []byte
	switch format {
	case JPEG:
		p := vips.NewJpegExportParams()
		p.StripMetadata, p.Quality, p.Interlace = true, quality, false
		p.OptimizeCoding = true
		out, _, err = ref.ExportJpeg(p)
	case PNG:
		p := vips.NewPngExportParams()
		p.StripMetadata = true
		// Compression 4 with adaptive filtering: within a few percent of
		// the size of level 9 at a fraction of its time on 12 MP.
		p.Compression, p.Filter = 4, vips.PngFilterAll
		out, _, err = ref.ExportPng(p)
	case WebP:
		p := vips.NewWebpExportParams()
		p.StripMetadata, p.Quality = true, quality
		p.ReductionEffort = 3
		out, _, err = ref.ExportWebp(p)
		if err == nil {
			out = stripWebPMetadata(out)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("codec: encode %s: %w", format, err)
	}
	return out, nil
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
