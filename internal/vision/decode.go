package vision

import (
	"errors"
	"fmt"
	"image"
	"sync"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/showroom/showroom/internal/showroom"
)

// vipsStart starts libvips once per process: libvips is a process-wide C
// library with its own global state, so this is package state by necessity.
var vipsStart = sync.OnceValue(func() error {
	vips.LoggingSettings(nil, vips.LogLevelError)
	// Concurrency 1: libvips would otherwise start a thread per core for
	// every decode and fight ONNX Runtime for the same two cores; requests
	// run in parallel at the worker level instead.
	return vips.Startup(&vips.Config{ConcurrencyLevel: 1, MaxCacheMem: 0, MaxCacheSize: 0, MaxCacheFiles: 0})
})

// Start starts libvips with the settings this package chose (one libvips
// thread; requests run in parallel at the worker level), once. Decode
// calls it; a package that uses libvips without decoding first calls it
// too, so govips never starts itself with its own defaults.
func Start() error { return vipsStart() }

// MinSide is the least width and height of a photo that can be processed.
const MinSide = showroom.MinPhotoSide

// Decode decodes a JPEG, PNG or WebP photo into 8-bit sRGB pixels, upright
// (its EXIF orientation applied) and opaque (any alpha flattened onto
// white). A photo with more than maxPixels pixels is refused from its header,
// before any pixel is decoded, so a small file cannot expand into gigabytes:
// PAYLOAD_TOO_LARGE. Other errors are *showroom.Error with code
// INVALID_IMAGE, among them a photo under MinSide pixels on a side. A
// caller done with the photo may Recycle it.
func Decode(data []byte, maxPixels int) (*image.NRGBA, error) {
	if err := vipsStart(); err != nil {
		return nil, showroom.Internal(fmt.Errorf("vision: starting libvips: %w", err))
	}
	invalid := func(cause error) error {
		e := showroom.Errorf(showroom.EInvalidImage, "the photo cannot be decoded as JPEG, PNG or WebP")
		e.Cause = cause
		return e
	}
	switch vips.DetermineImageType(data) {
	case vips.ImageTypeJPEG, vips.ImageTypePNG, vips.ImageTypeWEBP:
	default:
		return nil, invalid(fmt.Errorf("not a JPEG, PNG or WebP (%d bytes)", len(data)))
	}
	// libvips loads lazily: this reads the header only.
	img, err := vips.LoadImageFromBuffer(data, vips.NewImportParams())
	if err != nil {
		return nil, invalid(err)
	}
	defer img.Close()
	w, h := img.Width(), img.Height()
	if w <= 0 || h <= 0 {
		return nil, invalid(fmt.Errorf("empty image %dx%d", w, h))
	}
	if err := showroom.CheckPhotoSize(w, h, maxPixels); err != nil {
		return nil, err
	}
	var pix *image.NRGBA
	if vips.DetermineImageType(data) == vips.ImageTypeJPEG {
		// The common case, done without libvips's copies; see decodeJPEG.
		pix, err = decodeJPEG(data, w, h)
		if err == nil {
			pix = orient(pix, img.Orientation())
		}
	}
	if pix == nil && (err == nil || errors.Is(err, errJPEGUnsupported)) {
		pix, err = decodeVips(img)
	}
	if err != nil {
		return nil, invalid(err)
	}
	return pix, nil
}

// decodeVips decodes img, as libvips loaded it, to upright sRGB pixels.
func decodeVips(img *vips.ImageRef) (*image.NRGBA, error) {
	if err := toSRGB(img); err != nil {
		return nil, err
	}
	pix, err := img.ToBytes()
	if err != nil {
		return nil, err
	}
	w, h := img.Width(), img.Height()
	if len(pix) != w*h*4 {
		return nil, fmt.Errorf("decoded %d bytes for %dx%d RGBA", len(pix), w, h)
	}
	return &image.NRGBA{Pix: pix, Stride: 4 * w, Rect: image.Rect(0, 0, w, h)}, nil
}

// toSRGB turns img into upright 8-bit sRGB with an opaque alpha band.
func toSRGB(img *vips.ImageRef) error {
	if err := img.AutoRotate(); err != nil {
		return fmt.Errorf("autorotate: %w", err)
	}
	if img.HasICCProfile() {
		// An embedded profile (Adobe RGB, Display P3 from phones) is
		// converted, not ignored: colours feed the model and the output.
		if err := img.TransformICCProfile(vips.SRGBIEC6196621ICCProfilePath); err != nil {
			return fmt.Errorf("colour profile: %w", err)
		}
	}
	if img.Interpretation() != vips.InterpretationSRGB || img.BandFormat() != vips.BandFormatUchar {
		if err := img.ToColorSpace(vips.InterpretationSRGB); err != nil {
			return fmt.Errorf("to sRGB: %w", err)
		}
	}
	if img.HasAlpha() {
		if err := img.Flatten(&vips.Color{R: 255, G: 255, B: 255}); err != nil {
			return fmt.Errorf("flatten: %w", err)
		}
	}
	if img.BandFormat() != vips.BandFormatUchar {
		if err := img.Cast(vips.BandFormatUchar); err != nil {
			return fmt.Errorf("cast: %w", err)
		}
	}
	if img.Bands() != 3 {
		if err := img.ExtractBand(0, 3); err != nil {
			return fmt.Errorf("bands: %w", err)
		}
	}
	return img.AddAlpha()
}
