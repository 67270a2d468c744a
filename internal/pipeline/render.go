package pipeline

import (
	"image"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/imaging"
)

// Render composes the scene into one image at full resolution: the
// background, the shadow multiplied onto it, the car (its glass letting
// the background through), the posters, then the resize. It reports
// whether any pixel is not opaque.
//
// Compositing is done in linear light with premultiplied alpha: mixing
// sRGB values darkens soft edges and glass into a grey fringe, and
// straight alpha bleeds the colour of transparent pixels into their
// neighbours when sampled.
func Render(s *Scene) (*image.NRGBA, bool) {
	return renderRows(s, nil)
}

// opaqueBackground reports whether the background covers every canvas
// pixel opaquely, so that the result is opaque whatever is drawn on it.
func (s *Scene) opaqueBackground() bool {
	switch s.Background.Kind {
	case BackgroundColor:
		return s.Background.Color.A == 255
	case BackgroundImage:
		return s.Background.Image.Opaque()
	}
	return false
}

// renderBand is how many canvas rows Render hands out at a time.
const renderBand = 16

// renderRows is Render, calling rowsDone (when not nil) with the canvas
// and each band of rows, lo to hi, once they are final: from the render's
// goroutines, in any order, before posters and the resize.
//
// It runs in stages: the compositor works out once what every pixel
// needs, its rows compose the canvas band by band, and finish draws the
// posters and resizes.
func renderRows(s *Scene, rowsDone func(canvas *image.NRGBA, lo, hi int)) (*image.NRGBA, bool) {
	H := s.Canvas.Y
	// Every pixel is written below: the canvas may be a recycled buffer.
	out := codec.NewNRGBA(s.Canvas.X, H)
	c := newCompositor(s)
	transparent := make([]bool, H)
	imaging.ParallelUneven(H, renderBand, func(lo, hi int) {
		if rowsDone != nil {
			defer rowsDone(out, lo, hi)
		}
		for y := lo; y < hi; y++ {
			transparent[y] = c.row(out.Pix[y*out.Stride:y*out.Stride+4*c.w], y)
		}
	})
	if c.car != nil {
		c.car.release()
	}
	return s.finish(out), slices.Contains(transparent, true)
}

// compositor is what composing a canvas pixel needs, worked out once a
// render: the layers, where a canvas pixel lies on the photo, the areas
// that need sampling, and the inputs of the fast paths that skip it.
type compositor struct {
	s   *Scene
	w   int       // the canvas width
	car *carLayer // nil without a car to draw
	bg  *backgroundLayer
	// glassT and glassB are the windows' transparency and brightness, 0
	// and 1 without glass; clearGlass is whether they leave the car as
	// it is.
	glassT, glassB float32
	clearGlass     bool
	// shadowOp is the shadow's opacity, 0 without one; gsx and gsy take
	// photo points to the working grid the shadow is on; floorRow is how
	// much of it each canvas row shows (Scene.floorWeights).
	shadowOp float32
	gsx, gsy float64
	floorRow []float32
	// The inverse placement is affine: one step along a canvas row moves
	// the photo point by a constant vector. Canvas point (cx, cy) is photo
	// point o + cx·(dxx, dxy) + cy·(dyx, dyy).
	o                  Point
	dxx, dxy, dyx, dyy float64
	// Only the canvas area over the car's box, or over the shadow layer's
	// non-zero part, needs sampling: elsewhere the background is final.
	carArea, shadowArea image.Rectangle
	// copyCar: a car on whole pixels at its photographed size
	// (Placement.onPixels), shifted by (copyDX, copyDY) from the canvas,
	// needs no resampling where it is opaque and clear of glass: there
	// the result is its own pixel, whatever lies under it, and is copied.
	copyCar        bool
	copyDX, copyDY int
	// flat is a flat background's pixel (a colour, or none), written as
	// bytes where nothing covers it; nil for an image or the photo. bare
	// is the same pixel as composited, where the shadow and the car
	// inside their areas happen not to cover it, and bareOpaque whether
	// it is opaque.
	flat       []byte
	bare       [4]byte
	bareOpaque bool
}

