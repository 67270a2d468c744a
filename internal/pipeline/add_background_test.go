package pipeline

import (
	"context"
	"image"
	"image/color"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/showroom"
)

// twoTone is a background with a known horizon: dark wall above, green
// floor below.
func twoTone(w, h int, horizon float64) *image.NRGBA {
	return wallAndFloor(w, h, horizon, color.NRGBA{40, 40, 40, 255}, color.NRGBA{0, 90, 0, 255})
}

// wallAndFloor is a w×h background of wall above the horizon (a fraction
// of the height) and floor below it.
func wallAndFloor(w, h int, horizon float64, wall, floor color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		c := wall
		if float64(y)+0.5 >= horizon*float64(h) {
			c = floor
		}
		for x := range w {
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func TestAddBackgroundAndCrop(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{"studio": twoTone(800, 600, 0.7)})
	tests := []struct {
		name          string
		step          Step
		width, height int
	}{
		{"background's size", Step{"outputWidth": 800.0, "outputHeight": 600.0}, 800, 600},
		{"wider output", Step{"outputWidth": 1000.0, "outputHeight": 400.0}, 1000, 400},
		{"width only", Step{"outputWidth": 400.0}, 400, 300},
		{"wide margins", Step{"marginLeft": 0.45, "marginRight": 0.3, "marginTop": 0.2, "outputWidth": 800.0}, 800, 600},
		{"no margins", Step{"marginLeft": 0.0, "marginRight": 0.0, "marginTop": 0.0, "marginBottom": 0.0, "outputWidth": 800.0}, 800, 600},
		{"low horizon", Step{"horizonLine": 0.95, "marginBottom": 0.0, "outputWidth": 800.0}, 800, 600},
		{"no floor inside the margins", Step{"horizonLine": 0.97, "marginBottom": 0.1, "outputWidth": 800.0}, 800, 600},
		{"tall output", Step{"outputWidth": 300.0, "outputHeight": 600.0}, 300, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Step{"processorName": AddBackgroundAndCrop, "background": "studio", "horizonLine": 0.7}
			for k, v := range tt.step {
				st[k] = v
			}
			p := stepParams[catalog.AddBackgroundParams](t, st)
			out := render(t, e, car, det(), st)
			if out.Rect.Dx() != tt.width || out.Rect.Dy() != tt.height {
				t.Fatalf("output %v, want %dx%d", out.Rect.Size(), tt.width, tt.height)
			}
			W, H := float64(tt.width), float64(tt.height)
			// The car: pixels that are neither wall nor floor.
			r := image.Rectangle{}
			for y := range tt.height {
				for x := range tt.width {
					c := at(out, x, y)
					// Wall, floor, or the resampled blend of the two along
					// the horizon.
					blend := absDiff(c.R, c.B) <= 3 && c.R <= 42 && c.G >= 38 && c.G <= 92
					if !blend && !near(c, color.NRGBA{40, 40, 40, 255}, 6) && !near(c, color.NRGBA{0, 90, 0, 255}, 6) {
						r = r.Union(image.Rect(x, y, x+1, y+1))
					}
				}
			}
			ml, mr, mt, mb := p.MarginLeft, p.MarginRight, p.MarginTop, p.MarginBottom
			if float64(r.Min.X) < ml*W-1 || float64(r.Max.X) > (1-mr)*W+1 || float64(r.Min.Y) < mt*H-1 || float64(r.Max.Y) > (1-mb)*H+1 {
				t.Errorf("car at %v, outside the margins of %.0fx%.0f (%.2f %.2f %.2f %.2f)", r, W, H, ml, mr, mt, mb)
			}
			// It touches a margin (as large as allowed) and stands on the
			// floor, below the horizon by a share of its height or of the
			// floor, unless the margins leave no floor: then on the bottom
			// margin.
			touches := math.Abs(float64(r.Min.X)-ml*W) <= 2 || math.Abs(float64(r.Min.Y)-mt*H) <= 2 ||
				math.Abs(float64(r.Max.X)-(1-mr)*W) <= 2 || math.Abs(float64(r.Max.Y)-(1-mb)*H) <= 2
			if !touches {
				t.Errorf("car at %v does not fill the margins", r)
			}
			horizon := p.HorizonLine * H
			room := (1-mb)*H - horizon
			if room <= 0 {
				if math.Abs(float64(r.Max.Y)-(1-mb)*H) > 4 {
					t.Errorf("car's ground at y=%d, want the bottom margin %.0f", r.Max.Y, (1-mb)*H)
				}
			} else if want := horizon + math.Min(0.1*float64(r.Dy()), 0.25*room); float64(r.Max.Y) < want {
				t.Errorf("car's ground at y=%d, want at least %.0f (horizon at %.0f)", r.Max.Y, want, horizon)
			}
		})
	}
}

