package pipeline

import (
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

func TestDetectCarMaskCutsOutOnTransparency(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, det()), Photo: pngBytes(t, car.Photo)})
	if err != nil {
		t.Fatal(err)
	}
	if res.MediaType != "image/png" {
		t.Fatalf("media type %s, want PNG for a cut-out", res.MediaType)
	}
	out := render(t, e, car, det())
	choke := matteChoke()
	b := car.Photo.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			// The renderer steepens the matte's edge ramp.
			m := car.Matte.GrayAt(x, y).Y
			a := choke[m]
			got := at(out, x, y)
			switch {
			case a == 0 && got.A != 0:
				t.Fatalf("background pixel (%d,%d) alpha %d, want 0", x, y, got.A)
			case m == 255 && !near(got, car.Photo.NRGBAAt(x, y), 1):
				t.Fatalf("car pixel (%d,%d) = %v, want the photo's %v", x, y, got, car.Photo.NRGBAAt(x, y))
			case int(got.A)-int(a) > 1 || int(a)-int(got.A) > 1:
				t.Fatalf("edge pixel (%d,%d) alpha %d, want the choked matte's %d", x, y, got.A, a)
			}
		}
	}
}

func TestDetectCarMaskThresholds(t *testing.T) {
	car := testCar(t)
	tests := []struct {
		name       string
		confidence float64
		border     float64
		step       Step
		want       string
	}{
		{"confident", 0.6, 0, det(), ""},
		{"below the detection threshold", 0.4, 0, det(), showroom.ENoCarDetected},
		{"threshold 0 accepts anything found", 0.01, 0, Step{"processorName": DetectCarMask, "carDetectionThreshold": 0.0}, ""},
		{"threshold 1 needs certainty", 0.99, 0, Step{"processorName": DetectCarMask, "carDetectionThreshold": 1.0}, showroom.ENoCarDetected},
		{"cropped car, default never rejects", 0.9, 0.9, det(), ""},
		{"cropped beyond the threshold", 0.9, 0.3, Step{"processorName": DetectCarMask, "carCropThreshold": 0.2}, showroom.ECarCropped},
		{"cropped within the threshold", 0.9, 0.1, Step{"processorName": DetectCarMask, "carCropThreshold": 0.2}, ""},
		{"threshold 0 rejects any border contact", 0.9, 0.01, Step{"processorName": DetectCarMask, "carCropThreshold": 0.0}, showroom.ECarCropped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newTestEngine(t, &fakeSegmenter{car: car, confidence: tt.confidence, border: tt.border}, nil)
			_, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, tt.step), Photo: pngBytes(t, car.Photo)})
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			errCode(t, err, tt.want)
		})
	}
}

// TestStrayMattePiecesAreDropped: a piece of matte apart from the car
// (lettering on a studio wall) is neither drawn nor counted in the box the
// car is placed by.
func TestStrayMattePiecesAreDropped(t *testing.T) {
	car := testCar(t)
	stray := *car
	stray.Matte = image.NewGray(car.Matte.Rect)
	copy(stray.Matte.Pix, car.Matte.Pix)
	for y := 10; y < 30; y++ {
		for x := 10; x < 50; x++ {
			stray.Matte.SetGray(x, y, color.Gray{255})
		}
	}
	e := newTestEngine(t, &fakeSegmenter{car: &stray}, nil)
	s := scene(t, e, &stray, det())
	if s.Box != car.Box {
		t.Errorf("box %v, want the car's %v", s.Box, car.Box)
	}
	out := render(t, e, &stray, det())
	if a := at(out, 20, 20).A; a != 0 {
		t.Errorf("stray piece drawn with alpha %d", a)
	}
}
