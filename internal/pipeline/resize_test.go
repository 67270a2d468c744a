package pipeline

import (
	"testing"

	"github.com/showroom/showroom/internal/catalog"
)

func TestResize(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	tests := []struct {
		step          Step
		width, height int
		transparent   bool // corners transparent
	}{
		{Step{"width": 240.0}, 240, 150, false},
		{Step{"height": 600.0}, 960, 600, false},
		{Step{"width": 300.0, "height": 300.0, "fit": "contain"}, 300, 300, false},
		{Step{"width": 300.0, "height": 300.0, "fit": "cover"}, 300, 300, false},
		{Step{"width": 300.0, "height": 100.0, "fit": "fill"}, 300, 100, false},
		{Step{"width": 16.0, "height": 8192.0}, 16, 8192, false},
	}
	for _, tt := range tests {
		st := Step{"processorName": Resize}
		for k, v := range tt.step {
			st[k] = v
		}
		out := render(t, e, car, det(), Step{"processorName": CleanBackground, "color": "#FF0000", "enableShadow": false}, st)
		if out.Rect.Dx() != tt.width || out.Rect.Dy() != tt.height {
			t.Errorf("%v: %v, want %dx%d", tt.step, out.Rect.Size(), tt.width, tt.height)
		}
		// Contain pads with the padding colour (white by default); cover
		// and fill reach the edge with the background.
		c := at(out, 0, 0)
		if stepParams[catalog.ResizeParams](t, st).Fit == FitContain && tt.width*300 != tt.height*480 {
			if c.R != 255 || c.G != 255 || c.B != 255 {
				t.Errorf("%v: corner %v, want white padding", tt.step, c)
			}
		} else if c.R != 255 || c.G != 0 {
			t.Errorf("%v: corner %v, want the red background", tt.step, c)
		}
	}
	// A cut-out stays transparent around, padding included.
	out := render(t, e, car, det(), Step{"processorName": Resize, "width": 300.0, "height": 300.0})
	if a := at(out, 0, 0).A; a != 0 {
		t.Errorf("cut-out padding alpha %d, want 0", a)
	}
}
