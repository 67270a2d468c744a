package imaging

import (
	"image"
	"math"
)

// Plane is a single-channel float32 image, row-major: sample (x, y) is
// Pix[y*W+x].
type Plane struct {
	W, H int
	Pix  []float32
}

// NewPlane returns a zeroed w×h plane.
func NewPlane(w, h int) Plane { return Plane{W: w, H: h, Pix: make([]float32, w*h)} }

// GetPlane returns a zeroed w×h plane whose samples come from b: a caller
// that keeps a pool of buffers spares the zeroing, page faults and
// garbage collections of fresh ones. Release hands them back.
func GetPlane(b Buffers, w, h int) Plane { return Plane{W: w, H: h, Pix: b.Get(w * h)} }

// Release hands p's samples back to b: p, and any plane sharing its
// samples, must not be used afterwards.
func (p Plane) Release(b Buffers) { b.Put(p.Pix) }

// ReleaseUnless releases p to b unless it shares its samples with one of
// keep (a resample to the same size returns its input).
func (p Plane) ReleaseUnless(b Buffers, keep ...Plane) {
	if len(p.Pix) == 0 {
		return
	}
	for _, k := range keep {
		if len(k.Pix) > 0 && &k.Pix[0] == &p.Pix[0] {
			return
		}
	}
	p.Release(b)
}

// Sample returns the bilinear value at (x, y) in pixel-centre coordinates
// (the centre of pixel 0 is 0.5); outside the plane the value is 0.
func (p Plane) Sample(x, y float64) float32 {
	x -= 0.5
	y -= 0.5
	if x < -1 || y < -1 || x >= float64(p.W) || y >= float64(p.H) {
		return 0
	}
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	if x0 >= 0 && y0 >= 0 && x0+1 < p.W && y0+1 < p.H {
		// All four samples inside, the common case: no check each.
		i := y0*p.W + x0
		top, bottom := p.Pix[i:i+2:i+2], p.Pix[i+p.W:i+p.W+2:i+p.W+2]
		a := top[0] + (top[1]-top[0])*fx
		b := bottom[0] + (bottom[1]-bottom[0])*fx
		return a + (b-a)*fy
	}
	at := func(x, y int) float32 {
		if x < 0 || y < 0 || x >= p.W || y >= p.H {
			return 0
		}
		return p.Pix[y*p.W+x]
	}
	a := at(x0, y0) + (at(x0+1, y0)-at(x0, y0))*fx
	b := at(x0, y0+1) + (at(x0+1, y0+1)-at(x0, y0+1))*fx
	return a + (b-a)*fy
}

// Bounds returns the photo rectangle covering p's non-zero samples, p
// being on a grid that is the photo scaled by (sx, sy).
func (p Plane) Bounds(sx, sy float64) image.Rectangle {
	r := p.NonZero()
	if r.Empty() {
		return r
	}
	// One grid pixel more: bilinear sampling reaches half a pixel out.
	return image.Rect(int(float64(r.Min.X-1)/sx), int(float64(r.Min.Y-1)/sy),
		int(math.Ceil(float64(r.Max.X+1)/sx)), int(math.Ceil(float64(r.Max.Y+1)/sy)))
}

// BoxBlur blurs p in place with a (2r+1)² box, twice (close to a Gaussian),
// edges clamped.
func (p Plane) BoxBlur(r int) {
	if r < 1 {
		return
	}
	p.BoxBlurXY(r, r)
}

// BoxBlurXY blurs p in place with a box of radius rx across and ry down,
// twice, edges clamped.
func (p Plane) BoxBlurXY(rx, ry int) {
	for range 2 {
		p.blurPass(rx, ry)
	}
}