func TestAddBackgroundAndCropMissingContent(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{})
	_, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, det(),
		Step{"processorName": AddBackgroundAndCrop, "background": "gone"}), Photo: pngBytes(t, car.Photo)})
	errCode(t, err, showroom.EContentNotFound)
}

// studio is a light background with a known wall–floor line: grey wall
// above, pale green floor below, so a test tells floor from wall (and a
// shadow on the floor from one on the wall) by colour.
func studio(w, h int, horizon float64) *image.NRGBA {
	return wallAndFloor(w, h, horizon, color.NRGBA{220, 220, 220, 255}, color.NRGBA{150, 200, 150, 255})
}

// isFloor reports whether c is the studio's floor, shaded or not.
func isFloor(c color.NRGBA) bool { return int(c.G) > int(c.R)+12 && int(c.G) > int(c.B)+12 }

// isWall reports whether c is the studio's wall, untouched.
func isWall(c color.NRGBA) bool { return near(c, color.NRGBA{220, 220, 220, 255}, 3) }

// tyres returns, for the synthetic car's left and right wheel as rendered,
// the row just below the lowest tyre pixel (where the tyre meets the
// ground) and the middle of that run; ok is false when a wheel is not
// seen.
func tyres(img *image.NRGBA) (contacts [2]Point, ok bool) {
	dark := func(c color.NRGBA) bool { return c.R < 70 && c.G < 70 && c.B < 75 && c.A > 200 }
	minX, maxX := img.Rect.Dx(), -1
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			if dark(at(img, x, y)) {
				minX, maxX = min(minX, x), max(maxX, x)
			}
		}
	}
	if maxX < 0 {
		return contacts, false
	}
	mid := (minX + maxX) / 2
	for i, span := range [2][2]int{{minX, mid}, {mid, maxX + 1}} {
		low, sum, n := -1, 0, 0
		for y := range img.Rect.Dy() {
			for x := span[0]; x < span[1]; x++ {
				if !dark(at(img, x, y)) {
					continue
				}
				if y > low {
					low, sum, n = y, 0, 0
				}
				sum, n = sum+x, n+1
			}
		}
		if low < 0 {
			return contacts, false
		}
		contacts[i] = Point{float64(sum)/float64(n) + 0.5, float64(low + 1)}
	}
	return contacts, true
}

