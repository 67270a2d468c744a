package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/gallery"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// docExample is the configuration that shows one processor at work in the
// docs, on the synthetic car.
type docExample struct {
	processor string
	steps     []catalog.Step
	caption   string
}

func docExamples() []docExample {
	d := catalog.Step{"processorName": catalog.DetectCarMask}
	return []docExample{
		{catalog.DetectCarMask, []catalog.Step{d}, "the car cut out on transparency"},
		{catalog.DetectCarShadow, []catalog.Step{d, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.CleanBackground, "enableShadow": true, "color": "#FFFFFF"}},
			"the shadow found under the car, kept on white (the dark box on the right is ignored)"},
		{catalog.PlaceShadow, []catalog.Step{d, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.PlaceCar, "carWidth": 0.6, "background": "#F2F2F2"}, {"processorName": catalog.PlaceShadow, "opacity": 0.9}},
			"the detected shadow drawn under the moved car at opacity 0.9"},
		{catalog.CleanBackground, []catalog.Step{d, {"processorName": catalog.CleanBackground, "enableShadow": true, "color": "#DDE8F0"}},
			"a colour background with a synthetic contact shadow (no shadow was detected)"},
		{catalog.SemiTransparentWindows, []catalog.Step{d, {"processorName": catalog.SemiTransparentWindows, "windowTransparency": 0.8},
			{"processorName": catalog.CleanBackground, "enableShadow": false, "color": "#2F6FD0"}},
			"the new background through the glass at windowTransparency 0.8"},
		{catalog.PlaceCar, []catalog.Step{d, {"processorName": catalog.PlaceCar, "horizonLine": 0.85, "carWidth": 0.5, "carHeight": 0.5,
			"background": "#FFFFFF", "useKeypoints": true}},
			"scaled to half the canvas, the wheels on the horizon at 0.85"},
		{catalog.AddBackgroundAndCrop, []catalog.Step{d, {"processorName": catalog.DetectCarShadow},
			{"processorName": catalog.AddBackgroundAndCrop, "background": catalog.StudioBackground, "horizonLine": catalog.StudioHorizon,
				"outputWidth": 960.0, "outputHeight": 600.0},
			{"processorName": catalog.PlaceShadow}},
			"on the built-in studio, standing on its floor, inside the margins"},
		{catalog.AddPoster, []catalog.Step{d, {"processorName": catalog.CleanBackground},
			{"processorName": catalog.AddPoster, "poster": pipeline.GalleryPoster, "position": "top-left", "scale": 0.25}},
			"a logo in the top-left corner"},
		{catalog.Resize, []catalog.Step{d, {"processorName": catalog.CleanBackground},
			{"processorName": catalog.Resize, "width": 300.0, "height": 300.0, "fit": "contain"}},
			"resized to 300×300, contained and padded"},
	}
}

// syntheticSegmenter answers with a synthetic car's exact matte: the docs'
// pictures need no model.
type syntheticSegmenter struct{ car *drawncar.Car }

func (s syntheticSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	return &vision.Mask{Alpha: s.car.Matte, Box: s.car.Box, Confidence: 1, Raw: s.car.Raw}, nil
}

