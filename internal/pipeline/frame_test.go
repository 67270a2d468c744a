package pipeline

import (
	"context"
	"fmt"
	"image"
	"math"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/showroom"
)

// TestNeverSmallerThanThePhoto: without an explicit size, every predefined
// configuration's output has a long side at least the photo's, as
// remove.bg and Photoroom keep the input's size (an 854x480 street photo
// came out 224x149 through default_showroom); an explicit size stays exact.
func TestNeverSmallerThanThePhoto(t *testing.T) {
	for _, size := range [][2]int{{854, 480}, {768, 512}, {480, 640}} {
		car := drawncar.New(size[0], size[1], 0)
		e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{StudioBackground: builtinart.Studio(StudioWidth/4, StudioHeight/4)})
		long := max(size[0], size[1])
		for _, c := range PredefinedConfigurations() {
			steps, err := DecodeSteps(c.Processors)
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, e, car, steps...)
			if got := max(out.Rect.Dx(), out.Rect.Dy()); got < long {
				t.Errorf("%s on a %dx%d photo: output %dx%d, long side under %d", c.Name, size[0], size[1], out.Rect.Dx(), out.Rect.Dy(), long)
			}
		}
		for _, steps := range [][]Step{
			{det(), {"processorName": AddBackgroundAndCrop, "background": StudioBackground, "outputWidth": 300.0}},
			{det(), {"processorName": PlaceCar}, {"processorName": Resize, "width": 300.0}},
		} {
			if out := render(t, e, car, steps...); out.Rect.Dx() != 300 {
				t.Errorf("%s with width 300 on a %dx%d photo: output %dx%d", steps[1].Name(), size[0], size[1], out.Rect.Dx(), out.Rect.Dy())
			}
		}
	}
}

// TestDefaultSizeStaysWithinTheLimit: scaling a default canvas up to a
// wide photo's long side never takes it past the output limit, so a photo
// that was accepted is never refused for the size the pipeline chose.
func TestDefaultSizeStaysWithinTheLimit(t *testing.T) {
	for _, tt := range []struct {
		w, h         float64
		photo        [2]int
		limit        int64
		wantW, wantH float64
	}{
		{480, 320, [2]int{854, 480}, 1 << 26, 854, 569},
		{1920, 1280, [2]int{854, 480}, 1 << 26, 1920, 1280},
		{1920, 1280, [2]int{20000, 2000}, 40_000_000, 7746, 5163},
	} {
		w, h := notSmallerThan(tt.w, tt.h, image.Pt(tt.photo[0], tt.photo[1]), tt.limit)
		if w != tt.wantW || h != tt.wantH || int64(w*h) > tt.limit {
			t.Errorf("%vx%v for a %v photo: %vx%v, want %vx%v", tt.w, tt.h, tt.photo, w, h, tt.wantW, tt.wantH)
		}
	}
}

// placedConfigs are the predefined configurations that place the car on
// a canvas of their own, with their steps.
func placedConfigs(tb testing.TB) map[string][]Step {
	tb.Helper()
	out := map[string][]Step{}
	for _, name := range []string{"default_white", "default_showroom"} {
		c, _ := PredefinedConfiguration(name)
		steps, err := DecodeSteps(c.Processors)
		if err != nil {
			tb.Fatal(err)
		}
		out[name] = steps
	}
	return out
}

// TestFrameFillsAlikeWhateverTheView: a side view and a three-quarter view
// seen from above (whose near wheels stand well below its far ones) fill
// the frame alike: their box covers minFill to maxFill of the canvas in
// its binding dimension and touches no side. The three-quarter view used
// to be fitted into the studio's floor at 0.57 of the canvas (and its far
// tyre stood on the wall).
func TestFrameFillsAlikeWhateverTheView(t *testing.T) {
	for _, car := range []struct {
		name string
		car  *drawncar.Car
	}{{"side view", drawncar.New(600, 400, 0)}, {"three-quarter view", drawncar.RaisedThreeQuarterAt(600, 400, 0.97)}} {
		e := newTestEngine(t, &fakeSegmenter{car: car.car}, &BuiltinContent{})
		for name, steps := range placedConfigs(t) {
			f := measureFrame(scene(t, e, car.car, steps...))
			if f.fill < minFill || f.fill > maxFill {
				t.Errorf("%s through %s: the car covers %.3f of the canvas, want %.2f-%.2f", car.name, name, f.fill, minFill, maxFill)
			}
			for i, g := range f.gap {
				if g < 0.01 {
					t.Errorf("%s through %s: the car is %.3f from the canvas's %s side", car.name, name, g, [4]string{"left", "top", "right", "bottom"}[i])
				}
			}
		}
	}
}