// carBounds returns the bounds of what is neither the studio's wall nor
// its floor: the car.
func carBounds(img *image.NRGBA) image.Rectangle {
	r := image.Rectangle{}
	for y := range img.Rect.Dy() {
		for x := range img.Rect.Dx() {
			if c := at(img, x, y); !isWall(c) && !isFloor(c) {
				r = r.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return r
}

// TestStudioCarStandsOnTheFloor puts a side view and a view with the far
// wheel higher (as seen from the side and a little above) into a studio:
// each tyre must meet the floor well below the wall–floor line, the far
// wheel higher than the near one by what the photo shows, the car inside
// the margins, and its shadow on the floor only.
func TestStudioCarStandsOnTheFloor(t *testing.T) {
	const W, H, horizon = 960, 640, 0.7
	for _, tt := range []struct {
		name string
		car  *drawncar.Car
	}{
		{"side view", drawncar.NewInView(480, 300, 0, 0)},
		{"far wheel higher", drawncar.NewInView(480, 300, 0, 0.05)},
		{"slightly tilted", drawncar.NewInView(480, 300, 2*math.Pi/180, 0)},
		{"front view", frontView(480, 300, 0.82, 0.76)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			car := tt.car
			e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{"studio": studio(W, H, horizon)})
			out := render(t, e, car, det(), Step{"processorName": DetectCarShadow},
				Step{"processorName": AddBackgroundAndCrop, "background": "studio", "horizonLine": horizon,
					"outputWidth": float64(W), "outputHeight": float64(H)},
				Step{"processorName": PlaceShadow, "opacity": 1.0})
			c, ok := tyres(out)
			if !ok {
				t.Fatal("no tyres in the output")
			}
			r := carBounds(out)
			line := horizon * H
			far, near := c[0], c[1]
			if far.Y > near.Y {
				far, near = near, far
			}
			// Floor between the wall and the far tyre: a tenth of the
			// car's height is a few metres of floor in a studio.
			if gap := far.Y - line; gap < 0.1*float64(r.Dy()) {
				t.Errorf("far tyre meets the ground %.0f px below the wall line, want at least %.0f (car %v)", gap, 0.1*float64(r.Dy()), r)
			}
			for _, p := range c {
				if below := at(out, int(p.X), int(p.Y)+2); !isFloor(below) {
					t.Errorf("under the tyre at (%.0f,%.0f) is %v, not floor", p.X, p.Y, below)
				}
			}
			// The photographed perspective is kept: the far wheel stands
			// higher by the photo's difference, scaled; a tilted photo
			// (two tyres half the car's width apart or more, their line
			// off by up to maxLevel) is levelled.
			scale := float64(r.Dx()) / float64(car.Box.Dx())
			want := math.Abs(car.Contacts[1].Y-car.Contacts[0].Y) * scale
			if car.Tilt != 0 {
				want = 0
			}
			if math.Abs((near.Y-far.Y)-want) > 0.25*want+3 {
				t.Errorf("near tyre %.0f px below the far one, want %.0f", near.Y-far.Y, want)
			}
			p := stepParams[catalog.AddBackgroundParams](t, Step{"processorName": AddBackgroundAndCrop, "background": "studio"})
			ml, mr, mt, mb := p.MarginLeft, p.MarginRight, p.MarginTop, p.MarginBottom
			if float64(r.Min.X) < ml*W-1 || float64(r.Max.X) > (1-mr)*W+1 || float64(r.Min.Y) < mt*H-1 || float64(r.Max.Y) > (1-mb)*H+1 {
				t.Errorf("car at %v, outside the margins", r)
			}
			// The shadow is on the floor: above the cove the wall is
			// untouched wherever the car is not.
			for y := 0; y < int(line-0.012*H)-3; y++ {
				for x := 0; x < W; x++ {
					if (image.Point{x, y}).In(r) {
						continue
					}
					if c := at(out, x, y); !isWall(c) {
						t.Fatalf("wall at (%d,%d) is %v", x, y, c)
					}
				}
			}
		})
	}
}

// frontView draws a car seen from the front on a w×h photo: a body, and
// under its sides two tyres reaching down to row tyres·h (a share of the
// height), the bumper between them down to bumper·h. With tyres above the
// bumper it is a car whose wheels do not show.
func frontView(w, h int, tyres, bumper float64) *drawncar.Car {
	fw, fh := float64(w), float64(h)
	c := &drawncar.Car{Photo: image.NewNRGBA(image.Rect(0, 0, w, h)), Matte: image.NewGray(image.Rect(0, 0, w, h)),
		Body: color.NRGBA{190, 30, 35, 255}}
	for y := range h {
		for x := range w {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			p := color.NRGBA{225, 225, 228, 255}
			side := fx > 0.2*fw && fx < 0.32*fw || fx > 0.68*fw && fx < 0.8*fw
			switch {
			case side && fy > 0.5*fh && fy < tyres*fh:
				p = color.NRGBA{28, 28, 30, 255}
			case fx > 0.15*fw && fx < 0.85*fw && fy > 0.25*fh && fy < bumper*fh:
				p = c.Body
			}
			c.Photo.SetNRGBA(x, y, p)
			if p != (color.NRGBA{225, 225, 228, 255}) {
				c.Matte.SetGray(x, y, color.Gray{255})
				c.Box = c.Box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	c.Contacts = [2]drawncar.Point{{X: 0.26 * fw, Y: tyres * fh}, {X: 0.74 * fw, Y: tyres * fh}}
	return c
}

// TestStudioCarWithoutWheelsStandsOnItsBottom: when no wheels show, the
// lowest part of the car stands where the far wheels would.
func TestStudioCarWithoutWheelsStandsOnItsBottom(t *testing.T) {
	const W, H, horizon = 960, 640, 0.7
	car := frontView(480, 300, 0.7, 0.76)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{"studio": studio(W, H, horizon)})
	out := render(t, e, car, det(), Step{"processorName": AddBackgroundAndCrop, "background": "studio",
		"horizonLine": horizon, "outputWidth": float64(W), "outputHeight": float64(H)})
	r := carBounds(out)
	if gap := float64(r.Max.Y) - horizon*H; gap < 0.1*float64(r.Dy()) {
		t.Errorf("car's bottom %.0f px below the wall line, want at least %.0f (car %v)", gap, 0.1*float64(r.Dy()), r)
	}
	if r.Min.Y < int(0.05*H)-1 || r.Max.Y > int(0.95*H)+1 {
		t.Errorf("car at %v, outside the margins", r)
	}
}

// TestAddBackgroundDoesNotEnlargeTheCar: with no output size the canvas
// is made as small as keeps the car at its photographed pixels, with the
// same composition, but never with a long side under the photo's (the car
// is then enlarged); an explicit size is honoured exactly.
func TestAddBackgroundDoesNotEnlargeTheCar(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{
		"big": studio(1600, 1200, 0.7), "small": studio(320, 240, 0.7)})
	for _, tt := range []struct {
		name          string
		step          Step
		width, height int // 0: not larger than the car's pixels allow
	}{
		{"large background", Step{"background": "big"}, 0, 0},
		{"background smaller than the photo", Step{"background": "small"}, 480, 360},
		{"explicit size enlarges", Step{"background": "big", "outputWidth": 1600.0, "outputHeight": 1200.0}, 1600, 1200},
		{"explicit width", Step{"background": "big", "outputWidth": 1000.0}, 1000, 750},
		{"explicit small width", Step{"background": "big", "outputWidth": 200.0}, 200, 150},
		{"explicit height", Step{"background": "small", "outputHeight": 900.0}, 1200, 900},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := Step{"processorName": AddBackgroundAndCrop, "horizonLine": 0.7}
			for k, v := range tt.step {
				st[k] = v
			}
			out := render(t, e, car, det(), st)
			w, h := out.Rect.Dx(), out.Rect.Dy()
			r := carBounds(out)
			if tt.width != 0 {
				if w != tt.width || h != tt.height {
					t.Fatalf("output %dx%d, want %dx%d", w, h, tt.width, tt.height)
				}
				return
			}
			if w < 480 || w >= 1600 || math.Abs(float64(w)/float64(h)-4.0/3) > 0.01 {
				t.Errorf("output %dx%d, want 480 to 1600 wide and as wide as the background", w, h)
			}
			if r.Dx() > car.Box.Dx()+1 && w > 480 {
				t.Errorf("car %v in the output, enlarged from %v on a canvas larger than the photo", r.Size(), car.Box.Size())
			}
			// As large as the margins allow: the car is not shrunk either.
			if r.Dx() < car.Box.Dx()-2 {
				t.Errorf("car %v in the output, shrunk from %v", r.Size(), car.Box.Size())
			}
		})
	}
}

