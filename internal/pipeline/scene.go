package pipeline

import (
	"image"
	"image/color"
	"math"

	"github.com/showroom/showroom/internal/imaging"
)

// Scene is what processors change: the original photo and everything found
// in it or decided about the output. Nothing is drawn until Render, once, at
// full resolution, so any valid order of processors works and the output
// after any prefix of a configuration is defined.
type Scene struct {
	// Photo is the decoded photo, upright sRGB, origin (0,0). Never changed.
	Photo *image.NRGBA

	// Matte is the car's alpha at the photo's resolution; nil until
	// DetectCarMaskProcessor ran. Box is the car's bounding box.
	Matte *image.Gray
	Box   image.Rectangle
	// Raw is the segmentation model's own thresholded answer on the
	// working grid (or nil): inside the car's outline, what the model left
	// out is where the old background shows through, i.e. glass.
	Raw *image.Gray

	// Confidence is the model's confidence that it found the car, and
	// Detection the configuration's carDetectionThreshold it passed; both
	// set by DetectCarMaskProcessor, for the run's warnings.
	Confidence, Detection float64

	// Ground is the car's ground line in photo pixels: where it touches
	// the floor. It starts as the box's bottom edge and becomes the line
	// through the wheels' contact points when the car is placed.
	Ground GroundLine
	// Keypoints is set when Ground runs through the wheels' contact
	// points; Level is then the angle that levels the car.
	Keypoints bool
	Level     float64

	// Shadow is the darkness layer (0 none, 1 black) on the working grid,
	// in photo coordinates; nil until detected or synthesised.
	// ShadowOpacity scales it when drawn; 0 means it is not drawn.
	Shadow        *plane
	ShadowOpacity float64
	// ShadowDetected tells a shadow found in the photo from none found.
	ShadowDetected bool

	// Glass is how much of each car pixel is window glass (255 fully) at
	// the photo's full resolution, in photo coordinates: it covers the
	// glass's neighbourhood only (its Rect) and is 0 outside. nil until
	// SemiTransparentWindowsProcessor ran.
	Glass              *image.Gray
	WindowTransparency float64
	WindowBrightness   float64

	// Background is what shows behind the car.
	Background Background
	// Floor is the canvas row (pixels from the top) where the background's
	// floor meets its wall, or 0 when the background has no wall (a plain
	// colour, transparency, the photo). The car's tyres stand below it and
	// the shadow is drawn below it only: a shadow never climbs the wall.
	Floor float64

	// Canvas is the output size before ResizeProcessor; Place maps the
	// photo onto it.
	Canvas image.Point
	Place  Placement

	// Posters are drawn over everything, in order.
	Posters []Poster
	// Output, when set, scales the rendered canvas to the output size.
	Output *OutputSize

	work *workGrid
}

// GroundLine is the line on which the car stands, from its left contact
// point to its right one, in photo pixels.
type GroundLine struct {
	Left, Right Point
}

// Point is a position in pixels, sub-pixel precise.
type Point struct{ X, Y float64 }

// Mid returns the middle of the ground line.
func (g GroundLine) Mid() Point {
	return Point{(g.Left.X + g.Right.X) / 2, (g.Left.Y + g.Right.Y) / 2}
}

// Tilt returns the ground line's angle from the horizontal, in radians,
// positive when its right end is lower.
func (g GroundLine) Tilt() float64 {
	return math.Atan2(g.Right.Y-g.Left.Y, g.Right.X-g.Left.X)
}

// BackgroundKind says what the background layer is.
type BackgroundKind int

// Background kinds. The photo itself is the background until the car is
// cut out; after that, transparency until a processor sets a colour or an
// image.
const (
	BackgroundPhoto BackgroundKind = iota
	BackgroundNone
	BackgroundColor
	BackgroundImage
)

// Background is the layer behind the car.
type Background struct {
	Kind  BackgroundKind
	Color color.NRGBA
	// Image covers the canvas: scaled by ImageScale and shifted by
	// ImageOffset (canvas = image*ImageScale + ImageOffset).
	Image       *image.NRGBA
	ImageScale  float64
	ImageOffset Point
	// Name is the image's content name.
	Name string
}

