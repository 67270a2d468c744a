package pipeline

import (
	"image"
	"image/color"
	"testing"
)

func TestAddPoster(t *testing.T) {
	car := testCar(t)
	logo := image.NewNRGBA(image.Rect(0, 0, 100, 50))
	for i := 0; i < len(logo.Pix); i += 4 {
		logo.Pix[i], logo.Pix[i+1], logo.Pix[i+2], logo.Pix[i+3] = 0, 200, 0, 255
	}
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{"logo": logo})
	white := color.NRGBA{255, 255, 255, 255}
	tests := []struct {
		position string
		opacity  float64
		rect     image.Rectangle // where the 96×48 poster must be
	}{
		{"top-left", 1, image.Rect(24, 24, 120, 72)},
		{"bottom-right", 1, image.Rect(480-24-96, 300-24-48, 480-24, 300-24)},
		{"center", 1, image.Rect(192, 126, 288, 174)},
		{"top-right", 0, image.Rect(480-24-96, 24, 480-24, 72)},
	}
	for _, tt := range tests {
		out := render(t, e, car, det(), Step{"processorName": CleanBackground, "enableShadow": false},
			Step{"processorName": AddPoster, "poster": "logo", "position": tt.position, "scale": 0.2, "margin": 0.05, "opacity": tt.opacity})
		want := color.NRGBA{0, 200, 0, 255}
		if tt.opacity == 0 {
			want = white
		}
		in := tt.rect.Inset(2)
		for _, p := range []image.Point{in.Min, {in.Max.X - 1, in.Min.Y}, {in.Min.X, in.Max.Y - 1}, in.Max.Sub(image.Pt(1, 1))} {
			if got := at(out, p.X, p.Y); got != want && !(tt.position == "center") {
				t.Errorf("%s: poster pixel %v = %v, want %v", tt.position, p, got, want)
			}
		}
		if tt.position == "center" && at(out, 240, 150) != want {
			t.Errorf("center: %v, want the poster over the car", at(out, 240, 150))
		}
		// Outside the poster, the corners are the plain background.
		for _, p := range []image.Point{{2, 150}, {477, 150}} {
			if got := at(out, p.X, p.Y); got != white {
				t.Errorf("%s: pixel %v = %v, want untouched white", tt.position, p, got)
			}
		}
	}
}

func TestAddPosterScaleExtremes(t *testing.T) {
	car := testCar(t)
	logo := image.NewNRGBA(image.Rect(0, 0, 100, 50))
	for i := 0; i < len(logo.Pix); i += 4 {
		logo.Pix[i], logo.Pix[i+1], logo.Pix[i+2], logo.Pix[i+3] = 0, 200, 0, 255
	}
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{"logo": logo})
	for _, tt := range []struct {
		scale float64
		width int // of the green area
	}{{0.01, 5}, {1, 480}} {
		out := render(t, e, car, det(), Step{"processorName": CleanBackground, "enableShadow": false},
			Step{"processorName": AddPoster, "poster": "logo", "position": "top-left", "scale": tt.scale, "margin": 0.0})
		green := 0
		for x := range 480 {
			if at(out, x, 1) == (color.NRGBA{0, 200, 0, 255}) {
				green++
			}
		}
		if green != tt.width {
			t.Errorf("scale %.2f: %d green pixels across, want %d", tt.scale, green, tt.width)
		}
	}
}