// ProcessorDocs returns docs/processors.md, generated from the catalog,
// and its pictures by file name (under docs/processors/), rendered from the
// synthetic car.
func ProcessorDocs() ([]byte, map[string][]byte, error) {
	car := drawncar.New(480, 300, 0)
	e, err := pipeline.NewEngine(pipeline.EngineConfig{Segmenter: syntheticSegmenter{car}, Content: &pipeline.BuiltinContent{}})
	if err != nil {
		return nil, nil, err
	}
	photo := pngEncode(car.Photo)
	examples := map[string]docExample{}
	for _, ex := range docExamples() {
		examples[ex.processor] = ex
	}
	pictures := map[string][]byte{}
	var b strings.Builder
	b.WriteString(`# Processors

<!-- Generated from the processor catalog (internal/catalog/catalog.go) by
     go generate ./internal/pipeline; do not edit. A test fails when stale. -->

A configuration is an ordered list of processors. They run on a *scene*: the
original photo, the car's matte and box, the glass, the shadow layer, the
background and the car's placement on the output canvas. Each processor changes
the scene; the output is drawn once, at full resolution, after the last one.
So:

- the output after any prefix of a configuration is defined: before any
  processor it is the photo; after DetectCarMaskProcessor, the car on
  transparency (PNG unless asked otherwise);
- processors that change different parts of the scene can come in any order
  (DetectCarShadowProcessor, SemiTransparentWindowsProcessor,
  CleanBackgroundProcessor and AddPosterProcessor commute);
- a configuration has one background, set by CleanBackgroundProcessor (its
  color), AddBackgroundAndCropProcessor (its image) or PlaceCarProcessor (its
  background, when given). Processors compose rather than undo each other:
  PlaceCarProcessor without a background keeps the one set earlier (after
  AddBackgroundAndCropProcessor it re-places the car on that image's canvas;
  after CleanBackgroundProcessor, on its colour), and white where none was
  set. A configuration in which a later processor would replace an earlier
  one's background with a different one (a colour over an uploaded image, an
  image over a colour, two colours) is refused with 422
  INVALID_CONFIGURATION, its details naming both processors;
- where two processors set another part, the later one wins: the car's place
  and the canvas by PlaceCarProcessor and AddBackgroundAndCropProcessor
  (PlaceCarProcessor's levelling is kept); the shadow's opacity by
  PlaceShadowProcessor and CleanBackgroundProcessor (enableShadow false hides
  it, true keeps it as dark as in the photo unless PlaceShadowProcessor set an
  opacity);
- contract rules: DetectCarMaskProcessor comes first, once; a processor that
  requires another comes after it (the table says which).

Compositing is in linear light with premultiplied alpha; the car's soft edge
colours are decontaminated (the old background's colour is solved out of
them), so no halo of the old background shows on the new one. Outputs are
JPEG, PNG (keeps transparency) or WebP (keeps transparency), sRGB, with every
metadata field stripped.

The pictures are rendered by the program from a drawn car (no photo ships with
the docs): left the photo, right the result of the configuration shown. Where
the car goes, and what each placement parameter means, is in
[Placing the car](#placing-the-car).

`)
	b.WriteString("| processor | cost | requires |\n|---|---|---|\n")
	for _, p := range catalog.Catalog() {
		req := strings.Join(p.Requires, ", ")
		if req == "" {
			req = "—"
		}
		fmt.Fprintf(&b, "| [%s](#%s) | %d | %s |\n", p.Name, strings.ToLower(p.Name), p.Cost, req)
	}
	for _, p := range catalog.Catalog() {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", p.Name, p.Description)
		if len(p.Params) == 0 {
			b.WriteString("No parameters.\n")
		} else {
			b.WriteString("| parameter | type | default | range | description |\n|---|---|---|---|---|\n")
			for _, q := range p.Params {
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", q.Name, paramType(q), paramDefault(q), paramRange(q), q.Description)
			}
		}
		ex, ok := examples[p.Name]
		if !ok {
			continue
		}
		raw, err := json.Marshal(ex.steps)
		if err != nil {
			return nil, nil, err
		}
		res, err := e.Run(context.Background(), pipeline.Request{Processors: raw, Photo: photo, Format: pipeline.FormatPNG})
		if err != nil {
			return nil, nil, fmt.Errorf("docs: %s example: %w", p.Name, err)
		}
		after, err := gallery.DecodePNG(res.Image)
		if err != nil {
			return nil, nil, err
		}
		name := p.Name + ".png"
		pictures[name] = pngEncode(beforeAfter(car.Photo, after))
		fmt.Fprintf(&b, "\n![%s: %s](processors/%s)\n\n", p.Name, ex.caption, name)
		fmt.Fprintf(&b, "*%s.* Configuration:\n\n```json\n%s\n```\n", upperFirst(ex.caption), indentJSON(raw))
	}
	b.WriteString(placementDocs)
	pic, err := placementPicture()
	if err != nil {
		return nil, nil, fmt.Errorf("docs: placement picture: %w", err)
	}
	pictures["placement.png"] = pngEncode(pic)
	return []byte(b.String()), pictures, nil
}

func paramType(q catalog.Param) string {
	switch q.Kind {
	case catalog.Colour:
		return "string (`#RRGGBB`)"
	case catalog.ContentRef:
		return "string (content name: " + strings.Join(q.ContentTypes, ", ") + ")"
	case catalog.Enum:
		return "string: " + strings.Join(q.Enum, ", ")
	}
	return string(q.Type)
}

func paramDefault(q catalog.Param) string {
	switch {
	case q.Required:
		return "required"
	case q.Default == nil:
		return "see description"
	}
	switch v := q.Default.(type) {
	case string:
		return "`" + v + "`"
	case float64:
		return "`" + fmt.Sprintf("%g", v) + "`"
	}
	return fmt.Sprintf("`%v`", q.Default)
}

func paramRange(q catalog.Param) string {
	if q.Min != nil && q.Max != nil {
		return fmt.Sprintf("%g", *q.Min) + " – " + fmt.Sprintf("%g", *q.Max)
	}
	return "—"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func indentJSON(raw []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "", "  "); err != nil {
		return string(raw)
	}
	return buf.String()
}

// beforeAfter puts before and after side by side, each fitted into
// 240×150, transparency shown as a checkerboard.
func beforeAfter(before, after *image.NRGBA) *image.NRGBA {
	const cw, ch = 240, 150
	out := image.NewNRGBA(image.Rect(0, 0, 2*cw+4, ch))
	draw.Draw(out, out.Rect, image.NewUniform(color.NRGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	gallery.DrawCell(out, image.Rect(0, 0, cw, ch), before)
	gallery.DrawCell(out, image.Rect(cw+4, 0, 2*cw+4, ch), after)
	return out
}

func pngEncode(img image.Image) []byte {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, img); err != nil {
		panic(err) // encoding to memory cannot fail
	}
	return buf.Bytes()
}
