package pipeline

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/maskcache"
	"github.com/showroom/showroom/internal/vision"
)

// TestFramingOnPhotos places every dev, glass and 12 MP photo of
// ../shared/testdata (the gallery's sets) through default_white and
// default_showroom and checks the frame: the output is no smaller than the
// photo; the car's box covers minFill to maxFill of the canvas in its
// binding dimension, touches no side of it where the photo does not cut
// the car, and lies on the canvas edge where it does; the far wheels stand
// below the studio's wall line. It logs each photo's numbers (go test -v)
// and a summary (SHOWROOM_FRAME_SETS=glass-more measures another set of
// ../shared/testdata). It runs only with SHOWROOM_MASK_CACHE set (as for the
// gallery, it keeps the model's runs): the model over every photo is too
// long for every test run.
func TestFramingOnPhotos(t *testing.T) {
	if os.Getenv("SHOWROOM_MASK_CACHE") == "" {
		t.Skip("skipping: set SHOWROOM_MASK_CACHE (e.g. ~/.cache/showroom/gallery-masks) to measure the framing on the photos")
	}
	// SHOWROOM_FRAME_SETS names other folders of ../shared/testdata
	// (glass-more: 283 more dealer photos, about 6 minutes of the model the
	// first time).
	sets := []string{"cars", "glass", "large"}
	if v := os.Getenv("SHOWROOM_FRAME_SETS"); v != "" {
		sets = strings.Split(v, ",")
	}
	var photos []string
	for _, dir := range sets {
		all, _ := filepath.Glob(filepath.Join("../../../shared/testdata", dir, "*.jpg"))
		photos = append(photos, all...)
	}
	if len(photos) == 0 {
		t.Skip("skipping: the photos of ../shared/testdata are not there (they are not in the repository)")
	}
	if testing.Short() {
		t.Skip("skipping: runs the model over every dev and glass photo")
	}
	seg, err := vision.New(vision.DefaultConfig(vision.DefaultModelDir()))
	if err != nil {
		t.Skipf("skipping: segmentation model not available (%v); run make models", err)
	}
	defer seg.Close()
	e := newTestEngine(t, &maskcache.Cache{Segmenter: seg, Dir: os.Getenv("SHOWROOM_MASK_CACHE")}, &BuiltinContent{})
	for _, name := range []string{"default_white", "default_showroom"} {
		c, _ := PredefinedConfiguration(name)
		_, steps, err := Parse(c.Processors)
		if err != nil {
			t.Fatal(err)
		}
		var fills []float64
		var bad []string
		cutPhotos := 0
		for _, p := range photos {
			s := NewScene(readPhoto(t, p))
			r := &run{e: e}
			for _, st := range steps {
				if err := st.apply(context.Background(), r, s); err != nil {
					t.Fatal(err)
				}
			}
			if !s.hasCar() {
				continue
			}
			f := measureFrame(s)
			fills = append(fills, f.fill)
			if f.cut != (edges{}) {
				cutPhotos++
			}
			photo := s.Photo.Rect.Size()
			t.Logf("%s %s: %dx%d -> %dx%d fill %.3f cut %v gaps %.3f %.3f %.3f %.3f far wheels %+.3f", name, filepath.Base(p),
				photo.X, photo.Y, s.Canvas.X, s.Canvas.Y, f.fill, f.cut, f.gap[0], f.gap[1], f.gap[2], f.gap[3], f.belowWall)
			msg := f.problem()
			if max(s.Canvas.X, s.Canvas.Y) < max(photo.X, photo.Y) {
				msg = strings.TrimPrefix(msg+fmt.Sprintf("; output %dx%d smaller than the photo", s.Canvas.X, s.Canvas.Y), "; ")
			}
			if msg != "" {
				bad = append(bad, filepath.Base(p)+": "+msg)
			}
		}
		slices.Sort(fills)
		mean := 0.0
		for _, v := range fills {
			mean += v / float64(len(fills))
		}
		t.Logf("%s: %d photos (%d cut by the frame), fill min %.3f median %.3f mean %.3f max %.3f; %d off frame",
			name, len(fills), cutPhotos, fills[0], fills[len(fills)/2], mean, fills[len(fills)-1], len(bad))
		for _, b := range bad {
			t.Errorf("%s: %s", name, b)
		}
	}
}

// frameMeasure is how a placed car sits on its canvas.
type frameMeasure struct {
	// fill is the share of the canvas the car's box covers in its
	// binding dimension.
	fill float64
	// cut is where the photo cuts the car; gap the space between the
	// car's box and the canvas's left, top, right and bottom sides, as a
	// share of the canvas's width or height (negative: over the edge).
	cut edges
	gap [4]float64
	// belowWall is how far the far wheels stand below the wall line, as
	// a share of the canvas height (1 when the background has none).
	belowWall float64
}

func measureFrame(s *Scene) frameMeasure {
	b := s.canvasArea(s.Box).Inset(int(math.Ceil(2 + s.Place.scale())))
	W, H := float64(s.Canvas.X), float64(s.Canvas.Y)
	f := frameMeasure{
		fill: math.Max(float64(b.Dx())/W, float64(b.Dy())/H),
		cut:  cutEdges(s.Matte, s.Box),
		gap: [4]float64{float64(b.Min.X) / W, float64(b.Min.Y) / H,
			(W - float64(b.Max.X)) / W, (H - float64(b.Max.Y)) / H},
		belowWall: 1,
	}
	if s.Floor > 0 {
		// The highest of the car's ground points and of the tyres the
		// shadow's finder sees: the far wheels.
		far := s.Place.To.Y
		g := s.workGrid()
		for _, ty := range tyreContacts(g, g.toWork(s.Box)) {
			far = math.Min(far, s.Place.forward(Point{ty.at.X / g.sx, ty.at.Y / g.sy}).Y)
		}
		f.belowWall = (far - s.Floor) / H
	}
	return f
}

// problem says what is wrong with the frame, or "".
func (f frameMeasure) problem() string {
	var out []string
	cut := [4]bool{f.cut.left, f.cut.top, f.cut.right, f.cut.bottom}
	names := [4]string{"left", "top", "right", "bottom"}
	for i, g := range f.gap {
		// A pixel's slack either way: the box is measured on whole pixels.
		const px = 0.004
		switch {
		case cut[i] && math.Abs(g) > px:
			out = append(out, fmt.Sprintf("cut at the %s but %.3f from the canvas edge", names[i], g))
		case !cut[i] && g < px:
			out = append(out, fmt.Sprintf("touches the canvas %s", names[i]))
		}
	}
	if f.cut == (edges{}) && (f.fill < minFill-0.005 || f.fill > maxFill+0.005) {
		out = append(out, fmt.Sprintf("fill %.3f outside %.2f-%.2f", f.fill, minFill, maxFill))
	}
	if f.belowWall <= 0 {
		out = append(out, fmt.Sprintf("far wheels %.3f above the wall line", -f.belowWall))
	}
	return strings.Join(out, "; ")
}
