package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// GalleryPoster is the name of the built-in synthetic logo the gallery's
// poster configuration uses.
const GalleryPoster = "galleryLogo"

// NamedConfig is a configuration with a name, for the gallery and docs.
type NamedConfig struct {
	Name       string
	Processors json.RawMessage
}

// GalleryConfigurations returns every predefined configuration and one
// configuration per processor that shows what it does.
func GalleryConfigurations() []NamedConfig {
	var out []NamedConfig
	for _, c := range catalog.PredefinedConfigurations() {
		out = append(out, NamedConfig{c.Name, c.Processors})
	}
	for _, c := range []struct {
		name  string
		steps []catalog.Step
	}{
		{"p1_DetectCarMask", []catalog.Step{{"processorName": catalog.DetectCarMask}}},
		{"p2_DetectCarShadow_PlaceShadow", []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.CleanBackground, "enableShadow": false, "color": "#FFFFFF"},
			{"processorName": catalog.PlaceShadow, "opacity": 1.0}}},
		{"p3_CleanBackground_contactShadow", []catalog.Step{{"processorName": catalog.DetectCarMask},
			{"processorName": catalog.CleanBackground, "enableShadow": true, "color": "#E6ECF2"}}},
		{"p4_SemiTransparentWindows", []catalog.Step{{"processorName": catalog.DetectCarMask},
			{"processorName": catalog.SemiTransparentWindows, "windowTransparency": 0.9, "windowBrightness": 1.0},
			{"processorName": catalog.CleanBackground, "enableShadow": false, "color": "#2F6FD0"}}},
		{"p5_PlaceCar_keypoints", []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.PlaceCar, "useKeypoints": true, "background": "#FFFFFF"},
			{"processorName": catalog.PlaceShadow, "opacity": 0.8}}},
		{"p6_AddBackgroundAndCrop", []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.AddBackgroundAndCrop, "background": catalog.StudioBackground, "horizonLine": catalog.StudioHorizon,
				"outputWidth": 1200.0, "outputHeight": 800.0},
			{"processorName": catalog.PlaceShadow, "opacity": 0.7}}},
		{"p7_AddPoster_Resize", []catalog.Step{{"processorName": catalog.DetectCarMask},
			{"processorName": catalog.CleanBackground, "enableShadow": true, "color": "#FFFFFF"},
			{"processorName": catalog.AddPoster, "poster": GalleryPoster, "position": "top-left", "scale": 0.25},
			{"processorName": catalog.Resize, "width": 640.0, "height": 640.0, "fit": "contain"}}},
	} {
		raw, _ := json.Marshal(c.steps)
		out = append(out, NamedConfig{c.name, raw})
	}
	return out
}

// BuiltinContent serves the content the system ships: the studio
// background, and the gallery's synthetic logo. Other names are
// CONTENT_NOT_FOUND.
type BuiltinContent struct {
	once   sync.Once
	studio *image.NRGBA
}

// LoadContent implements ContentLoader.
func (b *BuiltinContent) LoadContent(ctx context.Context, company, name string) (image.Image, error) {
	switch name {
	case catalog.StudioBackground:
		b.once.Do(func() { b.studio = RenderStudio(catalog.StudioWidth, catalog.StudioHeight) })
		return b.studio, nil
	case GalleryPoster:
		return syntheticLogo(400, 160), nil
	}
	return nil, showroom.Errorf(showroom.EContentNotFound, "content %q not found", name)
}