// Placement maps photo pixels onto the canvas: the photo point Anchor goes
// to the canvas point To, scaled by Scale and turned by Angle (radians,
// clockwise in image coordinates). The zero Scale means identity.
type Placement struct {
	Anchor, To Point
	Scale      float64
	Angle      float64
}

// inverse returns the photo point under the canvas point q.
func (p Placement) inverse(q Point) Point {
	if p.Scale == 0 {
		return q
	}
	dx, dy := (q.X-p.To.X)/p.Scale, (q.Y-p.To.Y)/p.Scale
	s, c := math.Sincos(-p.Angle)
	return Point{p.Anchor.X + c*dx - s*dy, p.Anchor.Y + s*dx + c*dy}
}

// forward returns the canvas point over the photo point q.
func (p Placement) forward(q Point) Point {
	if p.Scale == 0 {
		return q
	}
	dx, dy := q.X-p.Anchor.X, q.Y-p.Anchor.Y
	s, c := math.Sincos(p.Angle)
	return Point{p.To.X + p.Scale*(c*dx-s*dy), p.To.Y + p.Scale*(s*dx+c*dy)}
}

// Forward returns the canvas point over the photo point q, for pictures
// that mark photo points on the output (the docs' placement diagram).
func (p Placement) Forward(q Point) Point { return p.forward(q) }

// scale returns the placement's scale, 1 for the identity.
func (p Placement) scale() float64 {
	if p.Scale == 0 {
		return 1
	}
	return p.Scale
}

// onPixels returns p drawing the car at its photographed size on whole
// pixels when p is upright and its scale changes a car extent pixels
// across by at most a pixel, as AddBackgroundAndCrop's canvas, shrunk so
// as not to enlarge the car but to whole pixels, leaves it: resampling a car by
// 0.9997 only blurs it by the changing sub-pixel offsets, while a car on
// whole pixels keeps every pixel as photographed (and is drawn by copy).
// The car grows or shrinks by at most that pixel and moves by at most
// half a pixel.
func (p Placement) onPixels(extent float64) Placement {
	if p.Scale == 0 || p.Angle != 0 || math.Abs(p.Scale-1)*extent > 1 {
		return p
	}
	// Whole numbers both, so that their difference is exact.
	d := Point{math.Round(p.To.X - p.Anchor.X), math.Round(p.To.Y - p.Anchor.Y)}
	p.Scale = 1
	p.Anchor = Point{math.Round(p.Anchor.X), math.Round(p.Anchor.Y)}
	p.To = Point{p.Anchor.X + d.X, p.Anchor.Y + d.Y}
	return p
}

// shift returns the whole-pixel offset from canvas to photo pixels when p
// draws the photo unscaled and upright on whole pixels (onPixels).
func (p Placement) shift() (dx, dy int, ok bool) {
	if p.Scale != 1 || p.Angle != 0 {
		return 0, 0, false
	}
	fx, fy := p.Anchor.X-p.To.X, p.Anchor.Y-p.To.Y
	if fx != math.Round(fx) || fy != math.Round(fy) {
		return 0, 0, false
	}
	return int(fx), int(fy), true
}

// Poster is an overlay image drawn over the result: Scale of the canvas
// width wide, at Position ("top-left", ..., "center"), Margin (a share of
// the canvas width) from the edges.
type Poster struct {
	Image                  *image.NRGBA
	Position               string
	Scale, Opacity, Margin float64
}

// OutputSize is the output size and how the canvas fits it.
type OutputSize struct {
	Width, Height int
	Fit           string // FitContain, FitCover or FitFill
	// Pad is the colour of contain's padding.
	Pad color.NRGBA
}

// Fit modes of ResizeProcessor.
const (
	FitContain = "contain"
	FitCover   = "cover"
	FitFill    = "fill"
)

// NewScene returns the scene of a photo before any processor: the output
// is the photo itself.
func NewScene(photo *image.NRGBA) *Scene {
	photo = toNRGBA(photo)
	b := photo.Rect
	return &Scene{
		Photo:              photo,
		Canvas:             b.Size(),
		Background:         Background{Kind: BackgroundPhoto},
		WindowTransparency: 0,
		WindowBrightness:   1,
		Ground: GroundLine{
			Left:  Point{0, float64(b.Dy())},
			Right: Point{float64(b.Dx()), float64(b.Dy())},
		},
	}
}

