package pipeline

import (
	"context"
	"image"

	"github.com/showroom/showroom/internal/vision"
)

// ContentImages is the image IO the library runs on uploaded content
// (library.Images): the decoder the engine runs on it later, so that what
// the library accepts decodes here.
type ContentImages struct{}

func contentLimits(maxPixels int, maxBytes int64) vision.Limits {
	return vision.Limits{MaxPixels: maxPixels, MaxBytes: maxBytes}
}

// Inspect checks b's header and structure within the limits.
func (ContentImages) Inspect(b []byte, maxPixels int, maxBytes int64) error {
	_, err := vision.Inspect(b, contentLimits(maxPixels, maxBytes))
	return err
}

// Decode decodes b upright, with its transparency or opaque.
func (ContentImages) Decode(ctx context.Context, b []byte, maxPixels int, maxBytes int64, transparent bool) (*image.NRGBA, error) {
	if transparent {
		return vision.DecodeTransparent(ctx, b, contentLimits(maxPixels, maxBytes))
	}
	return vision.Decode(ctx, b, contentLimits(maxPixels, maxBytes))
}

// Recycle hands img's buffer back to the decoder's pool.
func (ContentImages) Recycle(img *image.NRGBA) { vision.Recycle(img) }
