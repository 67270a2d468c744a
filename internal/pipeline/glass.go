package pipeline

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/vision"
)

// Glass refinement settings. The guided filter's window is glassRadius
// working pixels around each; glassEps (sRGB luminance, 0..1, squared) is
// how strong a frame's edge in the photo must be for the glass's edge to
// follow it rather than the working grid's soft layer. Within
// glassInset working pixels of a cell the working layer calls not glass,
// the glass is cut to 0, rising to whole over glassFade more (distances
// from cell centres). Refined glass below glassFloor is none: where the
// photo shows no edge, the filter leaves a faint tail of the working
// layer's cells beyond the glass, and cut by the bound it would show them.
const (
	glassRadius = 2
	glassEps    = 1e-3
	glassInset  = 0.5
	glassFade   = 1.5
	glassFloor  = 0.1
)

// DetectGlass returns the glass of the car mask found in photo, at the
// photo's full resolution: 255 fully glass, 0 not glass. It runs the same
// detection and refinement as SemiTransparentWindowsProcessor; the eval
// tool scores it against annotated windows. mask is the segmenter's answer
// for photo; a mask without a car gives no glass.
func DetectGlass(photo *image.NRGBA, mask *vision.Mask) *image.Gray {
	s := NewScene(photo)
	if mask == nil || mask.Alpha == nil || mask.Box.Empty() || mask.Alpha.Rect.Size() != s.Photo.Rect.Size() {
		return image.NewGray(s.Photo.Rect)
	}
	s.setCar(mask.Alpha, mask.Box, mask.Raw)
	if !s.hasCar() {
		return image.NewGray(s.Photo.Rect)
	}
	return wholeGray(s.detectGlass(mask.Features), s.Photo.Rect)
}

// wholeGray returns g, which covers part of r, as an image covering all of
// r (0 outside g).
func wholeGray(g *image.Gray, r image.Rectangle) *image.Gray {
	out := image.NewGray(r)
	for y := g.Rect.Min.Y; y < g.Rect.Max.Y; y++ {
		copy(out.Pix[out.PixOffset(g.Rect.Min.X, y):], g.Pix[g.PixOffset(g.Rect.Min.X, y):g.PixOffset(g.Rect.Max.X, y)])
	}
	return out
}

// detectGlass finds the glass on the working grid and refines it to the
// photo's resolution; feats are the segmenter's activations (nil when it
// gave none).
func (s *Scene) detectGlass(feats []vision.Features) *image.Gray {
	return s.detectGlassWith(feats, glassProbe())
}

// detectGlassWith is detectGlass with the deep model m.
func (s *Scene) detectGlassWith(feats []vision.Features, m *probeModel) *image.Gray {
	g := s.workGrid()
	coarse := findGlass(g, g.toWork(s.Box), s.Raw, feats, m)
	return refineGlass(s.Photo, s.Matte, g, coarse)
}

