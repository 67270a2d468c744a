// Package builtinart draws the built-in art of the predefined
// configurations: the studio background of default_showroom and a
// thumbnail per predefined configuration. It is its own package, not
// pipeline's, because it is art, not processing (issue 28): the pipeline
// uses Studio at run time, the library serves both through Art.
package builtinart

import (
	"image"
	"image/color"
	"math"

	"github.com/showroom/showroom/internal/catalog"
)

// The art of the predefined configurations is drawn by the program, not
// downloaded: the studio background of default_showroom and a thumbnail per
// predefined configuration (a car silhouette on the configuration's look).

// FloorGap is the pipeline's floorGap (internal/pipeline/add_background.go):
// how far below the wall–floor line AddBackgroundAndCrop stands a car's far
// wheels, per unit of its height; the studio thumbnail stands its car so. A
// copy, as this package may not import the pipeline (which imports it),
// exported for the pipeline's test that pins the two.
const FloorGap = 0.2

// Studio draws the built-in studio: a light wall, brighter where a
// spotlight falls, meeting a grey floor at StudioHorizon with a soft
// transition, the floor lighter towards the viewer.
func Studio(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	horizon := catalog.StudioHorizon * float64(h)
	soft := math.Max(2, 0.012*float64(h)) // the cove between wall and floor
	for y := range h {
		fy := float64(y) + 0.5
		// Wall: darker at the top, light near the floor.
		tw := clamp(fy / horizon)
		wall := mix(0.80, 0.95, math.Pow(tw, 0.8))
		// Floor: mid grey at the horizon, lighter towards the bottom.
		tf := clamp((fy - horizon) / (float64(h) - horizon))
		floor := mix(0.82, 0.93, math.Sqrt(tf))
		k := smooth(clamp((fy - horizon + soft) / (2 * soft)))
		base := mix(wall, floor, k)
		row := img.Pix[y*img.Stride:]
		for x := range w {
			fx := (float64(x)+0.5)/float64(w) - 0.5
			v := base
			if fy < horizon+soft {
				// A spotlight on the wall behind where the car stands.
				d := math.Hypot(fx*1.4, (fy/horizon-0.55)*0.9)
				v += 0.05 * math.Exp(-d*d*6) * (1 - k)
			} else {
				// The floor darkens slightly towards the sides.
				v -= 0.04 * fx * fx * 4 * k
			}
			c := toByte(v)
			// A faint cool tint, as studio light has.
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = c, c, toByte(v+0.01), 255
		}
	}
	return img
}

// Thumbnail draws the thumbnail of the named predefined configuration
// or of catalog.CustomThumbnail; false for any other name.
func Thumbnail(name string) (*image.NRGBA, bool) {
	w, h := catalog.ThumbnailWidth, catalog.ThumbnailHeight
	var img *image.NRGBA
	shadow := 0.0
	switch name {
	case "default_white":
		img = fill(w, h, color.NRGBA{255, 255, 255, 255})
		shadow = 0.35
	case "default_transparent", "free_cutout":
		img = checker(w, h, 16)
	case "default_showroom":
		img = Studio(w, h)
		shadow = 0.45
	case catalog.CustomThumbnail:
		img = fill(w, h, color.NRGBA{226, 230, 236, 255})
		shadow = 0.2
	default:
		return nil, false
	}
	// The car, 70% of the width wide, stands on the horizon line; in the
	// studio on its floor, as AddBackgroundAndCrop stands it, the gap
	// below the line where the floor meets the wall.
	box := image.Rect(int(0.15*float64(w)), int(0.40*float64(h)), int(0.85*float64(w)), int(catalog.StudioHorizon*float64(h)))
	if name == "default_showroom" {
		box = box.Add(image.Pt(0, int(math.Round(FloorGap*float64(box.Dy())))))
	}
	if shadow > 0 {
		ellipse(img, float64(box.Min.X+box.Max.X)/2, float64(box.Max.Y)-2, float64(box.Dx())*0.55, float64(box.Dy())*0.12,
			color.NRGBA{0, 0, 0, 255}, shadow, true)
	}
	car(img, box, name == "free_cutout")
	return img, true
}