// newCompositor works out what composing s's pixels needs.
func newCompositor(s *Scene) *compositor {
	c := &compositor{s: s, w: s.Canvas.X, car: s.carSource(), bg: s.backgroundSource()}
	if s.Glass != nil {
		c.glassT, c.glassB = float32(s.WindowTransparency), float32(s.WindowBrightness)
	}
	c.clearGlass = c.glassT == 0 && c.glassB == 1
	if s.Shadow != nil {
		c.shadowOp = float32(s.ShadowOpacity)
	}
	if s.work != nil {
		c.gsx, c.gsy = s.work.sx, s.work.sy
	}
	c.floorRow = s.floorWeights()
	place := s.Place
	if place.Scale == 0 {
		place = Placement{Scale: 1}
	}
	c.o = place.inverse(Point{0, 0})
	ex := place.inverse(Point{1, 0})
	ey := place.inverse(Point{0, 1})
	c.dxx, c.dxy = ex.X-c.o.X, ex.Y-c.o.Y
	c.dyx, c.dyy = ey.X-c.o.X, ey.Y-c.o.Y
	if c.car != nil {
		c.carArea = s.canvasArea(s.Box)
	}
	if c.shadowOp > 0 {
		c.shadowArea = s.canvasArea(s.Shadow.Bounds(c.gsx, c.gsy))
	}
	if c.car != nil && c.car.k == 1 && drawByCopy {
		c.copyDX, c.copyDY, c.copyCar = place.shift()
	}
	switch s.Background.Kind {
	case BackgroundColor:
		col := s.Background.Color
		c.flat = []byte{col.R, col.G, col.B, col.A}
	case BackgroundNone:
		c.flat = []byte{0, 0, 0, 0}
	}
	c.bareOpaque = putPremultiplied(c.bare[:], c.bg.r, c.bg.g, c.bg.b, c.bg.a)
	return c
}

// row composes canvas row y into row and reports whether any of its
// pixels is not opaque. The fast paths come first: a flat background
// around the span and between the areas, the background alone outside
// them, a car's own pixel (carPixel); the rest is blended.
func (c *compositor) row(row []byte, y int) (transparent bool) {
	x0, x1 := c.span(y)
	if c.flat != nil {
		// A flat background is filled in by copy around the span.
		fill(row[:4*x0], c.flat)
		fill(row[4*x1:], c.flat)
		transparent = c.flat[3] < 255 && (x0 > 0 || x1 < c.w)
	}
	for x := x0; x < x1; x++ {
		p := (*[4]byte)(row[4*x : 4*x+4])
		inCar, inShadow := c.covers(x, y)
		if !inCar && !inShadow {
			// Nothing over the background: a flat one is final, another
			// is sampled.
			if c.flat != nil {
				copy(p[:], c.flat)
				transparent = transparent || c.flat[3] < 255
				continue
			}
			px, py := c.photoPoint(x, y)
			r, g, b, a := c.bg.at(c.s, x, y, px, py)
			if !putPremultiplied(p[:], r, g, b, a) {
				transparent = true
			}
			continue
		}
		var carPx []uint8
		if c.copyCar && inCar {
			var done bool
			if carPx, done = c.carPixel(p, x, y); done {
				continue
			}
			inCar = carPx != nil
		}
		if !c.blend(p, x, y, carPx, inCar, inShadow) {
			transparent = true
		}
	}
	return transparent
}

// span is the part of row y, x0 to x1, that needs sampling: over the
// car's or the shadow's area when the background is flat, else all of it.
func (c *compositor) span(y int) (x0, x1 int) {
	if c.flat == nil {
		return 0, c.w
	}
	x0, x1 = c.w, 0
	for _, a := range []image.Rectangle{c.carArea, c.shadowArea} {
		if y >= a.Min.Y && y < a.Max.Y {
			x0, x1 = min(x0, max(a.Min.X, 0)), max(x1, min(a.Max.X, c.w))
		}
	}
	return x0, max(x0, x1)
}

