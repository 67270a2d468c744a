package pipeline

import (
	"image/color"
	"testing"
)

func TestSemiTransparentWindows(t *testing.T) {
	blue := color.NRGBA{0x10, 0x40, 0xF0, 255}
	tests := []struct {
		name                     string
		transparency, brightness float64
		noRaw                    bool
		// want returns the expected glass pixel for the photo's glass
		// colour g; nil means "mostly the new background".
		check func(t *testing.T, photo, got color.NRGBA)
	}{
		{"clear glass shows the new background", 1, 1, false, func(t *testing.T, _, got color.NRGBA) {
			if !near(got, blue, 24) {
				t.Errorf("glass %v, want about the background %v", got, blue)
			}
		}},
		{"clear glass found by colour alone", 1, 1, true, func(t *testing.T, _, got color.NRGBA) {
			if !near(got, blue, 24) {
				t.Errorf("glass %v, want about the background %v", got, blue)
			}
		}},
		{"opaque glass is the photo's", 0, 1, false, func(t *testing.T, photo, got color.NRGBA) {
			if !near(got, photo, 1) {
				t.Errorf("glass %v, want the photo's %v", got, photo)
			}
		}},
		{"half transparent mixes", 0.5, 1, false, func(t *testing.T, photo, got color.NRGBA) {
			if got.B <= photo.B+20 || got.B >= blue.B-20 {
				t.Errorf("glass %v, want between the photo's %v and %v", got, photo, blue)
			}
		}},
		{"brightness 0 blackens opaque glass", 0, 0, false, func(t *testing.T, _, got color.NRGBA) {
			if got.R > 2 || got.G > 2 || got.B > 2 {
				t.Errorf("glass %v, want black", got)
			}
		}},
		{"brightness 2 brightens", 0, 2, false, func(t *testing.T, photo, got color.NRGBA) {
			if lum(got) < lum(photo)*1.25 {
				t.Errorf("glass %v, want much brighter than %v", got, photo)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			car := testCar(t)
			e := newTestEngine(t, &fakeSegmenter{car: car, noRaw: tt.noRaw}, nil)
			out := render(t, e, car, det(),
				Step{"processorName": SemiTransparentWindows, "windowTransparency": tt.transparency, "windowBrightness": tt.brightness},
				Step{"processorName": CleanBackground, "enableShadow": false, "color": "#1040F0"})
			var glass, checked int
			for y := car.Box.Min.Y; y < car.Box.Max.Y; y++ {
				for x := car.Box.Min.X; x < car.Box.Max.X; x++ {
					got, photo := at(out, x, y), car.Photo.NRGBAAt(x, y)
					switch {
					case isBody(car, x, y) || (car.Matte.GrayAt(x, y).Y == 255 && car.Windows.GrayAt(x, y).Y == 0 && lum(photo) < 60):
						// Body panels and tyres are never see-through.
						if !near(got, photo, 1) {
							t.Fatalf("body or tyre pixel (%d,%d) = %v, want the photo's %v", x, y, got, photo)
						}
					case car.Windows.GrayAt(x, y).Y == 255 && interiorGlass(car, x, y):
						glass++
						if checked < 40 && (x+y)%7 == 0 {
							checked++
							tt.check(t, photo, got)
						}
					}
				}
			}
			if glass == 0 {
				t.Fatal("the test car has no interior glass pixels")
			}
		})
	}
}

// interiorGlass reports whether (x, y) is glass 3 pixels from any non-glass.
func interiorGlass(car *SyntheticCar, x, y int) bool {
	for dy := -3; dy <= 3; dy++ {
		for dx := -3; dx <= 3; dx++ {
			if car.Windows.GrayAt(x+dx, y+dy).Y != 255 {
				return false
			}
		}
	}
	return true
}
