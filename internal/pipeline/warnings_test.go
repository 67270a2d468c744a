package pipeline

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/showroom"
)

// TestWarnings: each warning a dealer sees is given for the photo that
// earns it, with the sides or numbers that say what to check, and a clean
// photo gets none (an empty list, not a missing one).
func TestWarnings(t *testing.T) {
	const deg = math.Pi / 180
	car := testCar(t)
	w, h := car.Photo.Rect.Dx(), car.Photo.Rect.Dy()
	wall := func(w, h int) *image.NRGBA {
		img := image.NewNRGBA(image.Rect(0, 0, w, h))
		draw.Draw(img, img.Rect, &image.Uniform{color.NRGBA{90, 120, 160, 255}}, image.Point{}, draw.Src)
		return img
	}
	bg, large := wall(400, 300), wall(2400, 1800)
	big := Step{"processorName": AddBackgroundAndCrop, "background": "wall", "outputWidth": 2000.0, "outputHeight": 1500.0}
	bigOnLarge := Step{"processorName": AddBackgroundAndCrop, "background": "largeWall", "outputWidth": 2000.0, "outputHeight": 1500.0}
	bigStudio := Step{"processorName": AddBackgroundAndCrop, "background": catalog.StudioBackground, "outputWidth": 2000.0, "outputHeight": 1500.0}
	placed := Step{"processorName": PlaceCar}
	see := Step{"processorName": SemiTransparentWindows, "windowTransparency": 0.6, "windowBrightness": 1.0}
	// Glass drawn as photographed: nothing to warn of when none is found.
	untouched := Step{"processorName": SemiTransparentWindows, "windowTransparency": 0.0, "windowBrightness": 1.0}
	for _, tc := range []struct {
		name       string
		car        *drawncar.Car
		confidence float64
		steps      []Step
		want       []string // codes
		says       string   // in the first warning's message
	}{
		{"clean and centred", car, 0, []Step{det(), placed}, nil, ""},
		{"clean cutout", car, 0, []Step{det()}, nil, ""},
		{"cut on the left", drawncar.Crop(car, image.Rect(w/5, 0, w, h)), 0, []Step{det(), placed},
			[]string{showroom.WarnCarCutByFrame}, "left edge"},
		{"cut on the right and at the bottom", drawncar.Crop(car, image.Rect(0, 0, w*3/4, h*3/4)), 0, []Step{det()},
			[]string{showroom.WarnCarCutByFrame}, "right and bottom edges"},
		{"low confidence", car, 0.6, []Step{det()}, []string{showroom.WarnLowConfidence}, "0.60"},
		{"confident enough", car, 0.75, []Step{det()}, nil, ""},
		{"enlarged four times", car, 0, []Step{det(), bigOnLarge}, []string{showroom.WarnCarSmallInPhoto}, "enlarged"},
		{"background enlarged five times", car, 0, []Step{det(), big},
			[]string{showroom.WarnCarSmallInPhoto, showroom.WarnBackgroundEnlarged}, ""},
		{"the built-in studio enlarged", car, 0, []Step{det(), bigStudio}, []string{showroom.WarnCarSmallInPhoto}, ""},
		{"enlarged by a resize", car, 0, []Step{det(), placed, {"processorName": Resize, "width": 1600.0}},
			[]string{showroom.WarnCarSmallInPhoto}, "enlarged 3.8 times"},
		{"made smaller by a resize", car, 0, []Step{det(), placed, {"processorName": Resize, "width": 300.0, "height": 300.0, "fit": "cover"}}, nil, ""},
		{"background enlarged by a resize", car, 0, []Step{det(), {"processorName": AddBackgroundAndCrop, "background": "largeWall"},
			{"processorName": Resize, "width": 6000.0, "height": 4000.0, "fit": "fill"}},
			[]string{showroom.WarnCarSmallInPhoto, showroom.WarnBackgroundEnlarged}, ""},
		{"tilted 3 degrees", drawncar.New(480, 300, 3*deg), 0, []Step{det()}, []string{showroom.WarnTilted}, "3.0 degrees"},
		{"levelled from 3 degrees", drawncar.New(480, 300, -3*deg), 0, []Step{det(), {"processorName": PlaceCar, "useKeypoints": true}},
			[]string{showroom.WarnTilted}, "turned 3.0 degrees to level it"},
		{"tilted 1 degree", drawncar.New(480, 300, 1*deg), 0, []Step{det()}, nil, ""},
		{"windows found", car, 0, []Step{det(), see}, nil, ""},
		{"no windows found", paintedOver(car), 0, []Step{det(), see}, []string{showroom.WarnWindowsNotFound}, "as photographed"},
		{"windows untouched", paintedOver(car), 0, []Step{det(), untouched}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEngine(t, &fakeSegmenter{car: tc.car, confidence: tc.confidence}, mapContent{"wall": bg, "largeWall": large, catalog.StudioBackground: bg})
			res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, tc.steps...),
				Photo: pngBytes(t, tc.car.Photo), Format: FormatPNG})
			if err != nil {
				t.Fatal(err)
			}
			if res.Warnings == nil {
				t.Fatal("warnings are nil, want a list")
			}
			var codes []string
			for _, w := range res.Warnings {
				codes = append(codes, w.Code)
			}
			if !reflect.DeepEqual(codes, tc.want) {
				t.Fatalf("warnings %+v, want codes %v", res.Warnings, tc.want)
			}
			if tc.says != "" && !strings.Contains(res.Warnings[0].Message, tc.says) {
				t.Errorf("message %q does not say %q", res.Warnings[0].Message, tc.says)
			}
		})
	}
}

// paintedOver returns a copy of car whose windows are painted the body's
// colour and which the model takes whole: a car with no glass to find.
func paintedOver(car *drawncar.Car) *drawncar.Car {
	c := drawncar.Crop(car, car.Photo.Rect) // a copy
	for y := range c.Photo.Rect.Dy() {
		for x := range c.Photo.Rect.Dx() {
			if c.Windows.GrayAt(x, y).Y > 0 {
				c.Photo.SetNRGBA(x, y, c.Body)
				c.Windows.SetGray(x, y, color.Gray{})
			}
			if c.Matte.GrayAt(x, y).Y > 127 {
				c.Raw.SetGray(x, y, color.Gray{Y: 255})
			}
		}
	}
	return c
}