// blurPass box-blurs p in place across with radius rx, then down with
// radius ry (a radius below 1 skips that direction), edges clamped. Walking
// down a column one sample at a time reads a plane's memory 4w bytes apart,
// a cache miss per sample; instead the column sums advance a whole row at a
// time, over a ring of the 2ry+2 rows the window spans, each blurred across
// as it enters. The sums are added in the same order as a column walk
// would, so the result is the same to the bit.
func (p Plane) blurPass(rx, ry int) {
	w, h := p.W, p.H
	if w == 0 || h == 0 {
		return
	}
	row := func(y int) []float32 { return p.Pix[y*w : (y+1)*w] }
	if ry < 1 {
		if rx >= 1 {
			tmp := make([]float32, w)
			for y := range h {
				copy(tmp, row(y))
				BlurRow(row(y), tmp, rx)
			}
		}
		return
	}
	n := min(2*ry+2, h)
	ring := make([]float32, n*w)
	slot := func(y int) []float32 { return ring[(y%n)*w : (y%n+1)*w] }
	loaded := -1
	load := func(upTo int) {
		for ; loaded < min(upTo, h-1); loaded++ {
			if rx >= 1 {
				BlurRow(slot(loaded+1), row(loaded+1), rx)
			} else {
				copy(slot(loaded+1), row(loaded+1))
			}
		}
	}
	at := func(y int) []float32 { return slot(min(max(y, 0), h-1)) }
	load(ry + 1)
	sum := make([]float32, w)
	for i := -ry; i <= ry; i++ {
		for x, v := range at(i) {
			sum[x] += v
		}
	}
	inv := 1 / float32(2*ry+1)
	for y := range h {
		// Row y entered the ring before it is overwritten here, and
		// every row the sums still need is in the ring.
		load(y + ry + 1)
		out, in, gone := row(y), at(y+ry+1), at(y-ry)
		in, gone = in[:len(out)], gone[:len(out)]
		for x := range out {
			out[x] = sum[x] * inv
			sum[x] += in[x] - gone[x]
		}
	}
}

// BlurRow writes to dst the box blur of src, a line of samples, with radius
// r, edges clamped,
// with a running sum.
func BlurRow(dst, src []float32, r int) {
	n := len(src)
	var sum float32
	for i := -r; i <= r; i++ {
		sum += src[min(max(i, 0), n-1)]
	}
	inv := 1 / float32(2*r+1)
	dst = dst[:n]
	for i := range dst {
		dst[i] = sum * inv
		sum += src[min(i+r+1, n-1)] - src[max(i-r, 0)]
	}
}

// NonZero returns the bounds of p's non-zero samples, on p's own grid.
func (p Plane) NonZero() image.Rectangle {
	r := image.Rectangle{}
	for y := range p.H {
		row := p.Pix[y*p.W : (y+1)*p.W]
		for x, v := range row {
			if v != 0 {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// Resize resamples p to w×h with ResampleTaps' filter, separably; the
// result, and the pass between, come from b.
func (p Plane) Resize(b Buffers, w, h int) Plane {
	x := p.ResizeX(b, w)
	out := x.ResizeY(b, h)
	x.ReleaseUnless(b, p, out)
	return out
}

// ResizeX resamples the rows of p to w samples, into a plane from b (p
// itself when it has w already).
func (p Plane) ResizeX(b Buffers, w int) Plane {
	if w == p.W {
		return p
	}
	tx := ResampleTaps(p.W, w)
	out := GetPlane(b, w, p.H)
	Parallel(p.H, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			src := p.Pix[y*p.W : (y+1)*p.W]
			dst := out.Pix[y*w : (y+1)*w]
			for x, t := range tx {
				var s float32
				for i, wt := range t.W {
					s += src[t.Start+i] * wt
				}
				dst[x] = s
			}
		}
	})
	return out
}

// ResizeY resamples the columns of p to h samples, into a plane from b
// (p itself when it has h already).
func (p Plane) ResizeY(b Buffers, h int) Plane {
	if h == p.H {
		return p
	}
	ty := ResampleTaps(p.H, h)
	w := p.W
	out := GetPlane(b, w, h)
	Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			t := ty[y]
			dst := out.Pix[y*w : (y+1)*w]
			for i, wt := range t.W {
				src := p.Pix[(t.Start+i)*w : (t.Start+i+1)*w]
				for x := range dst {
					dst[x] += src[x] * wt
				}
			}
		}
	})
	return out
}