// TestStudioPlacementOnDevPhotos places the dev photos' cars, cut out by
// their hand-made masks (no model needed), into the built-in studio as
// default_showroom does, and checks where they land on the canvas: both
// ends of the car's lower edge (the wheels of a side view, the near and
// far wheels of a three-quarter view, the two front wheels of a front
// view) below the wall–floor line, the car inside the margins and not
// enlarged beyond its photographed pixels.
func TestStudioPlacementOnDevPhotos(t *testing.T) {
	masks, _ := filepath.Glob("../../../shared/testdata/cars/*.mask.png")
	if len(masks) == 0 {
		t.Skip("skipping: ../shared/testdata/cars is not there (the photos are not in the repository)")
	}
	e := newTestEngine(t, &fakeSegmenter{car: testCar(t)}, &BuiltinContent{})
	step := newAddBackground(catalog.AddBackgroundParams{Background: StudioBackground, HorizonLine: StudioHorizon,
		MarginLeft: 0.05, MarginRight: 0.05, MarginTop: 0.05, MarginBottom: 0.05})
	for _, m := range masks {
		name := strings.TrimSuffix(filepath.Base(m), ".mask.png")
		img := readPhoto(t, strings.TrimSuffix(m, ".mask.png")+".jpg")
		s := NewScene(img)
		mask := readAnnotation(t, m)
		s.setCar(mask, matteBounds(mask, 127), nil)
		if err := step.apply(context.Background(), &run{e: e}, s); err != nil {
			t.Fatal(err)
		}
		W, H := float64(s.Canvas.X), float64(s.Canvas.Y)
		// The wall line where the studio was put: raised, the background
		// enlarged about its bottom, for a car that needs more floor.
		line := s.Floor
		// The car's lower edge on the canvas, column by column.
		b := s.Box
		var lows []Point
		for x := b.Min.X; x < b.Max.X; x++ {
			for y := b.Max.Y - 1; y >= b.Min.Y; y-- {
				if mask.GrayAt(x, y).Y > 127 {
					lows = append(lows, s.Place.forward(Point{float64(x) + 0.5, float64(y + 1)}))
					break
				}
			}
		}
		top := s.Place.forward(Point{float64(b.Min.X), float64(b.Min.Y)})
		bottom := s.Place.forward(Point{float64(b.Max.X), float64(b.Max.Y)})
		carH := bottom.Y - top.Y
		n := len(lows) * 3 / 10
		for _, end := range [][]Point{lows[:n], lows[len(lows)-n:]} {
			low := 0.0
			for _, p := range end {
				low = math.Max(low, p.Y)
			}
			if low < line+0.05*carH {
				t.Errorf("%s: an end of the car meets the ground at y=%.0f, the wall line is at %.0f (car %.0f px high)", name, low, line, carH)
			}
		}
		// Inside the margins, but on a side the photo cuts the car at
		// (that side on the canvas's edge, TestCutCarOnTheCanvasEdge); the
		// near wheels may use the bottom margin down to edgeMargin.
		cut := cutEdges(s.Matte, s.Box)
		if (!cut.left && top.X < 0.05*W-1) || (!cut.right && bottom.X > 0.95*W+1) ||
			(!cut.top && top.Y < 0.05*H-1) || (!cut.bottom && bottom.Y > (1-edgeMargin)*H+1) {
			t.Errorf("%s: car at %v–%v, outside the margins of %.0fx%.0f", name, top, bottom, W, H)
		}
		if long := max(img.Rect.Dx(), img.Rect.Dy()); max(s.Canvas.X, s.Canvas.Y) < long {
			t.Errorf("%s: a %.0fx%.0f canvas, smaller than the photo's %v", name, W, H, img.Rect.Size())
		}
	}
}

// TestThumbnailFloorGap pins builtinart's copy of floorGap to the one
// AddBackgroundAndCrop stands cars by, so the studio thumbnail shows the
// car where the processor puts it.
func TestThumbnailFloorGap(t *testing.T) {
	if builtinart.FloorGap != floorGap {
		t.Errorf("builtinart.FloorGap = %v, want the pipeline's floorGap %v", builtinart.FloorGap, floorGap)
	}
}
