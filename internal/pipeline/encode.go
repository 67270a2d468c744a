package pipeline

import (
	"encoding/binary"
	"fmt"
	"image"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/showroom"
)

// Output formats of Request.Format.
const (
	FormatJPEG = string(codec.JPEG)
	FormatPNG  = string(codec.PNG)
	FormatWebP = string(codec.WebP)
)

// DefaultQuality is the JPEG and WebP quality when a request names none.
const DefaultQuality = 90

// startVips makes sure libvips runs with the settings internal/codec chose
// (one libvips thread; requests run in parallel at the worker level):
// govips would otherwise start itself on first use with a thread per core.
func startVips() error { return codec.Start() }

// encode writes img in format ("" = JPEG, or PNG when hasAlpha) at
// quality, every metadata field stripped: the pixels are upright sRGB,
// so neither an orientation tag nor a profile is needed to show them
// right, and EXIF (GPS, camera serial) must not leak into the output.
// JPEG has no alpha: a transparent result is flattened onto white.
func encode(img *image.NRGBA, hasAlpha bool, format string, quality int) ([]byte, string, error) {
	if format == "" {
		format = FormatJPEG
		if hasAlpha {
			format = FormatPNG
		}
	}
	if !codec.Format(format).Known() {
		return nil, "", showroom.Errorf(showroom.EInvalidBody, "unknown output format %q: use jpeg, png or webp", format)
	}
	quality, err := outputQuality(quality)
	if err != nil {
		return nil, "", err
	}
	if format == FormatJPEG && !hasAlpha {
		// libjpeg-turbo straight from the canvas: the same bytes as
		// libvips's jpegsave below, without its copy of the canvas (a
		// 12 MP result's encode takes about half the time).
		out, err := codec.EncodeJPEG(img, quality)
		if err != nil {
			return nil, "", fmt.Errorf("pipeline: encode jpeg: %w", err)
		}
		return out, codec.JPEG.MediaType(), nil
	}
	return encodeVips(img, hasAlpha, format, quality)
}

// outputQuality returns the quality a request asked for, DefaultQuality
// when it named none, or INVALID_BODY out of 1-100.
func outputQuality(quality int) (int, error) {
	if quality == 0 {
		return DefaultQuality, nil
	}
	if quality < 1 || quality > 100 {
		return 0, showroom.Errorf(showroom.EInvalidBody, "quality %d out of range 1-100", quality)
	}
	return quality, nil
}

// encodeVips is encode through libvips, for PNG, WebP and a transparent
// result flattened into a JPEG; format and quality are checked.
func encodeVips(img *image.NRGBA, hasAlpha bool, format string, quality int) ([]byte, string, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	ref, err := vips.NewImageFromMemory(img.Pix, w, h, 4, vips.BandFormatUchar, vips.InterpretationSRGB)
	if err != nil {
		return nil, "", fmt.Errorf("pipeline: to libvips: %w", err)
	}
	defer ref.Close()
	switch {
	case !hasAlpha:
		// An opaque result is written without an alpha band: smaller,
		// and read as opaque by every viewer. For JPEG it is the same
		// as flattening, at about 60% of its time (libvips flattens in
		// floating point).
		if err := ref.ExtractBand(0, 3); err != nil {
			return nil, "", fmt.Errorf("pipeline: drop alpha: %w", err)
		}
	case format == FormatJPEG:
		if err := ref.Flatten(&vips.Color{R: 255, G: 255, B: 255}); err != nil {
			return nil, "", fmt.Errorf("pipeline: flatten: %w", err)
		}
	}
	var out []byte
	switch format {
	case FormatJPEG:
		p := vips.NewJpegExportParams()
		p.StripMetadata, p.Quality, p.Interlace = true, quality, false
		p.OptimizeCoding = true
		out, _, err = ref.ExportJpeg(p)
	case FormatPNG:
		p := vips.NewPngExportParams()
		p.StripMetadata = true
		// Compression 4 with adaptive filtering: within a few percent of
		// the size of level 9 at a fraction of its time on 12 MP.
		p.Compression, p.Filter = 4, vips.PngFilterAll
		out, _, err = ref.ExportPng(p)
	case FormatWebP:
		p := vips.NewWebpExportParams()
		p.StripMetadata, p.Quality = true, quality
		p.ReductionEffort = 3
		out, _, err = ref.ExportWebp(p)
		if err == nil {
			out = stripWebPMetadata(out)
		}
	}
	if err != nil {
		return nil, "", fmt.Errorf("pipeline: encode %s: %w", format, err)
	}
	return out, codec.Format(format).MediaType(), nil
}

// stripWebPMetadata drops EXIF and XMP chunks from a WebP file. libvips
// 8.14's webpsave writes a small EXIF block (orientation, resolution) even
// when asked to strip; harmless, but the contract is no metadata.
func stripWebPMetadata(b []byte) []byte {
	if len(b) < 12 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
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