// refineGlass brings the glass found on the working grid to the photo's
// full resolution, as the segmenter refines the car's matte: a guided
// filter fitted on the working grid between the photo's luminance and the
// glass, its coefficients interpolated and applied to the photo's own
// pixels. A window's edge then runs along the frame as photographed, not
// along the working grid's cells (a 12 MP photo has four photo pixels to a
// cell, and a layer merely enlarged shows them as steps). Two bounds keep
// it honest: the glass is nowhere where the working layer is 0 (the
// detector's verdict that a pillar, the roof or paint is not glass
// stands), and nowhere outside the car's matte.
//
// The result covers only the glass's neighbourhood: its Rect is in photo
// coordinates and every pixel outside it is 0. Only bytes are kept at full
// resolution.
func refineGlass(photo *image.NRGBA, matte *image.Gray, g *workGrid, coarse plane) *image.Gray {
	found := coarse.NonZero()
	if found.Empty() {
		return image.NewGray(image.Rectangle{})
	}
	if g.w == photo.Rect.Dx() && g.h == photo.Rect.Dy() {
		// The working grid is the photo: the layer is already at full
		// resolution.
		out := image.NewGray(found)
		for y := found.Min.Y; y < found.Max.Y; y++ {
			for x := found.Min.X; x < found.Max.X; x++ {
				q := coarse.Pix[y*g.w+x] * float32(matte.Pix[y*matte.Stride+x]) / 255
				out.Pix[out.PixOffset(x, y)] = imaging.ToByte(q)
			}
		}
		return out
	}
	// The coefficients are box means of box means: they need 2·glassRadius
	// working pixels around the glass, and one more for the interpolation.
	crop := found.Inset(-(2*glassRadius + 2)).Intersect(image.Rect(0, 0, g.w, g.h))
	cw, ch := crop.Dx(), crop.Dy()
	guide, layer := make([]float32, cw*ch), make([]float32, cw*ch)
	for y := range ch {
		for x := range cw {
			i := (crop.Min.Y+y)*g.w + crop.Min.X + x
			guide[y*cw+x] = float32(linearToSRGB(g.lum.Pix[i])) / 255
			layer[y*cw+x] = coarse.Pix[i]
		}
	}
	a, b := imaging.GuidedCoefficients(guide, layer, cw, ch, glassRadius, glassEps, nil)
	// The bound: 0 on and near every cell the working layer calls not
	// glass, a ramp with distance from them. Measured as a Euclidean
	// distance, its outline is round where the cells are stair-stepped: a
	// bound read off the layer itself would cut the glass along the cells.
	zero := make([]bool, cw*ch)
	for i, v := range layer {
		zero[i] = v <= 0
	}
	bound := imaging.Distance(zero, cw, ch)
	for i, d := range bound {
		bound[i] = float32(imaging.Clamp01((float64(d) - glassInset) / glassFade))
	}

	// Full resolution is needed only where the working layer, bilinearly
	// sampled, is not 0: the glass's cells and half a cell around.
	W, H := photo.Rect.Dx(), photo.Rect.Dy()
	area := image.Rect(int(float64(found.Min.X-1)/g.sx), int(float64(found.Min.Y-1)/g.sy),
		int(float64(found.Max.X+1)/g.sx)+1, int(float64(found.Max.Y+1)/g.sy)+1).Intersect(image.Rect(0, 0, W, H))
	out := image.NewGray(area)
	x0, x1, fx := imaging.BilinearIndex(area.Min.X, area.Max.X, g.sx, float64(crop.Min.X), cw)
	y0, y1, fy := imaging.BilinearIndex(area.Min.Y, area.Max.Y, g.sy, float64(crop.Min.Y), ch)
	imaging.Parallel(area.Dy(), func(lo, hi int) {
		ra, rb, rc, re := make([]float32, cw), make([]float32, cw), make([]float32, cw), make([]float32, cw)
		for j := lo; j < hi; j++ {
			// Interpolate the three rows once per output row.
			r0, r1, f := y0[j]*cw, y1[j]*cw, fy[j]
			for x := range cw {
				ra[x] = a[r0+x] + f*(a[r1+x]-a[r0+x])
				rb[x] = b[r0+x] + f*(b[r1+x]-b[r0+x])
				rc[x] = layer[r0+x] + f*(layer[r1+x]-layer[r0+x])
				re[x] = bound[r0+x] + f*(bound[r1+x]-bound[r0+x])
			}
			Y := area.Min.Y + j
			src := photo.Pix[Y*photo.Stride+4*area.Min.X:]
			m := matte.Pix[Y*matte.Stride+area.Min.X:]
			dst := out.Pix[j*out.Stride : j*out.Stride+area.Dx()]
			for x := range dst {
				i0, i1, w := x0[x], x1[x], fx[x]
				c := rc[i0] + w*(rc[i1]-rc[i0])
				if c <= 0 || m[x] == 0 {
					continue
				}
				p := src[4*x : 4*x+3 : 4*x+3]
				lum := float32(linearToSRGB(0.2126*srgbToLinear[p[0]]+0.7152*srgbToLinear[p[1]]+0.0722*srgbToLinear[p[2]])) / 255
				q := (ra[i0]+w*(ra[i1]-ra[i0]))*lum + rb[i0] + w*(rb[i1]-rb[i0])
				q = float32(imaging.Smoothstep(glassFloor, 1, float64(q)))
				q = min(q, re[i0]+w*(re[i1]-re[i0])) * float32(m[x]) / 255
				dst[x] = imaging.ToByte(q)
			}
		}
	})
	return out
}