// workGrid returns the downscaled photo and matte, computed once per
// matte.
func (s *Scene) workGrid() *workGrid {
	if s.work == nil || (s.Matte != nil && s.work.matte.Pix == nil) {
		s.work = newWorkGrid(s.Photo, s.Matte)
	}
	return s.work
}

// hasCar reports whether the car has been cut out.
func (s *Scene) hasCar() bool { return s.Matte != nil && !s.Box.Empty() }

// setCar records the detected car: from now on the car is cut out onto
// transparency, standing on its box's bottom edge.
func (s *Scene) setCar(matte *image.Gray, box image.Rectangle, raw *image.Gray) {
	if matte.Rect.Min != (image.Point{}) {
		matte = &image.Gray{Pix: matte.Pix[matte.PixOffset(matte.Rect.Min.X, matte.Rect.Min.Y):],
			Stride: matte.Stride, Rect: image.Rect(0, 0, matte.Rect.Dx(), matte.Rect.Dy())}
	}
	// The box is measured from the matte itself: it must bound exactly
	// what is drawn, whatever rounding the segmenter's own box had.
	s.Matte, s.Raw = matte, raw
	s.work = nil
	if b := s.mainBox(); !b.Empty() || box.Empty() {
		box = b
	}
	s.Box = box
	s.Background, s.Floor = Background{Kind: BackgroundNone}, 0
	s.Ground = GroundLine{
		Left:  Point{float64(box.Min.X), float64(box.Max.Y)},
		Right: Point{float64(box.Max.X), float64(box.Max.Y)},
	}
}

// mainBox returns the box of the car itself: the largest region of the
// matte (and any other at least a quarter its size, a car cut in two by a
// post), measured at half coverage at full resolution. A stray piece the
// matte still holds (lettering on a studio wall) is left outside the box,
// so it neither shifts the car's placement nor gets drawn; a faint haze of
// matte under the car must not lower the ground line.
func (s *Scene) mainBox() image.Rectangle {
	g := s.workGrid()
	set := make([]bool, g.w*g.h)
	for i, v := range g.matte.Pix {
		set[i] = v > 0.5
	}
	_, comps := imaging.Label(set, g.w, g.h, false)
	biggest := 0
	for _, c := range comps {
		biggest = max(biggest, c.Area)
	}
	var work image.Rectangle
	for _, c := range comps {
		if c.Area*4 >= biggest {
			work = work.Union(c.Box)
		}
	}
	if work.Empty() {
		return matteBounds(s.Matte, 127)
	}
	// Back to photo pixels, a working pixel wider all round.
	W, H := s.Photo.Rect.Dx(), s.Photo.Rect.Dy()
	r := image.Rect(int(float64(work.Min.X-1)/g.sx), int(float64(work.Min.Y-1)/g.sy),
		int(math.Ceil(float64(work.Max.X+1)/g.sx)), int(math.Ceil(float64(work.Max.Y+1)/g.sy))).
		Intersect(image.Rect(0, 0, W, H))
	sub := s.Matte.SubImage(r).(*image.Gray)
	return matteBounds(sub, 127).Add(r.Min)
}

// matteBounds returns the bounds of the matte's pixels above threshold.
func matteBounds(m *image.Gray, threshold uint8) image.Rectangle {
	// Indexes are relative to m.Rect.Min: m may be a sub-image.
	w, h := m.Rect.Dx(), m.Rect.Dy()
	minX, minY, maxX, maxY := w, h, -1, -1
	for y := range h {
		row := m.Pix[y*m.Stride : y*m.Stride+w]
		first := -1
		for x, v := range row {
			if v > threshold {
				first = x
				break
			}
		}
		if first < 0 {
			continue
		}
		last := first
		for x := w - 1; x > first; x-- {
			if row[x] > threshold {
				last = x
				break
			}
		}
		minX, maxX = min(minX, first), max(maxX, last)
		minY, maxY = min(minY, y), max(maxY, y)
	}
	if maxX < 0 {
		return image.Rectangle{}
	}
	return image.Rect(minX, minY, maxX+1, maxY+1)
}
