package pipeline

import (
	"context"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

// twoTone is a background with a known horizon: wall above, floor below.
func twoTone(w, h int, horizon float64) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		c := color.NRGBA{40, 40, 40, 255}
		if float64(y)+0.5 >= horizon*float64(h) {
			c = color.NRGBA{0, 90, 0, 255}
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
		{"background's own size", Step{}, 800, 600},
		{"wider output", Step{"outputWidth": 1000.0, "outputHeight": 400.0}, 1000, 400},
		{"width only", Step{"outputWidth": 400.0}, 400, 300},
		{"wide margins", Step{"marginLeft": 0.45, "marginRight": 0.3, "marginTop": 0.2}, 800, 600},
		{"no margins", Step{"marginLeft": 0.0, "marginRight": 0.0, "marginTop": 0.0, "marginBottom": 0.0}, 800, 600},
		{"low horizon", Step{"horizonLine": 0.95, "marginBottom": 0.0}, 800, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := Step{"processorName": AddBackgroundAndCrop, "background": "studio", "horizonLine": 0.7}
			for k, v := range tt.step {
				st[k] = v
			}
			p, _ := EffectiveParams(st)
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
			ml, mr, mt, mb := p.Float("marginLeft"), p.Float("marginRight"), p.Float("marginTop"), p.Float("marginBottom")
			if float64(r.Min.X) < ml*W-1 || float64(r.Max.X) > (1-mr)*W+1 || float64(r.Min.Y) < mt*H-1 || float64(r.Max.Y) > (1-mb)*H+1 {
				t.Errorf("car at %v, outside the margins of %.0fx%.0f (%.2f %.2f %.2f %.2f)", r, W, H, ml, mr, mt, mb)
			}
			// It touches a margin (as large as allowed) and stands on the
			// floor's horizon unless the bottom margin forbids it.
			touches := math.Abs(float64(r.Min.X)-ml*W) <= 2 || math.Abs(float64(r.Min.Y)-mt*H) <= 2
			if !touches {
				t.Errorf("car at %v does not fill the margins", r)
			}
			horizon := p.Float("horizonLine") * H
			if want := math.Min(horizon, (1-mb)*H); math.Abs(float64(r.Max.Y)-want) > 4 {
				t.Errorf("car's ground at y=%d, want %.0f (horizon at %.0f)", r.Max.Y, want, horizon)
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