// car draws a side view of a car facing right inside box.
func car(img *image.NRGBA, box image.Rectangle, plain bool) {
	bx, by := float64(box.Min.X), float64(box.Min.Y)
	bw, bh := float64(box.Dx()), float64(box.Dy())
	at := func(pts ...float64) [][2]float64 {
		out := make([][2]float64, 0, len(pts)/2)
		for i := 0; i+1 < len(pts); i += 2 {
			out = append(out, [2]float64{bx + pts[i]*bw, by + pts[i+1]*bh})
		}
		return out
	}
	body := color.NRGBA{44, 62, 90, 255}
	if plain {
		body = color.NRGBA{70, 74, 80, 255}
	}
	polygon(img, at(0.01, 0.86, 0.01, 0.58, 0.06, 0.50, 0.27, 0.44, 0.40, 0.14, 0.68, 0.12,
		0.83, 0.42, 0.97, 0.48, 0.995, 0.62, 0.99, 0.86), body, 1)
	// Glass, lighter and half see-through, as the windows processor makes it.
	polygon(img, at(0.42, 0.20, 0.55, 0.19, 0.55, 0.42, 0.32, 0.44), color.NRGBA{190, 215, 235, 255}, 0.75)
	polygon(img, at(0.58, 0.19, 0.67, 0.18, 0.78, 0.42, 0.58, 0.42), color.NRGBA{190, 215, 235, 255}, 0.75)
	// A highlight along the shoulder line.
	polygon(img, at(0.05, 0.56, 0.95, 0.52, 0.95, 0.55, 0.05, 0.60), color.NRGBA{255, 255, 255, 255}, 0.18)
	for _, cx := range []float64{0.21, 0.79} {
		r := 0.105 * bw
		x, y := bx+cx*bw, by+bh-r
		ellipse(img, x, y, r, r, color.NRGBA{24, 24, 26, 255}, 1, false)
		ellipse(img, x, y, r*0.55, r*0.55, color.NRGBA{170, 175, 182, 255}, 1, false)
	}
}

func fill(w, h int, c color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return img
}

// checker draws the grey-and-white squares that mean "transparent".
func checker(w, h, cell int) *image.NRGBA {
	img := fill(w, h, color.NRGBA{255, 255, 255, 255})
	for y := range h {
		for x := range w {
			if (x/cell+y/cell)%2 == 1 {
				i := img.PixOffset(x, y)
				img.Pix[i], img.Pix[i+1], img.Pix[i+2] = 214, 214, 214
			}
		}
	}
	return img
}

// polygon fills a polygon (even-odd rule) with c at the given opacity,
// 4x4 supersampled so the edges are smooth.
func polygon(img *image.NRGBA, pts [][2]float64, c color.NRGBA, opacity float64) {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		minX, maxX = math.Min(minX, p[0]), math.Max(maxX, p[0])
		minY, maxY = math.Min(minY, p[1]), math.Max(maxY, p[1])
	}
	b := image.Rect(int(minX), int(minY), int(maxX)+1, int(maxY)+1).Intersect(img.Bounds())
	const ss = 4
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			in := 0
			for sy := range ss {
				for sx := range ss {
					if inside(pts, float64(x)+(float64(sx)+0.5)/ss, float64(y)+(float64(sy)+0.5)/ss) {
						in++
					}
				}
			}
			if in > 0 {
				blend(img, x, y, c, opacity*float64(in)/(ss*ss))
			}
		}
	}
}

func inside(pts [][2]float64, x, y float64) bool {
	in := false
	for i, j := 0, len(pts)-1; i < len(pts); j, i = i, i+1 {
		xi, yi, xj, yj := pts[i][0], pts[i][1], pts[j][0], pts[j][1]
		if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
			in = !in
		}
	}
	return in
}

// ellipse fills an ellipse; soft makes it fade out towards its edge, as
// a shadow does.
func ellipse(img *image.NRGBA, cx, cy, rx, ry float64, c color.NRGBA, opacity float64, soft bool) {
	b := image.Rect(int(cx-rx)-1, int(cy-ry)-1, int(cx+rx)+2, int(cy+ry)+2).Intersect(img.Bounds())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			dx, dy := (float64(x)+0.5-cx)/rx, (float64(y)+0.5-cy)/ry
			d := math.Sqrt(dx*dx + dy*dy)
			var a float64
			if soft {
				a = smooth(clamp(1 - d))
			} else {
				// About one pixel of anti-aliasing at the rim.
				a = clamp((1 - d) * math.Min(rx, ry))
			}
			if a > 0 {
				blend(img, x, y, c, opacity*a)
			}
		}
	}
}

func blend(img *image.NRGBA, x, y int, c color.NRGBA, a float64) {
	i := img.PixOffset(x, y)
	p := img.Pix[i : i+4 : i+4]
	p[0] = uint8(float64(p[0])*(1-a) + float64(c.R)*a + 0.5)
	p[1] = uint8(float64(p[1])*(1-a) + float64(c.G)*a + 0.5)
	p[2] = uint8(float64(p[2])*(1-a) + float64(c.B)*a + 0.5)
}

func clamp(v float64) float64 { return math.Max(0, math.Min(1, v)) }

func mix(a, b, t float64) float64 { return a + (b-a)*t }

func smooth(t float64) float64 { return t * t * (3 - 2*t) }

func toByte(v float64) uint8 { return uint8(clamp(v)*255 + 0.5) }

// Art draws the built-in content for the library (library.Art),
// which serves it but draws no pixels itself.
type Art struct{}

// Studio draws the built-in studio background (the package's Studio).
func (Art) Studio(w, h int) *image.NRGBA { return Studio(w, h) }

// Thumbnail draws a predefined configuration's thumbnail (the package's
// Thumbnail).
func (Art) Thumbnail(name string) (*image.NRGBA, bool) { return Thumbnail(name) }
