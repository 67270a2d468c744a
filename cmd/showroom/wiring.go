package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // posters: decoded with their alpha
	_ "image/png"
	"io"
	"sync"

	_ "golang.org/x/image/webp"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// contentStores is what the content loader reads.
type contentStores interface {
	FindCompany(ctx context.Context, name string) (*showroom.Company, error)
	FindContent(ctx context.Context, companyID int64, name string) (*showroom.Content, error)
}

// contentLoader gives the pipeline a company's content as decoded images:
// the company's own first, then the built-in studio. Decoded images are
// kept in a small cache keyed by the content's digest, because one
// background typically serves a whole batch of photos.
type contentLoader struct {
	db        contentStores
	blobs     blob.Store
	maxPixels int

	studioOnce sync.Once
	studio     *image.NRGBA

	mu    sync.Mutex
	cache []cachedImage // most recent last
}

type cachedImage struct {
	key string
	img image.Image
}

const contentCacheSize = 4

func newContentLoader(db contentStores, blobs blob.Store, maxPixels int) *contentLoader {
	return &contentLoader{db: db, blobs: blobs, maxPixels: maxPixels}
}

// LoadContent implements pipeline.ContentLoader. Without a database (a
// local batch with no company) only the built-in content is there.
func (l *contentLoader) LoadContent(ctx context.Context, company, name string) (image.Image, error) {
	var rec *showroom.Content
	var err error = showroom.Errorf(showroom.EContentNotFound, "content %q not found", name)
	if l.db != nil {
		c, cerr := l.db.FindCompany(ctx, company)
		if cerr != nil {
			return nil, cerr
		}
		rec, err = l.db.FindContent(ctx, c.ID, name)
	}
	if showroom.ErrorCode(err) == showroom.EContentNotFound && name == pipeline.StudioBackground {
		l.studioOnce.Do(func() { l.studio = pipeline.RenderStudio(pipeline.StudioWidth, pipeline.StudioHeight) })
		return l.studio, nil
	} else if err != nil {
		return nil, err
	}
	key := rec.SHA256 + "/" + rec.Type
	if img := l.cached(key); img != nil {
		return img, nil
	}
	r, err := l.blobs.Get(ctx, rec.BlobKey)
	if err != nil {
		return nil, fmt.Errorf("content %s of %s: %w", name, company, err)
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	var img image.Image
	if rec.Type == showroom.ContentPoster {
		// A poster or logo keeps its transparency.
		img, _, err = image.Decode(bytes.NewReader(data))
	} else {
		img, err = vision.Decode(data, l.maxPixels)
	}
	if err != nil {
		return nil, fmt.Errorf("content %s of %s: %w", name, company, err)
	}
	l.mu.Lock()
	l.cache = append(l.cache, cachedImage{key, img})
	if len(l.cache) > contentCacheSize {
		l.cache = l.cache[1:]
	}
	l.mu.Unlock()
	return img, nil
}

func (l *contentLoader) cached(key string) image.Image {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, c := range l.cache {
		if c.key == key {
			l.cache = append(append(l.cache[:i:i], l.cache[i+1:]...), c)
			return c.img
		}
	}
	return nil
}

// configResolver finds the configuration a company runs by name: a
// predefined one, or the company's own.
type configResolver struct {
	db interface {
		FindCompany(ctx context.Context, name string) (*showroom.Company, error)
		FindConfiguration(ctx context.Context, companyID int64, name string) (*showroom.Configuration, error)
	}
}

// ResolveConfiguration implements httpapi.ConfigResolver.
func (r configResolver) ResolveConfiguration(ctx context.Context, company, name string) (json.RawMessage, int64, error) {
	if c, ok := pipeline.PredefinedConfiguration(name); ok {
		return c.Processors, int64(c.Cost), nil
	}
	co, err := r.db.FindCompany(ctx, company)
	if err != nil {
		return nil, 0, err
	}
	c, err := r.db.FindConfiguration(ctx, co.ID, name)
	if err != nil {
		return nil, 0, err
	}
	return c.Processors, int64(c.Cost), nil
}
