// Package library is what a company keeps in Showroom: the images it
// uploaded (content) and the configurations it saved, and the rules for
// both — names, image checks, validation against the processor catalog,
// company isolation, the predefined configurations and built-in content
// every company shares. HTTP handlers call it; storage is behind the
// domain's interfaces and the blob store.
package library

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// Config holds the library's limits.
type Config struct {
	// MaxUploadBytes is the largest upload body accepted (413 above).
	MaxUploadBytes int64
	// MaxPixels is the most pixels (width x height) an uploaded image may
	// have, checked from its header before it is decoded (413 above).
	MaxPixels int64
	// MaxDecodeBytes is the most memory the decode of an uploaded image
	// may take, counted from its header before it is decoded (413 above):
	// a 16-bit PNG takes twice the bytes of an 8-bit one of the same
	// pixels. 0 means no limit but MaxPixels.
	MaxDecodeBytes int64
	// MaxDecodes bounds how many uploaded images are fully decoded at once,
	// so memory stays bounded however many uploads arrive together.
	MaxDecodes int
	// CacheBytes bounds the decoded content kept for the pipeline (one
	// background usually serves a batch of photos), by the bytes of its
	// pixels; 0 keeps none.
	CacheBytes int64
}

// DefaultConfig returns the documented defaults: 25 MB, 60 megapixels,
// 256 MiB a decode, 2 concurrent decodes, 256 MiB of decoded content.
func DefaultConfig() Config {
	return Config{MaxUploadBytes: 25 << 20, MaxPixels: showroom.DefaultMaxPixels, MaxDecodeBytes: showroom.DefaultMaxBytes,
		MaxDecodes: 2, CacheBytes: 256 << 20}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.MaxUploadBytes <= 0:
		return errors.New("library: the upload limit must be positive")
	case c.MaxPixels <= 0:
		return errors.New("library: the pixel limit must be positive")
	case c.MaxDecodeBytes < 0:
		return errors.New("library: the decode memory limit cannot be negative")
	case c.CacheBytes < 0:
		return errors.New("library: the cache size cannot be negative")
	case c.MaxDecodes <= 0:
		return errors.New("library: at least one decode must be allowed")
	}
	return nil
}

// Deps are the library's storage, image IO and built-in art.
type Deps struct {
	Content        showroom.ContentStore
	Configurations showroom.ConfigurationStore
	Blobs          blob.Store
	Images         Images
	Art            Art
}

// Art draws the built-in content: the studio background and the
// thumbnails of the predefined configurations (builtinart.Art).
// Like Images it is given, so the library draws no pixels itself.
type Art interface {
	// Studio draws the catalog.StudioBackground at w x h pixels.
	Studio(w, h int) *image.NRGBA
	// Thumbnail draws the thumbnail of the named predefined configuration
	// or of catalog.CustomThumbnail; false for any other name.
	Thumbnail(name string) (*image.NRGBA, bool)
}

// Service is the library. Safe for concurrent use.
type Service struct {
	cfg     Config
	deps    Deps
	decodes chan struct{}
	now     func() time.Time

	// builtin is the content every company can use, by name; thumbnails
	// the predefined configurations' pictures, as PNG.
	builtin    map[string]*builtinContent
	thumbnails map[string][]byte
	// decoded caches content decoded for the pipeline.
	decoded imageCache
}

// New returns a library. It renders the built-in studio background and the
// thumbnails of the predefined configurations once, here.
func New(cfg Config, deps Deps) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Content == nil || deps.Configurations == nil || deps.Blobs == nil {
		return nil, errors.New("library: every store is required")
	}
	if deps.Images == nil || deps.Art == nil {
		return nil, errors.New("library: the image IO and the built-in art are required")
	}
	s := &Service{cfg: cfg, deps: deps, decodes: make(chan struct{}, cfg.MaxDecodes), now: time.Now,
		builtin: map[string]*builtinContent{}, thumbnails: map[string][]byte{}, decoded: imageCache{maxBytes: cfg.CacheBytes}}
	started := time.Now().UTC().Truncate(time.Millisecond)
	studio, err := encodePNG(deps.Art.Studio(catalog.StudioWidth, catalog.StudioHeight))
	if err != nil {
		return nil, err
	}
	s.builtin[catalog.StudioBackground] = newBuiltin(catalog.StudioBackground, showroom.ContentBackground,
		catalog.StudioWidth, catalog.StudioHeight, studio, started)
	names := []string{catalog.CustomThumbnail}
	for _, c := range catalog.PredefinedConfigurations() {
		names = append(names, c.UI.Thumbnail)
	}
	for _, n := range names {
		img, ok := deps.Art.Thumbnail(n)
		if !ok {
			return nil, fmt.Errorf("library: no thumbnail for %s", n)
		}
		if s.thumbnails[n], err = encodePNG(img); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Config returns the library's limits.
func (s *Service) Config() Config { return s.cfg }

// Thumbnail returns the PNG thumbnail of a predefined configuration (by its
// thumbnail name) or catalog.CustomThumbnail.
func (s *Service) Thumbnail(name string) ([]byte, bool) {
	b, ok := s.thumbnails[name]
	return b, ok
}

// company is the company ctx acts for, which the caller's boundary (the
// API's token check, the queue's run) resolved and put there
// (showroom.NewContextWithCompany); the library looks up none itself.
func company(ctx context.Context) (*showroom.Company, error) {
	c := showroom.CompanyFromContext(ctx)
	if c == nil {
		return nil, showroom.Internal(errors.New("library: no company in the context"))
	}
	return c, nil
}

// caller is company with the user who acts, for the records a write
// stamps (createdBy, lastModifiedBy).
func caller(ctx context.Context) (*showroom.Company, string, error) {
	c, err := company(ctx)
	if err != nil {
		return nil, "", err
	}
	p := showroom.PrincipalFromContext(ctx)
	if p == nil {
		return nil, "", showroom.Internal(errors.New("library: no caller in the context"))
	}
	return c, p.Username, nil
}

// artMediaType is the media type of the built-in content encodePNG writes.
const artMediaType = "image/png"

func encodePNG(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
