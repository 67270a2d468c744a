// Package gallery renders every configuration on folders of photos into
// contact sheets, one per configuration, to look at after changing a
// processor (make gallery). It is a tool: the service does not link it.
package gallery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
)

// Config is a configuration with a name: the sheet's.
type Config struct {
	Name       string
	Processors json.RawMessage
}

// Configurations returns every predefined configuration and one
// configuration per processor that shows what it does.
func Configurations() []Config {
	var out []Config
	for _, c := range catalog.PredefinedConfigurations() {
		out = append(out, Config{c.Name, c.Processors})
	}
	for _, c := range []struct {
		name  string
		steps []catalog.Step
	}{
		{"p1_DetectCarMask", []catalog.Step{{"processorName": catalog.DetectCarMask}}},
		{"p2_DetectCarShadow_PlaceShadow", []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.CleanBackground, "enableShadow": false, "color": "#FFFFFF"},
			{"processorName": catalog.PlaceShadow, "opacity": 1.0}}},
		{"p3_CleanBackground_contactShadow", []catalog.Step{{"processorName": catalog.DetectCarMask},
			{"processorName": catalog.CleanBackground, "enableShadow": true, "color": "#E6ECF2"}}},
		{"p4_SemiTransparentWindows", []catalog.Step{{"processorName": catalog.DetectCarMask},
			{"processorName": catalog.SemiTransparentWindows, "windowTransparency": 0.9, "windowBrightness": 1.0},
			{"processorName": catalog.CleanBackground, "enableShadow": false, "color": "#2F6FD0"}}},
		{"p5_PlaceCar_keypoints", []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.PlaceCar, "useKeypoints": true, "background": "#FFFFFF"},
			{"processorName": catalog.PlaceShadow, "opacity": 0.8}}},
		{"p6_AddBackgroundAndCrop", []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.AddBackgroundAndCrop, "background": catalog.StudioBackground, "horizonLine": catalog.StudioHorizon,
				"outputWidth": 1200.0, "outputHeight": 800.0},
			{"processorName": catalog.PlaceShadow, "opacity": 0.7}}},
		{"p7_AddPoster_Resize", []catalog.Step{{"processorName": catalog.DetectCarMask},
			{"processorName": catalog.CleanBackground, "enableShadow": true, "color": "#FFFFFF"},
			{"processorName": catalog.AddPoster, "poster": pipeline.GalleryPoster, "position": "top-left", "scale": 0.25},
			{"processorName": catalog.Resize, "width": 640.0, "height": 640.0, "fit": "contain"}}},
	} {
		raw, _ := json.Marshal(c.steps)
		out = append(out, Config{c.name, raw})
	}
	return out
}

// Photo is one photo of the gallery.
type Photo struct {
	Name  string
	Bytes []byte
}

// Contact sheet layout.
const (
	sheetCell    = 360
	sheetCols    = 4
	sheetLabel   = 18
	sheetPadding = 6
)

