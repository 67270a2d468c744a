package pipeline

import (
	"image/color"
	"testing"
)

func TestCleanBackground(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	bg := color.NRGBA{0x20, 0x80, 0xC0, 255}
	shadowAt := func() (int, int) { return int(car.ShadowCenter.X), int(car.ShadowCenter.Y - 2) }
	tests := []struct {
		name  string
		steps []Step
		// shadow: darkness expected at the shadow point: 0 none, >0 at least.
		shadow float64
	}{
		{"no shadow", []Step{det(), {"processorName": CleanBackground, "enableShadow": false, "color": "#2080C0"}}, 0},
		{"synthetic contact shadow", []Step{det(), {"processorName": CleanBackground, "color": "#2080C0"}}, 0.15},
		{"detected shadow kept", []Step{det(), {"processorName": DetectCarShadow}, {"processorName": CleanBackground, "color": "#2080C0"}}, 0.2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := render(t, e, car, tt.steps...)
			// Far from the car: exactly the colour.
			for _, p := range [][2]int{{5, 5}, {470, 10}, {5, 290}, {car.Object.Min.X + 2, car.Object.Min.Y + 2}} {
				if got := at(out, p[0], p[1]); got != bg {
					t.Errorf("background at %v = %v, want %v", p, got, bg)
				}
			}
			// The car's body is untouched.
			for y := car.Box.Min.Y; y < car.Box.Max.Y; y += 3 {
				for x := car.Box.Min.X; x < car.Box.Max.X; x += 3 {
					if isBody(car, x, y) && !near(at(out, x, y), car.Body, 1) {
						t.Fatalf("body pixel (%d,%d) = %v, want %v", x, y, at(out, x, y), car.Body)
					}
				}
			}
			x, y := shadowAt()
			d := 1 - lum(at(out, x, y))/lum(bg)
			if tt.shadow == 0 && at(out, x, y) != bg {
				t.Errorf("shadow point %v, want the plain colour", at(out, x, y))
			}
			if tt.shadow > 0 && d < tt.shadow {
				t.Errorf("shadow point darkness %.2f, want at least %.2f", d, tt.shadow)
			}
		})
	}
}
