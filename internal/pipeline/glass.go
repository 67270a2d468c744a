package pipeline

import (
	"image"

	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/vision"
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
// full resolution. Inside a region, farther than a band from its edge, the
// glass is whole (as far as the car's matte goes); within the band
// (glassEdgeCells of the glass grid's cells to either side of the cells
// found) snapGlassEdge puts the edge on the photo's own edges. A window's
// edge then runs along its frame as photographed, not along the cells it
// was found on (a 12 MP photo has eight photo pixels to a glass cell, and
// a layer merely enlarged, or refined only where the cells reach, shows
// them as steps). The glass is nowhere outside the car's matte.
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
	// The band, in working pixels, and the signed distance from the edge
	// of the cells found (inside positive) over the glass's neighbourhood
	// on the working grid. Measured as a Euclidean distance and
	// interpolated, the band's own outline is round where the cells are
	// stair-stepped.
	band := glassEdgeCells * float32(glassCell(g))
	crop := found.Inset(-(int(band) + 3)).Intersect(image.Rect(0, 0, g.w, g.h))
	cw, ch := crop.Dx(), crop.Dy()
	zero, glass := make([]bool, cw*ch), make([]bool, cw*ch)
	for y := range ch {
		for x := range cw {
			i := y*cw + x
			zero[i] = coarse.Pix[(crop.Min.Y+y)*g.w+crop.Min.X+x] <= 0
			glass[i] = !zero[i]
		}
	}
	side, outside := imaging.Distance(zero, cw, ch), imaging.Distance(glass, cw, ch)
	for i, z := range zero {
		if z {
			side[i] = 0.5 - outside[i]
		} else {
			side[i] -= 0.5
		}
	}

	// Each photo pixel's place: within the band, glass inside it, the
	// body outside it, or off the car.
	W, H := photo.Rect.Dx(), photo.Rect.Dy()
	reach := found.Inset(-(int(band) + 2))
	area := image.Rect(int(float64(reach.Min.X)/g.sx), int(float64(reach.Min.Y)/g.sy),
		int(float64(reach.Max.X)/g.sx)+1, int(float64(reach.Max.Y)/g.sy)+1).Intersect(image.Rect(0, 0, W, H))
	out := image.NewGray(area)
	state := make([]int8, area.Dx()*area.Dy())
	x0, x1, fx := imaging.BilinearIndex(area.Min.X, area.Max.X, g.sx, float64(crop.Min.X), cw)
	y0, y1, fy := imaging.BilinearIndex(area.Min.Y, area.Max.Y, g.sy, float64(crop.Min.Y), ch)
	imaging.Parallel(area.Dy(), func(lo, hi int) {
		rs := make([]float32, cw)
		for j := lo; j < hi; j++ {
			// Interpolate the row once per output row.
			r0, r1, f := y0[j]*cw, y1[j]*cw, fy[j]
			for x := range cw {
				rs[x] = side[r0+x] + f*(side[r1+x]-side[r0+x])
			}
			m := matte.Pix[(area.Min.Y+j)*matte.Stride+area.Min.X:]
			dst := out.Pix[j*out.Stride : j*out.Stride+area.Dx()]
			st := state[j*area.Dx() : (j+1)*area.Dx()]
			for x := range dst {
				i0, i1, w := x0[x], x1[x], fx[x]
				switch d := rs[i0] + w*(rs[i1]-rs[i0]); {
				case m[x] == 0:
					st[x] = snapOff
				case d < -band:
					st[x] = snapBody
				case d <= band:
					st[x] = snapUnsure
				default:
					st[x], dst[x] = snapGlass, m[x]
				}
			}
		}
	})
	snapGlassEdge(photo, out, state)
	for y := range area.Dy() {
		m := matte.Pix[(area.Min.Y+y)*matte.Stride+area.Min.X:]
		for x, s := range state[y*area.Dx() : (y+1)*area.Dx()] {
			if s == snapUnsure {
				o := &out.Pix[y*out.Stride+x]
				*o = uint8((int(*o)*int(m[x]) + 127) / 255)
			}
		}
	}
	return out
}

// glassCell returns the working-grid pixels to a glass-grid cell.
func glassCell(g *workGrid) int { return max(1, (max(g.w, g.h)+glassSide-1)/glassSide) }

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
