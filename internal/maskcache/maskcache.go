// Package maskcache keeps a segmenter's masks of photos between runs of
// the tools and tests that process the same photos many times (the
// gallery, glass training, the photo tests), so that they run the model
// once per photo. The service does not use it.
package maskcache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/showroom/showroom/internal/vision"
)

// Segmenter finds the car in a photo: a vision.Segmenter, or a test's.
type Segmenter interface {
	Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error)
}

// signer is a Segmenter that names what its masks depend on besides the
// photo (vision.Segmenter.Signature).
type signer interface {
	Signature() string
}

// Cache remembers the masks of photos it has seen (by their pixels), so
// that the gallery runs the model once per photo, not once per
// configuration. With Dir set it also keeps them on disk, one gob file per
// photo, so that a later run (tuning a processor on the dev photos) does
// not run the model again. A mask is keyed by the photo's pixels and the
// segmenter's signature (model, second opinion, the activations a mask
// carries), so that a change of those fills the cache again; clear it
// after changing the segmentation in any other way.
type Cache struct {
	Segmenter Segmenter
	Dir       string
	mu        sync.Mutex
	masks     map[[32]byte]*vision.Mask
}

// Segment returns the photo's mask, from the cache when it holds it. The
// mask is the caller's own copy: a pipeline run hands its activations
// back to the pool the next segmentation takes its tensors from
// (vision.RecycleFeatures) and may change its matte, so a mask shared
// between runs would give a later run of the same photo another photo's
// activations (glass found over a wing or a bonnet, in the gallery only).
func (c *Cache) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	key := c.key(img)
	c.mu.Lock()
	m, ok := c.masks[key]
	c.mu.Unlock()
	if ok {
		return clone(m), nil
	}
	m, ok = c.load(key)
	if !ok {
		var err error
		if m, err = c.Segmenter.Segment(ctx, img); err != nil {
			return nil, err
		}
		c.store(key, m)
	}
	c.mu.Lock()
	if c.masks == nil {
		c.masks = map[[32]byte]*vision.Mask{}
	}
	c.masks[key] = m
	c.mu.Unlock()
	return clone(m), nil
}

// key identifies img's mask: its pixels and, when the segmenter names
// one, its signature.
func (c *Cache) key(img *image.NRGBA) [32]byte {
	h := sha256.New()
	if s, ok := c.Segmenter.(signer); ok {
		h.Write([]byte(s.Signature()))
	}
	h.Write([]byte{0})
	h.Write(img.Pix)
	var key [32]byte
	h.Sum(key[:0])
	return key
}

// clone returns a copy of m that shares no memory with it.
func clone(m *vision.Mask) *vision.Mask {
	out := *m
	out.Alpha, out.Raw = cloneGray(m.Alpha), cloneGray(m.Raw)
	out.Stages = slices.Clone(m.Stages)
	out.Features = make([]vision.Features, len(m.Features))
	for i, f := range m.Features {
		out.Features[i] = vision.Features{Channels: f.Channels, Side: f.Side, Data: slices.Clone(f.Data)}
	}
	return &out
}

func cloneGray(g *image.Gray) *image.Gray {
	if g == nil {
		return nil
	}
	return &image.Gray{Pix: slices.Clone(g.Pix), Stride: g.Stride, Rect: g.Rect}
}

// cachedMask is a mask as kept on disk.
type cachedMask struct {
	Alpha, Raw              cachedGray
	Box                     image.Rectangle
	Confidence, BorderShare float64
	Features                []vision.Features
}

type cachedGray struct {
	Pix    []byte
	Stride int
	Rect   image.Rectangle
}

func toCached(g *image.Gray) cachedGray {
	if g == nil {
		return cachedGray{}
	}
	return cachedGray{g.Pix, g.Stride, g.Rect}
}

func (g cachedGray) gray() *image.Gray {
	if g.Pix == nil {
		return nil
	}
	return &image.Gray{Pix: g.Pix, Stride: g.Stride, Rect: g.Rect}
}

func (c *Cache) path(key [32]byte) string {
	return filepath.Join(c.Dir, fmt.Sprintf("%x.gob", key[:12]))
}

func (c *Cache) load(key [32]byte) (*vision.Mask, bool) {
	if c.Dir == "" {
		return nil, false
	}
	f, err := os.Open(c.path(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var cm cachedMask
	if err := gob.NewDecoder(f).Decode(&cm); err != nil {
		return nil, false
	}
	return &vision.Mask{Alpha: cm.Alpha.gray(), Raw: cm.Raw.gray(), Box: cm.Box,
		Confidence: cm.Confidence, BorderShare: cm.BorderShare, Features: cm.Features}, true
}

// store writes the mask to the cache; a failure only costs a later run
// the model's time, so it is not reported.
func (c *Cache) store(key [32]byte, m *vision.Mask) {
	if c.Dir == "" || os.MkdirAll(c.Dir, 0o755) != nil {
		return
	}
	var b bytes.Buffer
	cm := cachedMask{Alpha: toCached(m.Alpha), Raw: toCached(m.Raw), Box: m.Box,
		Confidence: m.Confidence, BorderShare: m.BorderShare, Features: m.Features}
	if gob.NewEncoder(&b).Encode(cm) != nil {
		return
	}
	tmp := c.path(key) + ".tmp"
	if os.WriteFile(tmp, b.Bytes(), 0o644) == nil {
		_ = os.Rename(tmp, c.path(key))
	}
}