// syntheticLogo draws a rounded dark badge with a light stripe, on
// transparency.
func syntheticLogo(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := float64(h) / 3
	for y := range h {
		for x := range w {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			cx := math.Max(0, math.Max(r-fx, fx-(float64(w)-r)))
			cy := math.Max(0, math.Max(r-fy, fy-(float64(h)-r)))
			a := clamp01(r - math.Hypot(cx, cy))
			c := color.NRGBA{20, 40, 90, uint8(a * 230)}
			if fy > float64(h)*0.42 && fy < float64(h)*0.58 && fx > float64(w)*0.12 && fx < float64(w)*0.88 {
				c = color.NRGBA{240, 190, 40, uint8(a * 255)}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

// CachingSegmenter remembers the masks of photos it has seen (by their
// pixels), so that the gallery runs the model once per photo, not once per
// configuration. With Dir set it also keeps them on disk, one gob file per
// photo, so that a later run (tuning a processor on the dev photos) does
// not run the model again; the cache is keyed by the photo's pixels only,
// so clear it after changing the segmentation.
type CachingSegmenter struct {
	Segmenter Segmenter
	Dir       string
	mu        sync.Mutex
	masks     map[[32]byte]*vision.Mask
}

// Segment implements Segmenter.
func (c *CachingSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	key := sha256.Sum256(img.Pix)
	c.mu.Lock()
	m, ok := c.masks[key]
	c.mu.Unlock()
	if ok {
		return m, nil
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
	return m, nil
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

func (c *CachingSegmenter) path(key [32]byte) string {
	// "features": masks kept before they carried the model's activations
	// (vision.Mask.Features) are not read back without them.
	return filepath.Join(c.Dir, fmt.Sprintf("%x.features.gob", key[:12]))
}

func (c *CachingSegmenter) load(key [32]byte) (*vision.Mask, bool) {
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
func (c *CachingSegmenter) store(key [32]byte, m *vision.Mask) {
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

// GalleryPhoto is one photo of the gallery.
type GalleryPhoto struct {
	Name  string
	Bytes []byte
}

// Contact sheet layout.
const (
	sheetCell    = 360
	sheetCols    = 4
	sheetLabel   = 18
	sheetPadding = 6
)

// WriteGallery runs every configuration on every photo and writes one
// contact sheet PNG per configuration into dir, named after it. progress,
// when not nil, is told each sheet written.
func WriteGallery(ctx context.Context, e *Engine, photos []GalleryPhoto, configs []NamedConfig, dir string, progress func(string)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range configs {
		rows := (len(photos) + sheetCols - 1) / sheetCols
		cellH := sheetCell*2/3 + sheetLabel
		sheet := image.NewNRGBA(image.Rect(0, 0, sheetCols*(sheetCell+sheetPadding)+sheetPadding,
			rows*(cellH+sheetPadding)+sheetPadding+sheetLabel))
		draw.Draw(sheet, sheet.Rect, image.NewUniform(color.NRGBA{90, 90, 96, 255}), image.Point{}, draw.Src)
		label(sheet, sheetPadding, sheetLabel-4, c.Name+"  "+string(c.Processors), color.NRGBA{255, 255, 255, 255})
		for i, p := range photos {
			if err := ctx.Err(); err != nil {
				return err
			}
			x0 := sheetPadding + (i%sheetCols)*(sheetCell+sheetPadding)
			y0 := sheetLabel + sheetPadding + (i/sheetCols)*(cellH+sheetPadding)
			cell := image.Rect(x0, y0, x0+sheetCell, y0+sheetCell*2/3)
			t := time.Now()
			res, err := e.Run(ctx, Request{Company: catalog.SystemCompany, Processors: c.Processors, Photo: p.Bytes, Format: FormatPNG})
			text := p.Name
			if err != nil {
				text += ": " + showroom.ErrorCode(err)
				draw.Draw(sheet, cell, image.NewUniform(color.NRGBA{120, 40, 40, 255}), image.Point{}, draw.Src)
				label(sheet, x0+4, y0+20, err.Error(), color.NRGBA{255, 255, 255, 255})
			} else {
				out, err := png.Decode(bytesReader(res.Image))
				if err != nil {
					return fmt.Errorf("gallery: reading back %s: %w", p.Name, err)
				}
				drawCell(sheet, cell, toNRGBA(out))
				text += fmt.Sprintf("  %dx%d %.0fms", res.Width, res.Height, float64(time.Since(t).Microseconds())/1000)
			}
			label(sheet, x0, y0+sheetCell*2/3+sheetLabel-5, text, color.NRGBA{235, 235, 235, 255})
		}
		f, err := os.Create(filepath.Join(dir, c.Name+".png"))
		if err != nil {
			return err
		}
		if err := png.Encode(f, sheet); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if progress != nil {
			progress(filepath.Join(dir, c.Name+".png"))
		}
	}
	return nil
}

// drawCell draws img fitted into cell over a checkerboard, so
// transparency shows.
func drawCell(dst *image.NRGBA, cell image.Rectangle, img *image.NRGBA) {
	for y := cell.Min.Y; y < cell.Max.Y; y++ {
		for x := cell.Min.X; x < cell.Max.X; x++ {
			v := uint8(200)
			if ((x-cell.Min.X)/10+(y-cell.Min.Y)/10)%2 == 0 {
				v = 245
			}
			dst.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	sc := math.Min(float64(cell.Dx())/float64(img.Rect.Dx()), float64(cell.Dy())/float64(img.Rect.Dy()))
	w, h := max(int(float64(img.Rect.Dx())*sc), 1), max(int(float64(img.Rect.Dy())*sc), 1)
	small := resample(img, img.Rect, w, h)
	at := image.Pt(cell.Min.X+(cell.Dx()-w)/2, cell.Min.Y+(cell.Dy()-h)/2)
	draw.Draw(dst, image.Rectangle{at, at.Add(image.Pt(w, h))}, small, image.Point{}, draw.Over)
}

// label writes text at (x, baseline y) in a 7×13 bitmap font.
func label(dst *image.NRGBA, x, y int, text string, c color.NRGBA) {
	if len(text) > 200 {
		text = text[:200] + "..."
	}
	d := font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(text)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
