package pipeline

import (
	"context"
	"image"

	"github.com/showroom/showroom/internal/codec"
)

// ContentImages is the image IO the library runs on uploaded content
// (library.Images): the decoder the engine runs on it later, so that what
// the library accepts decodes here.
type ContentImages struct{}

func contentLimits(maxPixels int, maxBytes int64) codec.Limits {
	return codec.Limits{MaxPixels: maxPixels, MaxBytes: maxBytes}
}

// Sniff returns the media type b is by its signature, or "".
func (ContentImages) Sniff(b []byte) string {
	f, _ := codec.Sniff(b)
	return f.MediaType()
}

// Inspect checks b's header and structure within the limits.
func (ContentImages) Inspect(b []byte, maxPixels int, maxBytes int64) error {
	_, err := codec.Inspect(b, contentLimits(maxPixels, maxBytes))
	return err
}

// Decode decodes b upright, with its transparency or opaque.
func (ContentImages) Decode(ctx context.Context, b []byte, maxPixels int, maxBytes int64, transparent bool) (*image.NRGBA, error) {
	if transparent {
		return codec.DecodeTransparent(ctx, b, contentLimits(maxPixels, maxBytes))
	}
	return codec.Decode(ctx, b, contentLimits(maxPixels, maxBytes))
}

// Recycle hands img's buffer back to the decoder's pool.
func (ContentImages) Recycle(img *image.NRGBA) { codec.Recycle(img) }
