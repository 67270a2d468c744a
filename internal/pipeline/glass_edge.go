package pipeline

import (
	"image"
	"math"

	"github.com/showroom/showroom/internal/imaging"
)

// glassEdgeCells is the half-width, in glass-grid cells, of the band
// around the glass's edge in which snapGlassEdge puts the edge on the
// photo's own edges at full resolution: the detector decides a pane cell
// by cell, so its edge is right to about a cell and shows the cells as
// steps where it does not lie on the frame (on a 12 MP photo a cell is
// eight photo pixels). Set while looking at the 12 MP Fords' windscreens
// (large/cbr_view1..3): a band wider than the frame's seal would let the
// edge jump over the seal onto the roof's outline.
const glassEdgeCells = 2

// glassEdgeContrast is the least difference of luminance between the
// glass and the body beside an edge pixel, as a share of the lighter's,
// for its share of glass to be read off its luminance; under it the
// pixel's share is that of its neighbours.
const glassEdgeContrast = 0.2

// glassEdgeNoise is the photo's gradient (the luma's Sobel magnitude over
// 4, about the change in luma across two pixels) that is no edge: a
// JPEG's noise and the grain of paint. Under it the glass and the body
// meet in the middle of the band, where the glass was found, rather than
// along the noise: a region found over a roof's flat paint kept a
// ragged outline there (the 12 MP Ford cbr_view2, set looking at it).
const glassEdgeNoise = 8

// snapGlassEdge redraws, in place, the glass out (full resolution, in
// photo coordinates) within the band around its edge: the pixels of the
// band go to the glass or to the body beside it, whichever reaches them
// across the weaker edges of the photo (a watershed of the photo's luma
// gradient from both, as fillPanes does on the glass grid), and the
// pixels on the line where they meet get the share of glass their
// lightness tells between the glass's and the body's beside them. The
// edge then runs where the photo has its strongest edge near the one
// found (a window's frame, seal or pillar), at the photo's resolution,
// with no trace of the cells it was found on. state gives each pixel's
// place: snapGlass (the glass beyond the band, kept as refined), snapBody
// (the car beyond the band, not glass), snapOff (off the car: neither
// floods it, so a region found over a roof's corner does not run out to
// the car's outline, the strongest edge there) or snapUnsure (the band).
func snapGlassEdge(photo *image.NRGBA, out *image.Gray, state []int8) {
	r := out.Rect
	w, h := r.Dx(), r.Dy()
	luma := make([]uint8, w*h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			src := photo.Pix[photo.PixOffset(r.Min.X, r.Min.Y+y):]
			for x := range w {
				p := src[4*x : 4*x+3 : 4*x+3]
				luma[y*w+x] = uint8((2126*int(p[0]) + 7152*int(p[1]) + 722*int(p[2]) + 5000) / 10000)
			}
		}
	})
	at := func(x, y int) int { return int(luma[min(max(y, 0), h-1)*w+min(max(x, 0), w-1)]) }
	// The flood's levels, the gradient's, at the band's pixels (the only
	// ones it floods), worked out beforehand over the cores.
	lv := make([]uint8, w*h)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				if state[y*w+x] != snapUnsure {
					continue
				}
				gx := at(x+1, y-1) + 2*at(x+1, y) + at(x+1, y+1) - at(x-1, y-1) - 2*at(x-1, y) - at(x-1, y+1)
				gy := at(x-1, y+1) + 2*at(x, y+1) + at(x+1, y+1) - at(x-1, y-1) - 2*at(x, y-1) - at(x+1, y-1)
				lv[y*w+x] = uint8(max(0, min(255, int(math.Sqrt(float64(gx*gx+gy*gy)))/4-glassEdgeNoise)))
			}
		}
	})
	label := make([]int8, w*h)
	copy(label, state)
	imaging.Watershed(label, w, 256, func(i int) int { return int(lv[i]) }, snapUnsure)
	// The line where the two floods met: within two pixels of a pixel of
	// the band whose 4-neighbour lies on the other side.
	meet := make([]bool, w*h)
	imaging.Parallel(h, func(lo, hi int) {
		for i := lo * w; i < hi*w; i++ {
			if state[i] != snapUnsure {
				continue
			}
			x, g := i%w, label[i] == snapGlass
			meet[i] = (x > 0 && label[i-1] != snapOff && (label[i-1] == snapGlass) != g) ||
				(x < w-1 && label[i+1] != snapOff && (label[i+1] == snapGlass) != g) ||
				(i >= w && label[i-w] != snapOff && (label[i-w] == snapGlass) != g) ||
				(i+w < w*h && label[i+w] != snapOff && (label[i+w] == snapGlass) != g)
		}
	})
	onLine := imaging.Dilate(meet, w, h, 2)
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				if i := y*w + x; state[i] == snapUnsure {
					out.Pix[y*out.Stride+x] = edgeShare(label, onLine, luma, x, y, w, h)
				}
			}
		}
	})
}

// edgeShare returns snapGlassEdge's share of glass for the band's pixel
// (x, y), label and onLine being the flood's result and the line where it
// met: whole glass or none off the line; on it, where its lightness lies
// between the glass's and the body's beside it (the photo's own
// anti-aliasing of the frame's edge) or, where the two look alike, the
// share of glass among its neighbours.
func edgeShare(label []int8, onLine []bool, luma []uint8, x, y, w, h int) uint8 {
	const reach = 4
	i := y*w + x
	lin := func(i int) float32 { return float32(luma[i]) }
	if !onLine[i] || label[i] == snapOff {
		if label[i] == snapGlass {
			return 255
		}
		return 0
	}
	var nGlass, nBody, near, nearGlass int
	var sumGlass, sumBody float32
	for yy := max(y-reach, 0); yy <= min(y+reach, h-1); yy++ {
		for xx := max(x-reach, 0); xx <= min(x+reach, w-1); xx++ {
			j := yy*w + xx
			if label[j] == snapOff {
				continue
			}
			glass := label[j] == snapGlass
			if xx-x <= 1 && x-xx <= 1 && yy-y <= 1 && y-yy <= 1 {
				near++
				if glass {
					nearGlass++
				}
			}
			switch {
			case onLine[j]:
			case glass:
				nGlass++
				sumGlass += lin(j)
			default:
				nBody++
				sumBody += lin(j)
			}
		}
	}
	a := float32(nearGlass) / float32(near)
	if nGlass > 0 && nBody > 0 {
		lg, lb := sumGlass/float32(nGlass), sumBody/float32(nBody)
		if abs32(lg-lb) >= glassEdgeContrast*max(lg, lb) {
			a = (lin(i) - lb) / (lg - lb)
		}
	}
	return uint8(255*min(max(a, 0), 1) + 0.5)
}

// The places of snapGlassEdge's pixels; snapOff is negative, which
// imaging.Watershed leaves alone.
const (
	snapUnsure int8 = iota
	snapGlass
	snapBody
	snapOff int8 = -1
)