// covers reports whether canvas pixel (x, y) is in the car's area and in
// the shadow's.
func (c *compositor) covers(x, y int) (inCar, inShadow bool) {
	inCar = c.car != nil && x >= c.carArea.Min.X && x < c.carArea.Max.X && y >= c.carArea.Min.Y && y < c.carArea.Max.Y
	inShadow = c.shadowOp > 0 && x >= c.shadowArea.Min.X && x < c.shadowArea.Max.X && y >= c.shadowArea.Min.Y && y < c.shadowArea.Max.Y
	return inCar, inShadow
}

// carPixel is the car's sample at canvas pixel (x, y) when it is on
// whole pixels (copyCar): its own pixel, nil where it is clear. Where that
// pixel is opaque without glass it is the result: carPixel copies it to p
// and reports done.
func (c *compositor) carPixel(p *[4]byte, x, y int) (carPx []uint8, done bool) {
	carPx = c.car.pixel(x+c.copyDX, y+c.copyDY)
	switch {
	case carPx == nil || carPx[3] == 0:
		return nil, false
	case carPx[3] == 255 && (c.clearGlass || !c.car.glassAt(x+c.copyDX, y+c.copyDY)):
		copy(p[:], carPx)
		return carPx, true
	}
	return carPx, false
}

// photoPoint is the photo point under the centre of canvas pixel (x, y).
func (c *compositor) photoPoint(x, y int) (px, py float64) {
	cx, cy := float64(x)+0.5, float64(y)+0.5
	return c.o.X + cx*c.dxx + cy*c.dyx, c.o.Y + cx*c.dxy + cy*c.dyy
}

// blend composes canvas pixel (x, y) into p from its layers in
// premultiplied linear light: the background, the shadow multiplied onto
// it where inShadow, the car over both where inCar (carPx, when not nil,
// is its sample), its glass letting the background through. It reports
// whether the pixel is opaque.
func (c *compositor) blend(p *[4]byte, x, y int, carPx []uint8, inCar, inShadow bool) (opaque bool) {
	px, py := c.photoPoint(x, y)
	br, bgc, bb, ba := c.bg.at(c.s, x, y, px, py)
	covered := false
	if inShadow {
		if d := c.s.Shadow.Sample(px*c.gsx, py*c.gsy) * c.shadowOp * c.floorRow[y]; d > 0 {
			k := 1 - d
			br, bgc, bb, ba = br*k, bgc*k, bb*k, ba*k+d
			covered = true
		}
	}
	if inCar {
		var cr, cg, cb, ca float32
		if carPx != nil {
			cr, cg, cb, ca = premultipliedLinear(carPx)
		} else {
			cr, cg, cb, ca = c.car.sample(px, py)
		}
		if ca > 0 {
			if c.car.glass != nil && (c.glassT > 0 || c.glassB != 1) {
				if g := c.car.sampleGlass(px, py); g > 0 {
					cr, cg, cb, ca = c.car.look.through(cr, cg, cb, ca, g, px, py)
				}
			}
			k := 1 - ca
			br, bgc, bb, ba = cr+br*k, cg+bgc*k, cb+bb*k, ca+ba*k
			covered = true
		}
	}
	if c.flat != nil && !covered {
		// Uncovered, a flat background is the same every time.
		*p = c.bare
		return c.bareOpaque
	}
	return putPremultiplied(p[:], br, bgc, bb, ba)
}

// finish draws the posters on the composed canvas and resizes it to the
// output's size, if one is set.
func (s *Scene) finish(out *image.NRGBA) *image.NRGBA {
	for _, p := range s.Posters {
		drawPoster(out, p)
	}
	if s.Output != nil {
		canvas := out
		out = resizeCanvas(out, *s.Output)
		codec.Recycle(canvas)
	}
	return out
}

// drawByCopy lets Render copy a car on whole pixels; tests turn it off to
// check the copy gives the bytes sampling would.
var drawByCopy = true

// putPremultiplied writes the premultiplied linear colour (r, g, b, a) as
// one straight-alpha sRGB pixel and reports whether it is opaque.
func putPremultiplied(p []uint8, r, g, b, a float32) bool {
	if a <= 0.5/255 {
		p[0], p[1], p[2], p[3] = 0, 0, 0, 0
		return false
	}
	inv := 1 / a
	p[0], p[1], p[2] = linearToSRGB(r*inv), linearToSRGB(g*inv), linearToSRGB(b*inv)
	p[3] = uint8(math.Round(float64(min(a, 1)) * 255))
	return p[3] == 255
}

