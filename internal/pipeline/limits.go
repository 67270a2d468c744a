package pipeline

import (
	"image"
	"math"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// Sides the encoders cannot go past: libjpeg's JPEG_MAX_DIMENSION,
// libwebp's WEBP_MAX_DIMENSION, and for PNG libvips's largest image side
// (past it libvips writes a file of no pixels and reports no error).
const (
	MaxJPEGSide = 65_500
	MaxWebPSide = 16_383
	MaxPNGSide  = 10_000_000
)

// outputPixels returns the most pixels the canvas, the resize's output or
// anything in between may have: the photo limit, but never less than
// catalog.MaxNamedSide² so that every size the catalog allows stays possible.
// Sizes follow from parameters and the shapes of the photo and content (a
// background 8 pixels wide and 65,000 high, covered at outputWidth 8192,
// would be a canvas of half a trillion pixels): past this, an allocation
// would take the process down for every company, which no recover catches.
func (e *Engine) outputPixels() int64 {
	return max(int64(e.cfg.MaxPixels), catalog.MaxNamedSide*catalog.MaxNamedSide)
}

// maxSide returns the largest side format can encode.
func maxSide(format string) (int, string) {
	switch format {
	case FormatWebP:
		return MaxWebPSide, "WebP"
	case FormatPNG:
		return MaxPNGSide, "PNG"
	}
	return MaxJPEGSide, "JPEG"
}

// sizing says which processors decided a scene's sizes, for checkSizes's
// messages: each is a processor's name and its place in the
// configuration, or "" when none did (the photo's own size).
type sizing struct {
	canvas, output string
}

// by returns who decided a size: the processor, or the configuration.
func by(processor string) string {
	if processor == "" {
		return "the configuration"
	}
	return processor
}

// outputFormat returns the format s is to be encoded in: the one asked
// for, or for "" (JPEG, or PNG when the result has transparency) PNG when
// a side is past JPEG's limit, since the pipeline chooses.
func outputFormat(s *Scene, format string) string {
	if o := s.outputSize(); format == "" && max(o.X, o.Y) > MaxJPEGSide {
		return FormatPNG
	}
	return format
}

// outputSize returns the size of the rendered result.
func (s *Scene) outputSize() image.Point {
	if s.Output == nil {
		return s.Canvas
	}
	return s.Output.size(s.Canvas)
}

// checkSizes refuses, before anything is drawn, a scene whose canvas or
// output is over limit pixels, or whose output has a side format cannot
// encode: INVALID_CONFIGURATION, a client's error that no retry mends.
// The resize's intermediate needs no check of its own: it is never larger
// than the canvas or the output (see resample).
func checkSizes(s *Scene, format string, limit int64, sized sizing) error {
	too := func(p image.Point, what, who string) error {
		return showroom.Errorf(showroom.EInvalidConfig,
			"%s would make %s of %dx%d pixels (%.1f megapixels) from this photo and content; at most %.1f megapixels are made: name both of the output's sides",
			by(who), what, p.X, p.Y, float64(p.X)*float64(p.Y)/1e6, float64(limit)/1e6)
	}
	// In floating point: the product of two sides worked out from an
	// extreme aspect ratio need not fit in an int.
	area := func(p image.Point) float64 { return float64(p.X) * float64(p.Y) }
	if area(s.Canvas) > float64(limit) {
		return too(s.Canvas, "a canvas", sized.canvas)
	}
	out, who := s.outputSize(), sized.canvas
	if s.Output != nil {
		who = sized.output
		if area(out) > float64(limit) {
			return too(out, "an output", who)
		}
	}
	if side, name := maxSide(format); max(out.X, out.Y) > side {
		hint := "ask for a smaller output"
		if format != FormatPNG {
			hint += ", or for format png"
		}
		return showroom.Errorf(showroom.EInvalidConfig,
			"%s would make an output of %dx%d pixels; %s allows at most %d pixels a side: %s",
			by(who), out.X, out.Y, name, side, hint)
	}
	return nil
}

// size returns the output's size for a canvas of size c: with one side
// given, the other follows the canvas's aspect.
func (o OutputSize) size(c image.Point) image.Point {
	W, H := float64(c.X), float64(c.Y)
	switch {
	case o.Width == 0:
		return image.Pt(max(int(math.Round(float64(o.Height)*W/H)), 1), o.Height)
	case o.Height == 0:
		return image.Pt(o.Width, max(int(math.Round(float64(o.Width)*H/W)), 1))
	}
	return image.Pt(o.Width, o.Height)
}
