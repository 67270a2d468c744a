package pipeline

import (
	"fmt"
	"image"

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

// startVips starts libvips with the settings internal/codec chose (one
// libvips thread; requests run in parallel at the worker level), so that a
// library that cannot start fails the engine, not its first photo.
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
	out, err := codec.Encode(img, hasAlpha, codec.Format(format), quality)
	if err != nil {
		return nil, "", fmt.Errorf("pipeline: %w", err)
	}
	return out, codec.Format(format).MediaType(), nil
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
