package main

// A copy of each photo the deep glass model also trains on (--augment):
// the 313 annotated photos are few, taken under a few dealers' lights, and
// the model is to tell glass from paint under any light.

import (
	"image"
	"math"

	"github.com/showroom/showroom/internal/glasstrain"
)

// relight returns photo mirrored left to right and relit: its exposure
// scaled in linear light by a factor from 0.5 to 2 and its white balance
// tilted by up to 12% between red and blue, both picked by a fixed hash of
// i (reproducible, and spread over the photos). A mirrored car is as
// likely a photo as the car; the light is what a new dealer's lot or
// showroom changes first (a white bonnet under a showroom's lamps is as
// bright as a windscreen mirroring the sky).
func relight(photo *image.NRGBA, i int) *image.NRGBA {
	h := uint64(i)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	u := func() float64 {
		h ^= h >> 31
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 29
		return float64(h>>11) / float64(1<<53)
	}
	exposure := math.Exp2(2*u() - 1)
	tint := 0.12 * (2*u() - 1)
	gains := [3]float64{exposure * (1 + tint), exposure, exposure * (1 - tint)}
	var lut [3][256]uint8
	for c, g := range gains {
		for v := range 256 {
			lin := math.Pow(float64(v)/255, 2.2) * g
			lut[c][v] = uint8(math.Round(255 * math.Pow(math.Min(lin, 1), 1/2.2)))
		}
	}
	r := photo.Rect
	out := image.NewNRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		src := photo.Pix[photo.PixOffset(r.Min.X, r.Min.Y+y):]
		dst := out.Pix[out.PixOffset(0, y):]
		for x := range r.Dx() {
			s, d := src[4*(r.Dx()-1-x):], dst[4*x:]
			d[0], d[1], d[2], d[3] = lut[0][s[0]], lut[1][s[1]], lut[2][s[2]], s[3]
		}
	}
	return out
}

// mirror returns g mirrored left to right (nil for nil).
func mirror(g *image.Gray) *image.Gray {
	if g == nil {
		return nil
	}
	r := g.Rect
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := range r.Dy() {
		for x := range r.Dx() {
			out.Pix[y*out.Stride+x] = g.Pix[g.PixOffset(r.Max.X-1-x, r.Min.Y+y)]
		}
	}
	return out
}

// augmented returns photo i's copy: relit and mirrored, with its
// annotations mirrored; segment gives its mask (the segmenter run on the
// copy itself, so that the activations are the network's, not mirrored).
func augmented(ex glasstrain.Example, i int, segment func(*image.NRGBA) (glasstrain.Example, error)) (glasstrain.Example, error) {
	ax, err := segment(relight(ex.Photo, i))
	if err != nil {
		return glasstrain.Example{}, err
	}
	ax.Name = ex.Name + "~"
	ax.Windows, ax.Never = mirror(ex.Windows), mirror(ex.Never)
	return ax, nil
}