// fill writes the pixel px over and over into b.
func fill(b, px []byte) {
	if len(b) == 0 {
		return
	}
	copy(b, px)
	for n := len(px); n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// floorWeights returns, for each canvas row, how much of a shadow is drawn
// there: 1 on the floor, 0 on the wall above Floor, with a ramp as wide as
// the studio's cove so the shadow fades where the floor turns into the wall.
func (s *Scene) floorWeights() []float32 {
	w := make([]float32, s.Canvas.Y)
	soft := math.Max(2, 0.012*float64(s.Canvas.Y))
	for y := range w {
		if s.Floor <= 0 {
			w[y] = 1
			continue
		}
		w[y] = float32(imaging.Smoothstep(s.Floor-soft, s.Floor+soft, float64(y)+0.5))
	}
	return w
}

// backgroundLayer samples the background.
type backgroundLayer struct {
	kind       BackgroundKind
	r, g, b, a float32
	img        *image.NRGBA
	inv        float64
	off        Point
}

func (s *Scene) backgroundSource() *backgroundLayer {
	bg := s.Background
	l := &backgroundLayer{kind: bg.Kind}
	switch bg.Kind {
	case BackgroundColor:
		a := float32(bg.Color.A) / 255
		l.r, l.g, l.b, l.a = srgbToLinear[bg.Color.R]*a, srgbToLinear[bg.Color.G]*a, srgbToLinear[bg.Color.B]*a, a
	case BackgroundImage:
		sc := bg.ImageScale
		img := bg.Image
		// Strong reductions are prefiltered so that bilinear sampling does
		// not alias a fine texture into noise.
		if k := int(1 / sc); k >= 2 {
			img = shrinkNRGBA(img, k)
			sc *= float64(k)
		}
		l.img, l.inv, l.off = img, 1/sc, bg.ImageOffset
	}
	return l
}

// at returns the background under canvas pixel (x, y), which is photo
// point (px, py), premultiplied linear.
func (l *backgroundLayer) at(s *Scene, x, y int, px, py float64) (r, g, b, a float32) {
	switch l.kind {
	case BackgroundPhoto:
		ix, iy := int(px), int(py)
		if px < 0 || py < 0 || ix >= s.Photo.Rect.Dx() || iy >= s.Photo.Rect.Dy() {
			return 0, 0, 0, 0
		}
		p := s.Photo.Pix[iy*s.Photo.Stride+4*ix:]
		return srgbToLinear[p[0]], srgbToLinear[p[1]], srgbToLinear[p[2]], 1
	case BackgroundColor:
		return l.r, l.g, l.b, l.a
	case BackgroundImage:
		return sampleNRGBA(l.img, (float64(x)+0.5-l.off.X)*l.inv, (float64(y)+0.5-l.off.Y)*l.inv, true)
	}
	return 0, 0, 0, 0
}

// carLayer is the cut-out car: decontaminated colours with the matte as
// alpha, covering the car's box, and its glass (both prefiltered when the
// car is shrunk).
type carLayer struct {
	img    *image.NRGBA // origin at the box's top-left, on the shrunk grid
	origin Point        // photo position of img's (0,0)
	k      float64      // photo pixels per img pixel
	// glass is Scene.Glass on the photo grid shrunk by k, or nil; look
	// is how it is drawn.
	glass *image.Gray
	look  *glassLook
}

func (s *Scene) carSource() *carLayer {
	if !s.hasCar() || s.Background.Kind == BackgroundPhoto {
		return nil
	}
	if s.Place.scale()*float64(max(s.Box.Dx(), s.Box.Dy())) < 1 {
		return nil // smaller than a pixel: a zero carWidth or carHeight
	}
	fg := s.foreground()
	l := &carLayer{img: fg, origin: Point{float64(s.Box.Min.X), float64(s.Box.Min.Y)}, k: 1}
	l.glass = s.Glass
	if l.glass != nil && (s.WindowTransparency > 0 || s.WindowBrightness != 1) {
		l.look = s.newGlassLook()
	}
	if k := int(1 / s.Place.scale()); k >= 2 {
		l.img = shrinkNRGBA(fg, k)
		codec.Recycle(fg)
		l.k = float64(k)
		if l.glass != nil {
			l.glass = shrinkGray(l.glass, k)
		}
	}
	return l
}

// release hands the car's full-resolution pixels back for a later photo
// once the car is drawn.
func (l *carLayer) release() {
	if l.k == 1 {
		codec.Recycle(l.img)
	}
}

func (l *carLayer) sample(px, py float64) (r, g, b, a float32) {
	return sampleNRGBA(l.img, (px-l.origin.X)/l.k, (py-l.origin.Y)/l.k, false)
}

// pixel returns the car's pixel at photo pixel (x, y), or nil outside
// the layer. Only for a layer at full resolution (k 1).
func (l *carLayer) pixel(x, y int) []uint8 {
	ix, iy := x-int(l.origin.X), y-int(l.origin.Y)
	if ix < 0 || iy < 0 || ix >= l.img.Rect.Dx() || iy >= l.img.Rect.Dy() {
		return nil
	}
	i := iy*l.img.Stride + 4*ix
	return l.img.Pix[i : i+4 : i+4]
}

// glassAt reports whether photo pixel (x, y) has any glass.
func (l *carLayer) glassAt(x, y int) bool {
	g := l.glass
	return g != nil && (image.Point{x, y}).In(g.Rect) && g.Pix[g.PixOffset(x, y)] != 0
}

// sampleGlass returns how much glass (0..1) is at photo point (px, py).
func (l *carLayer) sampleGlass(px, py float64) float32 {
	return sampleGray(l.glass, px/l.k, py/l.k)
}

// sampleNRGBA returns the bilinear, premultiplied linear colour of img at
// (x, y) in pixel-centre coordinates; outside img it is transparent, or the
// nearest edge pixel when clampEdge (a background must reach the canvas
// edge).
func sampleNRGBA(img *image.NRGBA, x, y float64, clampEdge bool) (r, g, b, a float32) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	x -= 0.5
	y -= 0.5
	if clampEdge {
		x = math.Max(0, math.Min(x, float64(w-1)))
		y = math.Max(0, math.Min(y, float64(h-1)))
	} else if x < -1 || y < -1 || x >= float64(w) || y >= float64(h) {
		return 0, 0, 0, 0
	}
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	add := func(p []uint8, wt float32) {
		// A transparent or zero-weight tap adds zeros: no branch.
		pa := unitBytes[p[3]] * wt
		r += srgbToLinear[p[0]] * pa
		g += srgbToLinear[p[1]] * pa
		b += srgbToLinear[p[2]] * pa
		a += pa
	}
	if x0 >= 0 && y0 >= 0 && x0+1 < w && y0+1 < h {
		// All four taps inside, the common case: no tap needs a check.
		i := y0*img.Stride + 4*x0
		top, bottom := img.Pix[i:i+8:i+8], img.Pix[i+img.Stride:i+img.Stride+8:i+img.Stride+8]
		add(top[0:4], (1-fx)*(1-fy))
		add(top[4:8], fx*(1-fy))
		add(bottom[0:4], (1-fx)*fy)
		add(bottom[4:8], fx*fy)
		return
	}
	at := func(ix, iy int, wt float32) {
		if ix >= 0 && iy >= 0 && ix < w && iy < h {
			add(img.Pix[iy*img.Stride+4*ix:], wt)
		}
	}
	at(x0, y0, (1-fx)*(1-fy))
	at(x0+1, y0, fx*(1-fy))
	at(x0, y0+1, (1-fx)*fy)
	at(x0+1, y0+1, fx*fy)
	return
}

