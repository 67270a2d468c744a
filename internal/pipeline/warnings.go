package pipeline

import (
	"fmt"
	"image"
	"math"
	"strings"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// The warnings' thresholds. They are about photos in general, not tuned on
// any set: each is where a person comparing the result with the photo
// would start to notice.
const (
	// cutRunShare is the least run of car along a border, as a share of
	// the car's extent along that border, that makes the car cut by the
	// frame there: 2% is a clear flat edge (a tyre sliced, a bumper cut
	// off), while a soft edge pixel or two touching the border is not.
	cutRunShare = 0.02
	// cutRunMin is the least run in pixels, whatever the car's size: a
	// run of one or two pixels is the matte's soft edge, not a cut.
	cutRunMin = 4
	// lowConfidenceMargin is how far above carDetectionThreshold the
	// model's confidence must be for no LOW_CONFIDENCE. A photo of one
	// clear car scores 0.9 and above (docs/segmentation.md); one that
	// passes the threshold by less than this has the model's attention
	// split between the car and something else, or spread thin.
	lowConfidenceMargin = 0.2
	// maxEnlargement is the largest scale at which the car's photographed
	// pixels, or a company's background image, are enlarged without a
	// word: past twice, edges and details are visibly soft.
	maxEnlargement = 2.0
	// tiltWarn is the tilt of the tyres' contact line past which a photo
	// is tilted: under about 2 degrees the eye does not see it, and the
	// contact points' own error (a pixel at either tyre) is of that order
	// on a small car.
	tiltWarn = 2 * math.Pi / 180
	// minTiltSpread is the least distance between the two contact points,
	// as a share of the car's width, for their line to say the photo's
	// tilt: in a side, front or rear view both tyres stand at the same
	// distance from the camera and 0.55-0.9 of the width apart, while in a
	// three-quarter view the near wheels are 0.25-0.35 apart and their
	// line slopes with the perspective (on 71 street photos, every one
	// under 0.35 had a slope of its own, up to 22 degrees).
	minTiltSpread = 0.5
)

// warnings returns what a person should check in the result of a run
// that ended with scene s, in the order of showroom.WarningCodes; none
// for a clean photo. It only reads the scene.
func warnings(s *Scene) []showroom.Warning {
	out := []showroom.Warning{}
	if !s.hasCar() {
		return out
	}
	if sides := cutSides(s.Matte, s.Box); len(sides) > 0 {
		out = append(out, showroom.Warning{Code: showroom.WarnCarCutByFrame,
			Message: fmt.Sprintf("the car runs along the photo's %s: part of it may be outside the photo", joinSides(sides))})
	}
	if s.Confidence > 0 && s.Confidence < s.Detection+lowConfidenceMargin {
		out = append(out, showroom.Warning{Code: showroom.WarnLowConfidence,
			Message: fmt.Sprintf("the model is not sure it found the car (confidence %.2f): check that the cutout is the car, all of it and nothing else", s.Confidence)})
	}
	if sc := s.Place.scale() * s.outputScale(); sc > maxEnlargement {
		out = append(out, showroom.Warning{Code: showroom.WarnCarSmallInPhoto,
			Message: fmt.Sprintf("the car is small in the photo and was enlarged %.1f times: the result may look soft", sc)})
	}
	// The angle the levelling used when a processor levelled the car;
	// otherwise the contact line's tilt as measured.
	t, ok := -s.Level, s.Level != 0
	if !ok {
		t, ok = tyreTilt(s)
	}
	if ok && math.Abs(t) > tiltWarn && math.Abs(t) <= maxLevel {
		side := "right"
		if t < 0 {
			side = "left"
		}
		// The contact line alone cannot tell a tilted camera from a car
		// seen slightly from one end: the message says what was measured
		// and done, and leaves the judgement to the person.
		done := "check that the car stands level"
		if s.Level != 0 {
			done = fmt.Sprintf("the car was turned %.1f degrees to level it", math.Abs(s.Level)*180/math.Pi)
		}
		out = append(out, showroom.Warning{Code: showroom.WarnTilted,
			Message: fmt.Sprintf("the line through the tyres is %.1f degrees off level (its %s side lower): %s",
				math.Abs(t)*180/math.Pi, side, done)})
	}
	if s.treatsWindows() && !anyGlass(s.Glass) {
		// Side windows are not what the glass model learnt (they are
		// unannotated in its training set), and a pane found only in part
		// is left as photographed rather than drawn torn: a side view often
		// ends with no glass at all, which the dealer should know before
		// comparing it with the other photos of the car.
		out = append(out, showroom.Warning{Code: showroom.WarnWindowsNotFound,
			Message: "no window glass was found: the windows are left as photographed"})
	}
	if bg := s.Background; bg.Kind == BackgroundImage && bg.Name != catalog.StudioBackground {
		// The built-in studio is a smooth gradient drawn at 1920×1280,
		// which enlarged stays as it was; a company's own background is a
		// photo or artwork, and enlarged it is soft beside the car (a
		// 1920-pixel background under a 12 MP photo's 4032-pixel canvas).
		if sc := bg.ImageScale * s.outputScale(); sc > maxEnlargement {
			size := s.outputSize()
			w := int(math.Ceil(sc * float64(bg.Image.Rect.Dx()) / maxEnlargement))
			out = append(out, showroom.Warning{Code: showroom.WarnBackgroundEnlarged,
				Message: fmt.Sprintf("the background %q (%d×%d) is enlarged %.1f times in the %d×%d result, so it may look soft: upload one at least %d pixels wide",
					bg.Name, bg.Image.Rect.Dx(), bg.Image.Rect.Dy(), sc, size.X, size.Y, w)})
		}
	}
	return out
}

// outputScale returns how much ResizeProcessor scales the canvas, 1
// without it: with both sides given, contain scales by the smaller of the
// two factors, cover by the larger (it crops the rest), and fill stretches
// each axis by its own, of which the larger is the enlargement that shows.
func (s *Scene) outputScale() float64 {
	if s.Output == nil || s.Canvas.X == 0 || s.Canvas.Y == 0 {
		return 1
	}
	sz := s.outputSize()
	fx, fy := float64(sz.X)/float64(s.Canvas.X), float64(sz.Y)/float64(s.Canvas.Y)
	if s.Output.Fit == FitContain && s.Output.Width > 0 && s.Output.Height > 0 {
		return math.Min(fx, fy)
	}
	return math.Max(fx, fy)
}

// treatsWindows reports whether SemiTransparentWindowsProcessor ran with
// settings that change how glass looks: at windowTransparency 0 and
// windowBrightness 1 found glass is drawn as photographed anyway.
func (s *Scene) treatsWindows() bool {
	return s.Glass != nil && (s.WindowTransparency > 0 || s.WindowBrightness != 1)
}

// anyGlass reports whether the glass layer holds a pixel that is at least
// half glass, the share at which the glass scores count a pixel glass.
func anyGlass(g *image.Gray) bool {
	for _, v := range g.Pix {
		if v >= 128 {
			return true
		}
	}
	return false
}

// cutSides returns the borders of the photo ("left", "top", "right",
// "bottom") along which the car in box runs: cutEdges in words.
func cutSides(matte *image.Gray, box image.Rectangle) []string {
	return cutEdges(matte, box).sides()
}

// joinSides says sides in words: "left edge", "left and bottom edges".
func joinSides(sides []string) string {
	switch len(sides) {
	case 1:
		return sides[0] + " edge"
	default:
		return strings.Join(sides[:len(sides)-1], ", ") + " and " + sides[len(sides)-1] + " edges"
	}
}

// tyreTilt returns the angle of the line through the car's tyres' contact
// points in the photo (as Ground.Tilt: positive when the right end is
// lower), when two tyres are found standing on the floor far enough apart
// (minTiltSpread) for the line to be the photo's tilt; measured whether or
// not a processor levelled it.
func tyreTilt(s *Scene) (float64, bool) {
	g := s.workGrid()
	l, r, ok := wheelContacts(g, g.toWork(s.Box))
	if !ok {
		return 0, false
	}
	l, r = Point{l.X / g.sx, l.Y / g.sy}, Point{r.X / g.sx, r.Y / g.sy}
	if float64(s.Box.Max.Y)-math.Min(l.Y, r.Y) > maxRise*float64(s.Box.Dy()) {
		return 0, false // not two tyres on the floor (standOnWheels says why)
	}
	if r.X-l.X < minTiltSpread*float64(s.Box.Dx()) {
		return 0, false // a three-quarter view's perspective, not a tilt
	}
	return GroundLine{Left: l, Right: r}.Tilt(), true
}