// Write runs every configuration on every photo and writes one
// contact sheet PNG per configuration into dir, named after it. progress,
// when not nil, is told each sheet written.
func Write(ctx context.Context, e *pipeline.Engine, photos []Photo, configs []Config, dir string, progress func(string)) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, c := range configs {
		rows := (len(photos) + sheetCols - 1) / sheetCols
		cellH := sheetCell*2/3 + sheetLabel
		sheet := image.NewNRGBA(image.Rect(0, 0, sheetCols*(sheetCell+sheetPadding)+sheetPadding,
			rows*(cellH+sheetPadding)+sheetPadding+sheetLabel))
		draw.Draw(sheet, sheet.Rect, image.NewUniform(color.NRGBA{90, 90, 96, 255}), image.Point{}, draw.Src)
		Label(sheet, sheetPadding, sheetLabel-4, c.Name+"  "+string(c.Processors), color.NRGBA{255, 255, 255, 255})
		for i, p := range photos {
			if err := ctx.Err(); err != nil {
				return err
			}
			x0 := sheetPadding + (i%sheetCols)*(sheetCell+sheetPadding)
			y0 := sheetLabel + sheetPadding + (i/sheetCols)*(cellH+sheetPadding)
			cell := image.Rect(x0, y0, x0+sheetCell, y0+sheetCell*2/3)
			t := time.Now()
			res, err := e.Run(ctx, pipeline.Request{Processors: c.Processors, Photo: p.Bytes, Format: pipeline.FormatPNG})
			text := p.Name
			if err != nil {
				text += ": " + showroom.ErrorCode(err)
				draw.Draw(sheet, cell, image.NewUniform(color.NRGBA{120, 40, 40, 255}), image.Point{}, draw.Src)
				Label(sheet, x0+4, y0+20, err.Error(), color.NRGBA{255, 255, 255, 255})
			} else {
				out, err := DecodePNG(res.Image)
				if err != nil {
					return fmt.Errorf("gallery: reading back %s: %w", p.Name, err)
				}
				DrawCell(sheet, cell, out)
				text += fmt.Sprintf("  %dx%d %.0fms", res.Width, res.Height, float64(time.Since(t).Microseconds())/1000)
				warningStrip(sheet, cell, res.Warnings)
			}
			Label(sheet, x0, y0+sheetCell*2/3+sheetLabel-5, text, color.NRGBA{235, 235, 235, 255})
		}
		f, err := os.Create(filepath.Join(dir, c.Name+".png"))
		if err != nil {
			return err
		}
		if err := png.Encode(f, sheet); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if progress != nil {
			progress(filepath.Join(dir, c.Name+".png"))
		}
	}
	return nil
}

// DrawCell draws img fitted into cell over a checkerboard, so
// transparency shows.
func DrawCell(dst *image.NRGBA, cell image.Rectangle, img *image.NRGBA) {
	for y := cell.Min.Y; y < cell.Max.Y; y++ {
		for x := cell.Min.X; x < cell.Max.X; x++ {
			v := uint8(200)
			if ((x-cell.Min.X)/10+(y-cell.Min.Y)/10)%2 == 0 {
				v = 245
			}
			dst.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
		}
	}
	sc := math.Min(float64(cell.Dx())/float64(img.Rect.Dx()), float64(cell.Dy())/float64(img.Rect.Dy()))
	w, h := max(int(float64(img.Rect.Dx())*sc), 1), max(int(float64(img.Rect.Dy())*sc), 1)
	small := pipeline.Resample(img, w, h)
	at := image.Pt(cell.Min.X+(cell.Dx()-w)/2, cell.Min.Y+(cell.Dy()-h)/2)
	draw.Draw(dst, image.Rectangle{at, at.Add(image.Pt(w, h))}, small, image.Point{}, draw.Over)
}

// Label writes text at (x, baseline y) in a 7×13 bitmap font.
func Label(dst *image.NRGBA, x, y int, text string, c color.NRGBA) {
	if len(text) > 200 {
		text = text[:200] + "..."
	}
	d := font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(text)
}

// warningStrip writes the codes of a result's warnings (what the dealer
// is told to check) along the top of its cell, on a dark strip; nothing
// for a clean photo.
func warningStrip(sheet *image.NRGBA, cell image.Rectangle, warnings []showroom.Warning) {
	if len(warnings) == 0 {
		return
	}
	codes := make([]string, len(warnings))
	for i, w := range warnings {
		codes[i] = w.Code
	}
	strip := image.Rect(cell.Min.X, cell.Min.Y, cell.Max.X, cell.Min.Y+sheetLabel)
	draw.Draw(sheet, strip, image.NewUniform(color.NRGBA{40, 30, 10, 200}), image.Point{}, draw.Over)
	Label(sheet, cell.Min.X+4, cell.Min.Y+sheetLabel-5, "check: "+strings.Join(codes, ", "), color.NRGBA{255, 200, 80, 255})
}

// DecodePNG reads a result back as NRGBA: the engine writes an opaque
// result without alpha, which image/png reads as RGBA.
func DecodePNG(b []byte) (*image.NRGBA, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if n, ok := img.(*image.NRGBA); ok {
		return n, nil
	}
	out := image.NewNRGBA(image.Rect(0, 0, img.Bounds().Dx(), img.Bounds().Dy()))
	draw.Draw(out, out.Rect, img, img.Bounds().Min, draw.Src)
	return out, nil
}
