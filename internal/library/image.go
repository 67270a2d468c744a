package library

import (
	"context"
	"image"
	"sync"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/showroom"
)

type imageInfo struct {
	mediaType     string
	width, height int
}

// limits are the decoder's limits for content: any size from 1 pixel up
// (a logo may be tiny), the library's pixel and byte budgets.
func (s *Service) limits() codec.Limits {
	return codec.Limits{MaxPixels: int(s.cfg.MaxPixels), MaxBytes: s.cfg.MaxDecodeBytes}
}

// inspect checks that b is a whole JPEG, PNG or WebP image within the
// library's limits, with the decoder the pipeline uses on it later
// (codec), so what is accepted here decodes there. Its header and
// structure are checked first, without a decode slot, so a small file
// claiming a huge image (a decompression bomb) or thousands of JPEG scans
// is refused at once; only then is it decoded in full, at most MaxDecodes
// at a time, to refuse truncated or corrupt bytes. The size returned is
// the decoded one, upright by the EXIF orientation, as the pipeline sees it.
func (s *Service) inspect(ctx context.Context, b []byte, contentType string) (*imageInfo, error) {
	if len(b) == 0 {
		return nil, showroom.Errorf(showroom.EInvalidBody, "the request body is empty; send the image's bytes")
	}
	f, ok := codec.Sniff(b)
	if !ok {
		return nil, showroom.Errorf(showroom.EUnsupportedMedia, "the body is not a JPEG, PNG or WebP image")
	}
	in, err := codec.Inspect(b, s.limits())
	if err != nil {
		return nil, err
	}
	img, err := s.decode(ctx, in, contentType)
	if err != nil {
		return nil, err
	}
	defer codec.Recycle(img)
	return &imageInfo{mediaType: f.MediaType(), width: img.Rect.Dx(), height: img.Rect.Dy()}, nil
}

// decode decodes content as the pipeline takes it, under the bound on
// concurrent decodes: a poster (a logo or a sign laid over the photo)
// keeps its transparency; a background or a thumbnail is a photo, upright
// and opaque.
func (s *Service) decode(ctx context.Context, in codec.Inspected, contentType string) (*image.NRGBA, error) {
	if err := s.acquireDecode(ctx); err != nil {
		return nil, err
	}
	defer s.releaseDecode()
	if contentType == showroom.ContentPoster {
		return in.DecodeTransparent(ctx)
	}
	return in.Decode(ctx)
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
