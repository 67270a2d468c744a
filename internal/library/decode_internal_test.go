package library

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"path/filepath"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// Full decodes wait for a free slot, so however many uploads arrive at once
// only MaxDecodes images are in memory decoded.
func TestDecodesAreBounded(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "test.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	acme, err := db.CreateCompany(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.MaxDecodes = 1
	s, err := New(cfg, Deps{Content: db, Configurations: db, Blobs: blobs, Images: pipeline.ContentImages{}, Art: builtinart.Art{}})
	if err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 8, 8)))
	ctx = showroom.NewContextWithCompany(showroom.NewContextWithPrincipal(ctx, &showroom.Principal{Username: "alice", Company: "acme"}), acme)

	s.decodes <- struct{}{} // the one slot is taken
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, _, err := s.Upload(short, "bg", "POSTER", img.Bytes()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("upload with no free decode slot: %v, want to wait until the deadline", err)
	}
	// A header check needs no slot: an oversized image is refused at once.
	s.cfg.MaxPixels = 10
	if _, _, err := s.Upload(ctx, "bg", "POSTER", img.Bytes()); showroom.ErrorCode(err) != showroom.EPayloadTooLarge {
		t.Fatalf("oversized upload while decodes are busy: %v", err)
	}
	s.cfg.MaxPixels = DefaultConfig().MaxPixels
	<-s.decodes
	if _, created, err := s.Upload(ctx, "bg", "POSTER", img.Bytes()); err != nil || !created {
		t.Fatalf("upload once the slot is free: %v, %v", created, err)
	}
}

// The decoded content kept for runs is bounded by bytes, not by count:
// the least recently used images go first, and an image larger than the
// whole cache is not kept.
func TestContentCacheIsBoundedByBytes(t *testing.T) {
	img := func(w int) *image.NRGBA { return image.NewNRGBA(image.Rect(0, 0, w, 100)) } // 400w bytes
	c := imageCache{maxBytes: 100_000}
	c.put("a", img(100)) // 40,000
	c.put("b", img(100))
	if c.get("a") == nil || c.get("b") == nil {
		t.Fatal("two images within the budget are not both kept")
	}
	c.put("c", img(100)) // 120,000 in all: a, the least recently used, goes
	if c.get("a") != nil || c.get("b") == nil || c.get("c") == nil {
		t.Error("the least recently used image was not the one dropped")
	}
	if c.bytes > c.maxBytes {
		t.Errorf("%d bytes cached, budget %d", c.bytes, c.maxBytes)
	}
	c.put("huge", img(300)) // 120,000: more than the whole cache
	if c.get("huge") != nil || c.get("c") == nil {
		t.Error("an image larger than the cache was kept, or pushed the others out")
	}
	c.put("c", img(100)) // the same key again: counted once
	if c.bytes != 80_000 {
		t.Errorf("%d bytes after putting c twice, want 80000", c.bytes)
	}
	none := imageCache{}
	none.put("a", img(1))
	if none.get("a") != nil {
		t.Error("a cache of 0 bytes kept an image")
	}
}
