package library

import (
	"sync"

	"bytes"
	"context"
	"fmt"
	"github.com/showroom/showroom/internal/vision"
	"image"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"github.com/showroom/showroom/internal/showroom"
)

// Media types of the accepted image formats.
const (
	MediaJPEG = "image/jpeg"
	MediaPNG  = "image/png"
	MediaWebP = "image/webp"
)

// sniff returns the media type the bytes are, by their signature, or "".
// A Content-Type header is never trusted: the bytes decide.
func sniff(b []byte) string {
	switch {
	case len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF:
		return MediaJPEG
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return MediaPNG
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return MediaWebP
	}
	return ""
}

type imageInfo struct {
	mediaType     string
	width, height int
}

// inspect checks that b is a whole JPEG, PNG or WebP image of at most
// maxPixels pixels. The size comes from the header before anything is
// decoded, so a small file claiming a huge image (a decompression bomb) is
// refused without allocating for it; only then is the image decoded in
// full, at most MaxDecodes at a time, to refuse truncated or corrupt bytes.
func (s *Service) inspect(ctx context.Context, b []byte) (*imageInfo, error) {
	if len(b) == 0 {
		return nil, showroom.Errorf(showroom.EInvalidBody, "the request body is empty; send the image's bytes")
	}
	mt := sniff(b)
	if mt == "" {
		return nil, showroom.Errorf(showroom.EUnsupportedMedia, "the body is not a JPEG, PNG or WebP image")
	}
	decodeConfig, decode := codecs(mt)
	cfg, err := decodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, &showroom.Error{Code: showroom.EInvalidImage,
			Message: fmt.Sprintf("the %s image's header cannot be read", formatName(mt)), Cause: err}
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, showroom.Errorf(showroom.EInvalidImage, "the image has no pixels (%dx%d)", cfg.Width, cfg.Height)
	}
	if px := int64(cfg.Width) * int64(cfg.Height); px > s.cfg.MaxPixels {
		return nil, showroom.Errorf(showroom.EPayloadTooLarge, "the image is %dx%d pixels (%s); at most %s are accepted",
			cfg.Width, cfg.Height, megapixels(px), megapixels(s.cfg.MaxPixels))
	}
	if err := s.acquireDecode(ctx); err != nil {
		return nil, err
	}
	defer s.releaseDecode()
	img, err := decode(bytes.NewReader(b))
	if err != nil {
		return nil, &showroom.Error{Code: showroom.EInvalidImage,
			Message: fmt.Sprintf("the %s image is truncated or corrupt", formatName(mt)), Cause: err}
	}
	if bd := img.Bounds(); bd.Dx() != cfg.Width || bd.Dy() != cfg.Height {
		return nil, showroom.Errorf(showroom.EInvalidImage, "the image's header and pixels disagree on its size")
	}
	return &imageInfo{mediaType: mt, width: cfg.Width, height: cfg.Height}, nil
}

// decodeImage decodes stored content for the pipeline, under the same
// bound on concurrent decodes.
func (s *Service) decodeImage(ctx context.Context, b []byte) (image.Image, error) {
	if err := s.acquireDecode(ctx); err != nil {
		return nil, err
	}
	defer s.releaseDecode()
	_, decode := codecs(sniff(b))
	img, err := decode(bytes.NewReader(b))
	if err != nil {
		// Stored content was checked on upload; failing now is ours.
		return nil, showroom.Internal(err)
	}
	return img, nil
}

// decodePhoto decodes a stored background as the pipeline decodes photos
// (EXIF orientation applied, colour converted to sRGB), under the same
// bound on concurrent decodes.
func (s *Service) decodePhoto(ctx context.Context, b []byte) (image.Image, error) {
	if err := s.acquireDecode(ctx); err != nil {
		return nil, err
	}
	defer s.releaseDecode()
	img, err := vision.Decode(b, int(s.cfg.MaxPixels))
	if err != nil {
		return nil, showroom.Internal(err) // checked on upload: failing now is ours
	}
	return img, nil
}

// imageCache keeps the last few decoded images, most recent last.
type imageCache struct {
	mu    sync.Mutex
	items []cachedImage
}

type cachedImage struct {
	key string
	img image.Image
}

// decodedCacheSize is how many decoded images stay cached: a 12 MP
// background is about 48 MB decoded.
const decodedCacheSize = 4

func (c *imageCache) get(key string) image.Image {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, it := range c.items {
		if it.key == key {
			c.items = append(append(c.items[:i:i], c.items[i+1:]...), it)
			return it.img
		}
	}
	return nil
}

func (c *imageCache) put(key string, img image.Image) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.items = append(c.items, cachedImage{key, img})
	if len(c.items) > decodedCacheSize {
		c.items = c.items[1:]
	}
}

// codecs returns the header reader and decoder of a media type sniff
// returned; PNG's for anything else, which then fails on the bytes.
func codecs(mt string) (func(io.Reader) (image.Config, error), func(io.Reader) (image.Image, error)) {
	switch mt {
	case MediaJPEG:
		return jpeg.DecodeConfig, jpeg.Decode
	case MediaWebP:
		return webp.DecodeConfig, webp.Decode
	}
	return png.DecodeConfig, png.Decode
}

func (s *Service) acquireDecode(ctx context.Context) error {
	select {
	case s.decodes <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *Service) releaseDecode() { <-s.decodes }

func formatName(mt string) string {
	switch mt {
	case MediaJPEG:
		return "JPEG"
	case MediaWebP:
		return "WebP"
	}
	return "PNG"
}

func megapixels(px int64) string {
	return fmt.Sprintf("%.1f megapixels", float64(px)/1e6)
}