// premultipliedLinear returns the straight-alpha sRGB pixel p as
// premultiplied linear colour: sampleNRGBA's value at p's centre.
func premultipliedLinear(p []uint8) (r, g, b, a float32) {
	a = unitBytes[p[3]]
	return srgbToLinear[p[0]] * a, srgbToLinear[p[1]] * a, srgbToLinear[p[2]] * a, a
}

// unitBytes maps a byte to 0..1.
var unitBytes = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(i) / 255
	}
	return t
}()

// shrinkNRGBA reduces img by the integer factor k, averaging premultiplied
// linear colour over each k×k block.
func shrinkNRGBA(img *image.NRGBA, k int) *image.NRGBA {
	W, H := img.Rect.Dx(), img.Rect.Dy()
	w, h := max((W+k-1)/k, 1), max((H+k-1)/k, 1)
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	imaging.Parallel(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := range w {
				var r, g, b, a float32
				n := 0
				for yy := y * k; yy < min(y*k+k, H); yy++ {
					row := img.Pix[yy*img.Stride:]
					for xx := x * k; xx < min(x*k+k, W); xx++ {
						p := row[4*xx : 4*xx+4]
						pa := float32(p[3]) / 255
						r += srgbToLinear[p[0]] * pa
						g += srgbToLinear[p[1]] * pa
						b += srgbToLinear[p[2]] * pa
						a += pa
						n++
					}
				}
				putLinear(out.Pix[y*out.Stride+4*x:], r, g, b, a, float32(n))
			}
		}
	})
	return out
}