// TestCutCarOnTheCanvasEdge: a car the photo cuts (its tyres sliced at
// the bottom, its front or back cut off at a side) is placed with the cut
// on the canvas's edge, running out of the picture as it ran out of the
// photo, not as a slice in the middle of the floor with a shadow under
// the cut; its other sides keep clear of the canvas's.
func TestCutCarOnTheCanvasEdge(t *testing.T) {
	car := drawncar.New(600, 400, 0)
	w, h := 600, 400
	for _, crop := range []struct {
		name string
		r    image.Rectangle
		want edges
	}{
		{"tyres sliced at the bottom", image.Rect(0, 0, w, int(0.76*float64(h))), edges{bottom: true}},
		{"front cut on the left", image.Rect(w/4, 0, w, h), edges{left: true}},
		{"back cut on the right", image.Rect(0, 0, w*3/4, h), edges{right: true}},
		{"cut on the left and at the bottom", image.Rect(w/4, 0, w, int(0.76*float64(h))), edges{left: true, bottom: true}},
		// Taller than the studio's shape: at its shape one cut edge stood
		// in the middle of the floor (glass-more's 060, a close front view).
		{"cut on the left and on the right", image.Rect(w/3, 0, w*2/3, h), edges{left: true, right: true}},
	} {
		cut := drawncar.Crop(car, crop.r)
		e := newTestEngine(t, &fakeSegmenter{car: cut}, &BuiltinContent{})
		for name, steps := range placedConfigs(t) {
			s := scene(t, e, cut, steps...)
			f := measureFrame(s)
			if f.cut != crop.want {
				t.Fatalf("%s: cut at %v, want %v", crop.name, f.cut, crop.want)
			}
			if msg := f.problem(); msg != "" {
				t.Errorf("%s through %s: %s (gaps %.3f)", crop.name, name, msg, f.gap)
			}
			if !crop.want.bottom {
				continue
			}
			// The sliced tyres reach the canvas's last row (mixed with
			// the floor there by the sub-pixel sampling of the edge).
			out := render(t, e, cut, steps...)
			tyre := 0
			for x := range out.Rect.Dx() {
				if c := at(out, x, out.Rect.Dy()-1); c.R < 130 && c.G < 130 && c.B < 130 {
					tyre++
				}
			}
			if tyre == 0 {
				t.Errorf("%s through %s: no sliced tyre on the canvas's bottom row", crop.name, name)
			}
		}
	}
}

// TestCutCarsFarWheelsOnTheFloor: a three-quarter view from a high
// camera whose near wheels the photo cuts stands on the canvas's bottom
// edge, as large as the margins allow; its far wheels, high in the
// picture, stood on the studio's wall (three of glass-more's photos cut at
// the bottom, up to 0.16 of the canvas above the line). The floor is
// deepened under them instead.
func TestCutCarsFarWheelsOnTheFloor(t *testing.T) {
	full := drawncar.RaisedThreeQuarterAt(600, 400, 0.97)
	cut := drawncar.Crop(full, image.Rect(0, 0, 600, int(full.Contacts[0].Y)-20))
	e := newTestEngine(t, &fakeSegmenter{car: cut}, &BuiltinContent{})
	s := scene(t, e, cut, placedConfigs(t)["default_showroom"]...)
	f := measureFrame(s)
	if !f.cut.bottom {
		t.Fatalf("cut at %v, want the bottom", f.cut)
	}
	if msg := f.problem(); msg != "" {
		t.Errorf("%s (far wheels %+.3f of the canvas below the wall line)", msg, f.belowWall)
	}
}