// sampleGray returns the bilinear value (0..1) of g at (x, y) in
// pixel-centre coordinates of g's own grid; outside g.Rect it is 0.
func sampleGray(g *image.Gray, x, y float64) float32 {
	x -= 0.5
	y -= 0.5
	r := g.Rect
	if x < float64(r.Min.X-1) || y < float64(r.Min.Y-1) || x >= float64(r.Max.X) || y >= float64(r.Max.Y) {
		return 0
	}
	ix, iy := int(x+1)-1, int(y+1)-1 // floor, for x, y >= -1
	fx, fy := float32(x-float64(ix)), float32(y-float64(iy))
	if ix >= r.Min.X && iy >= r.Min.Y && ix+1 < r.Max.X && iy+1 < r.Max.Y {
		// All four samples inside, the common case: no check each.
		i := (iy-r.Min.Y)*g.Stride + ix - r.Min.X
		top, bottom := g.Pix[i:i+2:i+2], g.Pix[i+g.Stride:i+g.Stride+2:i+g.Stride+2]
		v0 := float32(top[0]) + (float32(top[1])-float32(top[0]))*fx
		v1 := float32(bottom[0]) + (float32(bottom[1])-float32(bottom[0]))*fx
		return (v0 + (v1-v0)*fy) / 255
	}
	at := func(x, y int) float32 {
		if x < r.Min.X || y < r.Min.Y || x >= r.Max.X || y >= r.Max.Y {
			return 0
		}
		return float32(g.Pix[(y-r.Min.Y)*g.Stride+x-r.Min.X])
	}
	v0 := at(ix, iy) + (at(ix+1, iy)-at(ix, iy))*fx
	v1 := at(ix, iy+1) + (at(ix+1, iy+1)-at(ix, iy+1))*fx
	return (v0 + (v1-v0)*fy) / 255
}

// shrinkGray reduces g by the integer factor k, averaging each k×k block
// of the photo grid (block (X, Y) covers photo pixels k·X to k·X+k−1, 0
// outside g.Rect), so it lines up with a car layer shrunk by k.
func shrinkGray(g *image.Gray, k int) *image.Gray {
	r := g.Rect
	if r.Empty() {
		return g
	}
	fl := func(v int) int { // floor division, for negative v too
		if v < 0 {
			return -((-v + k - 1) / k)
		}
		return v / k
	}
	sr := image.Rect(fl(r.Min.X), fl(r.Min.Y), fl(r.Max.X-1)+1, fl(r.Max.Y-1)+1)
	out := image.NewGray(sr)
	inv := 1 / float32(k*k)
	imaging.Parallel(sr.Dy(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			Y := sr.Min.Y + j
			for i := range sr.Dx() {
				X := sr.Min.X + i
				var sum float32
				for y := max(Y*k, r.Min.Y); y < min(Y*k+k, r.Max.Y); y++ {
					base := (y-r.Min.Y)*g.Stride - r.Min.X
					for x := max(X*k, r.Min.X); x < min(X*k+k, r.Max.X); x++ {
						sum += float32(g.Pix[base+x])
					}
				}
				out.Pix[j*out.Stride+i] = uint8(sum*inv + 0.5)
			}
		}
	})
	return out
}
