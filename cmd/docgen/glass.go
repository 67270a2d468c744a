package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/pipeline"
)

// GlassDocs returns the pictures of docs/glass-and-shadow.md that are drawn
// from the synthetic car, by file name (under docs/glass-and-shadow/):
// how its glass, photographed bright, is drawn over a white background.
func GlassDocs() (map[string][]byte, error) {
	car := drawncar.New(960, 600, 0)
	car.PaintBrightGlass()
	e, err := pipeline.NewEngine(pipeline.EngineConfig{Segmenter: syntheticSegmenter{car}, Content: &pipeline.BuiltinContent{}})
	if err != nil {
		return nil, err
	}
	// The cabin, where the windows are.
	crop := image.Rect(300, 160, 700, 270)
	cfg := json.RawMessage(`[{"processorName": "DetectCarMaskProcessor"},
		{"processorName": "CleanBackgroundProcessor", "enableShadow": false, "color": "#FFFFFF"}]`)
	// over renders the car on white with its windows as a detector that
	// found them exactly gives them (what is shown is how glass is drawn;
	// how it is found is measured on photos).
	over := func(t float64) (*image.NRGBA, error) {
		s := pipeline.NewScene(car.Photo)
		if err := e.Apply(context.Background(), cfg, s); err != nil {
			return nil, fmt.Errorf("docs: glass at transparency %g: %w", t, err)
		}
		s.Glass, s.WindowTransparency, s.WindowBrightness = car.Windows, t, 1
		img, _ := pipeline.Render(s)
		return img, nil
	}
	half, err := over(0.5)
	if err != nil {
		return nil, err
	}
	// Transparency from 0 to 1, one above the other.
	var steps [][]*image.NRGBA
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		img, err := over(t)
		if err != nil {
			return nil, err
		}
		steps = append(steps, []*image.NRGBA{img})
	}
	return map[string][]byte{
		"tint-after.png":        pngEncode(panels(crop, [][]*image.NRGBA{{car.Photo, half}})),
		"tint-transparency.png": pngEncode(panels(crop, steps)),
	}, nil
}

// panels lays out the part crop of each image, in rows of columns, on
// white with a 4-pixel gap.
func panels(crop image.Rectangle, rows [][]*image.NRGBA) *image.NRGBA {
	const gap = 4
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	w, h := crop.Dx(), crop.Dy()
	out := image.NewNRGBA(image.Rect(0, 0, cols*(w+gap)-gap, len(rows)*(h+gap)-gap))
	draw.Draw(out, out.Rect, image.NewUniform(color.NRGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	for y, r := range rows {
		for x, img := range r {
			at := image.Pt(x*(w+gap), y*(h+gap))
			draw.Draw(out, image.Rectangle{at, at.Add(crop.Size())}, img, crop.Min, draw.Src)
		}
	}
	return out
}