// TestCarCutByALittleOnTheCanvasEdge: the model's answer fades over the
// last pixels before the photo's border (it sees the border as an edge), so
// a car the photo cuts can end a pixel or two short of it, the matte there
// under half. Cut by a little or a lot, the cut side lies on the canvas's
// edge (the shadow under it runs out of the picture with it); a car short
// of the border by more than that fade is not cut.
func TestCarCutByALittleOnTheCanvasEdge(t *testing.T) {
	full := drawncar.New(600, 400, 0)
	left, bottom := full.Box.Min.X, int(full.Contacts[0].Y)
	for _, c := range []struct {
		name string
		r    image.Rectangle
		side int // 0 left, 3 bottom
		want edges
	}{
		{"front cut by 3 px", image.Rect(left+3, 0, 600, 400), 0, edges{left: true}},
		{"front cut by a third", image.Rect(left+150, 0, 600, 400), 0, edges{left: true}},
		{"tyres sliced by 3 px", image.Rect(0, 0, 600, bottom-3), 3, edges{bottom: true}},
		{"front 6 px from the border", image.Rect(left-6, 0, 600, 400), 0, edges{}},
	} {
		car := drawncar.Crop(full, c.r)
		// The fade: the last two rows or columns at a quarter and a half
		// of the car's coverage.
		m := car.Matte
		W, H := m.Rect.Dx(), m.Rect.Dy()
		for i, k := range []float64{0.25, 0.5} {
			if c.side == 0 {
				for y := range H {
					m.Pix[y*m.Stride+i] = uint8(float64(m.Pix[y*m.Stride+i]) * k)
				}
			} else {
				row := m.Pix[(H-1-i)*m.Stride : (H-1-i)*m.Stride+W]
				for x := range row {
					row[x] = uint8(float64(row[x]) * k)
				}
			}
		}
		e := newTestEngine(t, &fakeSegmenter{car: car}, &BuiltinContent{})
		for name, steps := range placedConfigs(t) {
			s := scene(t, e, car, steps...)
			f := measureFrame(s)
			if f.cut != c.want {
				t.Errorf("%s through %s: cut at %v, want %v", c.name, name, f.cut, c.want)
				continue
			}
			if msg := f.problem(); msg != "" {
				t.Errorf("%s through %s: %s (gaps %.3f)", c.name, name, msg, f.gap)
			}
		}
	}
}

// TestTiltedPhotoLevelled: a car photographed with the camera turned by
// 3 degrees comes out standing level through the predefined
// configurations, and TILTED says the angle the levelling used.
func TestTiltedPhotoLevelled(t *testing.T) {
	const deg = math.Pi / 180
	for _, tilt := range []float64{3, -3.5} {
		car := drawncar.New(600, 400, tilt*deg)
		e := newTestEngine(t, &fakeSegmenter{car: car}, &BuiltinContent{})
		for name, steps := range placedConfigs(t) {
			s := scene(t, e, car, steps...)
			if s.Level == 0 {
				t.Errorf("tilted %.1f° through %s: not levelled", tilt, name)
				continue
			}
			if got := -s.Level / deg; math.Abs(got-tilt) > 0.5 {
				t.Errorf("tilted %.1f° through %s: levelled by %.2f°", tilt, name, got)
			}
			out := render(t, e, car, steps...)
			c, ok := tyres(out)
			if !ok {
				t.Fatalf("tilted %.1f° through %s: no tyres in the output", tilt, name)
			}
			if d := c[1].Y - c[0].Y; math.Abs(d) > 1.5 {
				t.Errorf("tilted %.1f° through %s: the tyres stand %.1f px apart in height, want level", tilt, name, d)
			}
			res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, steps...),
				Photo: pngBytes(t, car.Photo), Format: FormatPNG})
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("turned %.1f degrees", math.Abs(s.Level)/deg)
			found := false
			for _, w := range res.Warnings {
				found = found || (w.Code == showroom.WarnTilted && strings.Contains(w.Message, want))
			}
			if !found {
				t.Errorf("tilted %.1f° through %s: warnings %+v, want TILTED saying %q", tilt, name, res.Warnings, want)
			}
		}
	}
}

