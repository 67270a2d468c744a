package pipeline

import (
	"context"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

func TestPlaceShadowOpacity(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	x, y := int(car.ShadowCenter.X+car.ShadowRadii.X*0.5), int(car.ShadowCenter.Y+car.ShadowRadii.Y*0.3)
	var prev float64 = -1
	for _, op := range []float64{0, 0.5, 1} {
		out := render(t, e, car, det(), Step{"processorName": DetectCarShadow},
			Step{"processorName": CleanBackground, "enableShadow": false, "color": "#FFFFFF"},
			Step{"processorName": PlaceShadow, "opacity": op})
		d := 1 - lum(at(out, x, y))/255
		switch {
		case op == 0 && d > 0.002:
			t.Errorf("opacity 0: darkness %.3f, want none", d)
		case op > 0 && d <= prev:
			t.Errorf("opacity %.1f: darkness %.3f, not darker than %.3f", op, d, prev)
		}
		prev = d
		if got := at(out, 5, 5); got.R != 255 || got.G != 255 {
			t.Errorf("opacity %.1f: corner %v, want white", op, got)
		}
	}
}

func TestPlaceShadowNeedsDetection(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	for _, steps := range [][]Step{
		{det(), {"processorName": PlaceShadow}},
		{det(), {"processorName": PlaceShadow}, {"processorName": DetectCarShadow}},
		{{"processorName": CleanBackground}, det()},
	} {
		_, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, steps...), Photo: pngBytes(t, car.Photo)})
		errCode(t, err, showroom.EInvalidConfig)
	}
}
