package pipeline

import (
	"context"
	"image"
	"image/color"
	"math"
	"sync"

	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/showroom"
)

// GalleryPoster is the name of the built-in synthetic logo that the
// gallery, the docs and the benchmarks place as a poster.
const GalleryPoster = "galleryLogo"

// BuiltinContent serves the content the system ships: the studio
// background, and the gallery's synthetic logo. Other names are
// CONTENT_NOT_FOUND.
type BuiltinContent struct {
	once   sync.Once
	studio *image.NRGBA
}

// LoadContent implements ContentLoader.
func (b *BuiltinContent) LoadContent(ctx context.Context, name string) (image.Image, error) {
	switch name {
	case catalog.StudioBackground:
		b.once.Do(func() { b.studio = builtinart.Studio(catalog.StudioWidth, catalog.StudioHeight) })
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
			a := imaging.Clamp01(r - math.Hypot(cx, cy))
			c := color.NRGBA{20, 40, 90, uint8(a * 230)}
			if fy > float64(h)*0.42 && fy < float64(h)*0.58 && fx > float64(w)*0.12 && fx < float64(w)*0.88 {
				c = color.NRGBA{240, 190, 40, uint8(a * 255)}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}