// TestFarWheelsBelowTheWallLine: in a three-quarter view seen from above,
// the far front tyre peeking out under the sill stands higher in the
// picture than either end's lowest point; placed in the studio it still
// stands on the floor, below the wall–floor line, not on the wall.
func TestFarWheelsBelowTheWallLine(t *testing.T) {
	car := drawncar.RaisedThreeQuarter(600, 400)
	e := newTestEngine(t, &fakeSegmenter{car: car}, &BuiltinContent{})
	for _, steps := range [][]Step{
		placedConfigs(t)["default_showroom"],
		{det(), {"processorName": AddBackgroundAndCrop, "background": StudioBackground, "horizonLine": StudioHorizon,
			"outputWidth": 1200.0, "outputHeight": 800.0}},
		{det(), {"processorName": AddBackgroundAndCrop, "background": StudioBackground, "horizonLine": StudioHorizon,
			"outputWidth": 800.0, "outputHeight": 800.0}},
	} {
		s := scene(t, e, car, steps...)
		far := s.Place.forward(Point(car.Contacts[1]))
		if far.Y <= s.Floor {
			t.Errorf("%v: the far tyre stands at row %.0f, on the wall (the floor starts at %.0f)", steps[len(steps)-1], far.Y, s.Floor)
		}
	}
}

// TestShadowFadesWhereThePhotoCutsIt: a photographed shadow running out
// of the photo at a side or at the bottom, where the car itself does not,
// fades out towards that edge instead of ending in a straight line (on a
// canvas larger than the photo, a grey box).
func TestShadowFadesWhereThePhotoCutsIt(t *testing.T) {
	full, _ := drawncar.NewAsphalt(false)
	w, h := full.Photo.Rect.Dx(), full.Photo.Rect.Dy()
	for _, crop := range []struct {
		name string
		r    image.Rectangle
	}{
		// The cast shadow reaches 0.92 of the width, the car 0.86.
		{"right", image.Rect(0, 0, int(0.89*float64(w)), h)},
		// The shadow reaches 0.06 of the height below the tyres.
		{"bottom", image.Rect(0, 0, w, int(full.Contacts[0].Y+0.035*float64(h)))},
	} {
		car := drawncar.Crop(full, crop.r)
		e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
		s := scene(t, e, car, det(), Step{"processorName": DetectCarShadow})
		if s.Shadow == nil {
			t.Fatalf("%s: no shadow found", crop.name)
		}
		if c := cutEdges(s.Matte, s.Box); c != (edges{}) {
			t.Fatalf("%s: the car itself is cut at %v", crop.name, c)
		}
		d := *s.Shadow
		g := s.workGrid()
		box := g.toWork(s.Box)
		// Near the edge: within 4% of the car's length (sideways) or 4% of
		// its height (at the bottom) of it, a fade too short to see as
		// anything but a straight edge.
		nx, ny := int(0.04*float64(box.Dx())), int(0.04*float64(box.Dy()))
		var inside, edge, near float32
		for y := range d.H {
			for x := range d.W {
				v := d.Pix[y*d.W+x]
				inside = max(inside, v)
				if (crop.name == "right" && x == d.W-1) || (crop.name == "bottom" && y == d.H-1) {
					edge = max(edge, v)
				}
				if (crop.name == "right" && x >= d.W-1-nx) || (crop.name == "bottom" && y >= d.H-1-ny) {
					near = max(near, v)
				}
			}
		}
		if inside < 0.3 || edge > 0.05*inside || near > 0.5*inside {
			t.Errorf("cut at the %s: shadow %.2f at the photo's edge, up to %.2f near it, %.2f at its darkest: want it faded out gradually towards the edge",
				crop.name, edge, near, inside)
		}
	}
}