// putLinear writes the premultiplied linear sum (r,g,b,a) over n samples
// as one straight-alpha sRGB pixel.
func putLinear(p []uint8, r, g, b, a, n float32) {
	if a <= 0 {
		p[0], p[1], p[2], p[3] = 0, 0, 0, 0
		return
	}
	p[0], p[1], p[2] = linearToSRGB(r/a), linearToSRGB(g/a), linearToSRGB(b/a)
	p[3] = uint8(math.Round(float64(min(a/n, 1)) * 255))
}

// foreground returns the car's box of the photo with the matte as alpha
// and the edge colours decontaminated: a soft edge pixel is a mix of car
// and old background, and drawn as it is over a new background it shows a
// halo of the old one. Each edge pixel's car colour is solved from the
// local car and background colours (one level of Germer et al.'s blur
// fusion, with the local means taken on the working grid).
func (s *Scene) foreground() *image.NRGBA {
	b := s.Box
	// Every pixel is written below: a recycled buffer will do.
	fg := codec.NewNRGBA(b.Dx(), b.Dy())
	g := s.workGrid()
	choke := matteChoke()
	// Only the car's box is sampled, one cell more for the bilinear
	// footprint.
	fr, bk, at := localMeans(g, g.toWork(b).Inset(-1))
	ox, oy := float64(at.X), float64(at.Y)
	imaging.Parallel(b.Dy(), func(lo, hi int) {
		for y := lo; y < hi; y++ {
			src := s.Photo.Pix[(b.Min.Y+y)*s.Photo.Stride+4*b.Min.X:]
			m := s.Matte.Pix[(b.Min.Y+y)*s.Matte.Stride+b.Min.X:]
			dst := fg.Pix[y*fg.Stride:]
			wy := (float64(b.Min.Y+y)+0.5)*g.sy - oy
			for x := range b.Dx() {
				a := m[x]
				d := dst[4*x : 4*x+4 : 4*x+4]
				// The colour is solved with the matte's own alpha (the mix
				// the camera saw); the drawn alpha is choked.
				d[3] = choke[a]
				if d[3] == 0 {
					d[0], d[1], d[2] = 0, 0, 0
					continue
				}
				sp := src[4*x : 4*x+3 : 4*x+3]
				if a == 255 {
					d[0], d[1], d[2] = sp[0], sp[1], sp[2]
					continue
				}
				al := float32(a) / 255
				wx := (float64(b.Min.X+x)+0.5)*g.sx - ox
				var f, fh, bh [3]float32
				var toF, toB float32
				for c := range 3 {
					fh[c], bh[c] = fr[c].Sample(wx, wy), bk[c].Sample(wx, wy)
					f[c] = fh[c] + al*(srgbToLinear[sp[c]]-al*fh[c]-(1-al)*bh[c])
					toF += abs32(f[c] - fh[c])
					toB += abs32(f[c] - bh[c])
				}
				// A solved colour still nearer the old background than the
				// car means the matte reaches too far here: paint the local
				// car colour rather than a fringe of the old background.
				if toB < toF {
					f = fh
				}
				d[0], d[1], d[2] = linearToSRGB(f[0]), linearToSRGB(f[1]), linearToSRGB(f[2])
			}
		}
	})
	return fg
}

