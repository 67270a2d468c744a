package library

import (
	"context"
	"image"
	"sync"

	"github.com/showroom/showroom/internal/showroom"
)

type imageInfo struct {
	mediaType     string
	width, height int
}

// Images is the image IO the library runs on content: the decoder the
// pipeline uses on it later, so what is accepted here decodes there. The
// library is given it rather than importing it, so that the rules of
// content and configurations compile and test without cgo
// (pipeline.ContentImages is the one the program uses). Content may be any
// size from 1 pixel up (a logo may be tiny); maxPixels and maxBytes are
// the library's budgets (Config.MaxPixels, Config.MaxDecodeBytes).
type Images interface {
	// Sniff returns the media type b is by its signature ("image/jpeg",
	// "image/png" or "image/webp"), or "" for anything else: a
	// Content-Type header is never trusted, the bytes decide.
	Sniff(b []byte) string
	// Inspect checks that b is a whole JPEG, PNG or WebP image within the
	// budgets from its header and structure, decoding no pixel.
	Inspect(b []byte, maxPixels int, maxBytes int64) error
	// Decode decodes b upright by its EXIF orientation: with its
	// transparency (a poster), or opaque (a photo).
	Decode(ctx context.Context, b []byte, maxPixels int, maxBytes int64, transparent bool) (*image.NRGBA, error)
	// Recycle takes back the buffer of an image Decode returned, once
	// nothing uses it.
	Recycle(img *image.NRGBA)
}

// inspect checks that b is a whole JPEG, PNG or WebP image within the
// library's limits, with the decoder the pipeline uses on it later
// (Deps.Images), so what is accepted here decodes there. Its header and
// structure are checked first, without a decode slot, so a small file
// claiming a huge image (a decompression bomb) or thousands of JPEG scans
// is refused at once; only then is it decoded in full, at most MaxDecodes
// at a time, to refuse truncated or corrupt bytes. The size returned is
// the decoded one, upright by the EXIF orientation, as the pipeline sees it.
func (s *Service) inspect(ctx context.Context, b []byte, contentType string) (*imageInfo, error) {
	if len(b) == 0 {
		return nil, showroom.Errorf(showroom.EInvalidBody, "the request body is empty; send the image's bytes")
	}
	mt := s.deps.Images.Sniff(b)
	if mt == "" {
		return nil, showroom.Errorf(showroom.EUnsupportedMedia, "the body is not a JPEG, PNG or WebP image")
	}
	if err := s.deps.Images.Inspect(b, int(s.cfg.MaxPixels), s.cfg.MaxDecodeBytes); err != nil {
		return nil, err
	}
	img, err := s.decode(ctx, b, contentType)
	if err != nil {
		return nil, err
	}
	defer s.deps.Images.Recycle(img)
	return &imageInfo{mediaType: mt, width: img.Rect.Dx(), height: img.Rect.Dy()}, nil
}

// decode decodes content as the pipeline takes it, under the bound on
// concurrent decodes: a poster (a logo or a sign laid over the photo)
// keeps its transparency; a background or a thumbnail is a photo, upright
// and opaque.
func (s *Service) decode(ctx context.Context, b []byte, contentType string) (*image.NRGBA, error) {
	if err := s.acquireDecode(ctx); err != nil {
		return nil, err
	}
	defer s.releaseDecode()
	return s.deps.Images.Decode(ctx, b, int(s.cfg.MaxPixels), s.cfg.MaxDecodeBytes, contentType == showroom.ContentPoster)
}

// imageCache keeps the last decoded images, most recent last, up to a
// total of bytes of pixels: one background usually serves a whole batch of
// photos, but a count alone would let four 60-megapixel backgrounds hold
// a gigabyte.
type imageCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	items    []cachedImage
}

type cachedImage struct {
	key string
	img *image.NRGBA
}

func (c *imageCache) get(key string) *image.NRGBA {
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

// put adds img, dropping the least recently used images until the total
// fits; an image larger than the whole cache is not kept.
func (c *imageCache) put(key string, img *image.NRGBA) {
	n := int64(cap(img.Pix))
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.maxBytes {
		return
	}
	for i, it := range c.items {
		if it.key == key { // decoded twice at once: keep one
			c.items = append(c.items[:i:i], c.items[i+1:]...)
			c.bytes -= int64(cap(it.img.Pix))
			break
		}
	}
	for len(c.items) > 0 && c.bytes+n > c.maxBytes {
		c.bytes -= int64(cap(c.items[0].img.Pix))
		c.items = c.items[1:]
	}
	c.items = append(c.items, cachedImage{key, img})
	c.bytes += n
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
