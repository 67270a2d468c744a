package pipeline

import (
	"image"
	"image/draw"
	"math"

	"github.com/showroom/showroom/internal/imaging"
)

// plane is imaging's plane: the soft layers (shadow darkness, glass) live
// on the scene's working grid as planes and are sampled bilinearly at
// render time: they are smooth, so a 1024-pixel grid carries them at a
// fraction of a 12 MP buffer's cost.
type plane = imaging.Plane

func newPlane(w, h int) plane { return imaging.NewPlane(w, h) }

// srgbToLinear and linearToSRGB are imaging's sRGB transfer functions.
var srgbToLinear = imaging.SRGBToLinear

func linearToSRGB(v float32) uint8 { return imaging.LinearToSRGB(v) }

// toNRGBA returns img as an *image.NRGBA at origin (0,0), without copying
// when it already is one.
func toNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok && n.Rect.Min == (image.Point{}) {
		return n
	}
	b := img.Bounds()
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Rect, img, b.Min, draw.Src)
	return out
}

// workGrid is a downscaled copy of the photo and the matte, long side at
// most workSide, on which the analysing processors (shadow, glass, wheels)
// run: they look for regions tens of pixels wide, and a 12 MP photo would
// cost them 12x the time for no better answer.
type workGrid struct {
	w, h int
	// sx, sy map photo pixels to work pixels (work = photo * s).
	sx, sy float64
	lum    plane    // linear luminance
	rgb    [3]plane // linear R, G, B
	matte  plane    // 0..1; empty before detection
}

// workSide is the long side of the working grid; it matches the
// segmentation's own working grid, so the model's raw answer lines up.
const workSide = 1024

// workSize is the working grid for a w×h photo.
func workSize(w, h int) (int, int) {
	long := max(w, h)
	if long <= workSide {
		return w, h
	}
	return max(w*workSide/long, 1), max(h*workSide/long, 1)
}

// newWorkGrid area-averages photo (and matte, when not nil) onto the
// working grid.
func newWorkGrid(photo *image.NRGBA, matte *image.Gray) *workGrid {
	W, H := photo.Rect.Dx(), photo.Rect.Dy()
	w, h := workSize(W, H)
	g := &workGrid{w: w, h: h, sx: float64(w) / float64(W), sy: float64(h) / float64(H)}
	g.lum = newPlane(w, h)
	for c := range g.rgb {
		g.rgb[c] = newPlane(w, h)
	}
	if matte != nil {
		g.matte = newPlane(w, h)
	}
	// Cell x averages photo columns cols[x] to cols[x+1]-1 (and rows
	// likewise): worked out once, not with two divisions a cell.
	cols, rows := cellBounds(W, w), cellBounds(H, h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			y0, y1 := rows[y], rows[y+1]
			for x := range w {
				x0, x1 := cols[x], cols[x+1]
				var r, gg, b float32
				// The matte's bytes are summed as integers: the same sum
				// a float would reach (it is exact up to 2²⁴), without a
				// float addition's latency for each.
				m := 0
				for yy := y0; yy < y1; yy++ {
					row := photo.Pix[yy*photo.Stride+4*x0 : yy*photo.Stride+4*x1]
					for xx := 0; xx+3 < len(row); xx += 4 {
						r += srgbToLinear[row[xx]]
						gg += srgbToLinear[row[xx+1]]
						b += srgbToLinear[row[xx+2]]
					}
					if matte != nil {
						for _, v := range matte.Pix[yy*matte.Stride+x0 : yy*matte.Stride+x1] {
							m += int(v)
						}
					}
				}
				inv := 1 / float32((y1-y0)*(x1-x0))
				i := y*w + x
				g.rgb[0].Pix[i], g.rgb[1].Pix[i], g.rgb[2].Pix[i] = r*inv, gg*inv, b*inv
				g.lum.Pix[i] = (0.2126*r + 0.7152*gg + 0.0722*b) * inv
				if matte != nil {
					g.matte.Pix[i] = float32(m) * inv / 255
				}
			}
		}
	})
	return g
}

// cellBounds returns where each of n cells starts on a line of N ≥ n
// pixels, and N at the end: cell i covers pixels i·N/n up to (i+1)·N/n.
func cellBounds(N, n int) []int {
	b := make([]int, n+1)
	for i := range b {
		b[i] = i * N / n
	}
	return b
}

// toWork maps a photo rectangle onto the working grid, rounding outwards.
func (g *workGrid) toWork(r image.Rectangle) image.Rectangle {
	return image.Rect(int(float64(r.Min.X)*g.sx), int(float64(r.Min.Y)*g.sy),
		int(math.Ceil(float64(r.Max.X)*g.sx)), int(math.Ceil(float64(r.Max.Y)*g.sy))).
		Intersect(image.Rect(0, 0, g.w, g.h))
}

// kth returns the k-th smallest of v (from 0), the value v[k] would hold
// sorted, by selection: on average linear where a sort is n log n. It
// reorders v.
func kth(v []float32, k int) float32 {
	lo, hi := 0, len(v)-1
	for lo < hi {
		// Median of three as the pivot: a sorted run costs no more than a
		// shuffled one.
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for pivot < v[j] {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		// Now v[lo..j] <= pivot <= v[i..hi], and anything between equals
		// the pivot.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