// localMeans returns the local mean car colour and the local mean
// background colour on the working grid, each spread over the other's
// area so an edge pixel finds both. They cover the cells of need and as
// many around them as the blurs reach, so that those of need are what
// blurring the whole grid would give (but for rounding); the planes' cell
// (0,0) is the grid's cell at.
func localMeans(g *workGrid, need image.Rectangle) (fg, bg [3]plane, at image.Point) {
	r := max(g.w/200, 2)
	// Two passes of the background's radius 2r.
	area := need.Inset(-4 * r).Intersect(image.Rect(0, 0, g.w, g.h))
	w, h := area.Dx(), area.Dy()
	wa, wb := newPlane(w, h), newPlane(w, h)
	for c := range 3 {
		fg[c], bg[c] = newPlane(w, h), newPlane(w, h)
	}
	for y := range h {
		src := (area.Min.Y+y)*g.w + area.Min.X
		for x := range w {
			i, m := y*w+x, float64(g.matte.Pix[src+x])
			// Only clearly car or clearly background pixels vote: the
			// soft edge itself is the mixture being solved.
			wa.Pix[i] = float32(imaging.Smoothstep(0.7, 0.95, m))
			wb.Pix[i] = float32(1 - imaging.Smoothstep(0.05, 0.3, m))
			for c := range 3 {
				v := g.rgb[c].Pix[src+x]
				fg[c].Pix[i] = v * wa.Pix[i]
				bg[c].Pix[i] = v * wb.Pix[i]
			}
		}
	}
	// Eight independent blurs: spread over the cores.
	planes := []plane{fg[0], fg[1], fg[2], wa, bg[0], bg[1], bg[2], wb}
	var wg sync.WaitGroup
	next := make(chan int, len(planes))
	for i := range planes {
		next <- i
	}
	close(next)
	for range min(runtime.GOMAXPROCS(0), len(planes)) {
		wg.Go(func() {
			for i := range next {
				rad := r
				if i >= 4 {
					rad = 2 * r
				}
				planes[i].BoxBlur(rad)
			}
		})
	}
	wg.Wait()
	for c := range 3 {
		for i := range fg[c].Pix {
			fg[c].Pix[i] /= max(wa.Pix[i], 1e-4)
			bg[c].Pix[i] /= max(wb.Pix[i], 1e-4)
		}
	}
	return fg, bg, area.Min
}

// canvasArea returns the canvas pixels over the photo rectangle r under the
// placement, one pixel larger all round for the bilinear footprint.
func (s *Scene) canvasArea(r image.Rectangle) image.Rectangle {
	if r.Empty() {
		return image.Rectangle{}
	}
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for _, c := range []Point{{float64(r.Min.X), float64(r.Min.Y)}, {float64(r.Max.X), float64(r.Min.Y)},
		{float64(r.Min.X), float64(r.Max.Y)}, {float64(r.Max.X), float64(r.Max.Y)}} {
		q := s.Place.forward(c)
		minX, minY = math.Min(minX, q.X), math.Min(minY, q.Y)
		maxX, maxY = math.Max(maxX, q.X), math.Max(maxY, q.Y)
	}
	pad := 2 + s.Place.scale()
	return image.Rect(int(math.Floor(minX-pad)), int(math.Floor(minY-pad)), int(math.Ceil(maxX+pad)), int(math.Ceil(maxY+pad)))
}

// matteChoke is the curve applied to the matte when drawing: a car's
// outline is a hard edge, but an upsampled matte spreads it over tens of
// pixels at 12 MP, and the outer, mostly-background part of that ramp
// reads as a haze around the car even with its colours decontaminated.
// The curve keeps the middle of the ramp and steepens it.
func matteChoke() (t [256]uint8) {
	for i := range t {
		t[i] = uint8(math.Round(255 * imaging.Smoothstep(0.2, 0.85, float64(i)/255)))
	}
	return t
}
