package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strings"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/gallery"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
)

// framingCase is one case of docs/framing.md: a drawn photo put through a
// configuration, shown before (the photo) and after (the output).
type framingCase struct {
	// name is the picture's file name without ".png"; title the section's.
	name, title string
	// text says the rule the case shows, above the picture.
	text string
	car  *drawncar.Car
	// config names the configuration (a predefined one's name, or how
	// the steps differ from one).
	config string
	steps  []catalog.Step
	// mark draws guides on the photo and on the output, whose scene s
	// says where the car went; nil for none.
	mark func(photo, out *image.NRGBA, s *pipeline.Scene, car *drawncar.Car)
}

// FramingDocs returns docs/framing.md and its pictures by file name (under
// docs/framing/): each rule of the frame shown on a drawn car, the photo
// on the left and the output on the right, at one scale.
func FramingDocs() ([]byte, map[string][]byte, error) {
	showroomSteps, whiteSteps := predefinedSteps("default_showroom"), predefinedSteps("default_white")
	const deg = math.Pi / 180
	full := drawncar.New(600, 400, 0)
	cutCar := drawncar.Crop(full, image.Rect(150, 0, 600, 304))
	asphalt, _ := drawncar.NewAsphalt(false)
	shadowCut := drawncar.Crop(asphalt, image.Rect(0, 0, 427, 300))
	refused := []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.AddBackgroundAndCrop,
		"background": catalog.StudioBackground, "horizonLine": catalog.StudioHorizon}, {"processorName": catalog.PlaceCar, "background": "#FFFFFF"}}
	composed := []catalog.Step{{"processorName": catalog.DetectCarMask}, {"processorName": catalog.AddBackgroundAndCrop,
		"background": catalog.StudioBackground, "horizonLine": catalog.StudioHorizon}, {"processorName": catalog.PlaceCar}}
	red, blue := color.NRGBA{220, 30, 30, 255}, color.NRGBA{30, 90, 200, 255}

	cases := []framingCase{
		{name: "never-smaller", title: "An output never smaller than the photo",
			text: `Without an explicit size, the output's long side is at least the photo's, as
remove.bg and Photoroom keep the input's size; the car is enlarged with a good
filter rather than the canvas shrunk. An explicit size (outputWidth and
outputHeight, or ResizeProcessor) is honoured exactly.`,
			car: drawncar.New(854, 480, 0), config: "default_showroom", steps: showroomSteps},
		{name: "cut-car", title: "A cut car on the canvas edge",
			text: `Where the photo cuts the car (its outline runs along the photo's border, or
within three of the model's pixels of it, for 2% of its extent there), the cut
side lies on the canvas's edge: the car runs out of the picture as it ran out
of the photo, never a sliced car in the middle of the floor with a shadow under
the cut. Its other sides keep clear of the canvas's.`,
			car: cutCar, config: "default_showroom", steps: showroomSteps},
		{name: "cut-both-sides", title: "A car cut at both sides",
			text: `A car the photo cuts at its left and its right (a close front view, or the
middle of a long car) cannot have both cut edges on the canvas's edges at the
background's shape when it is taller than that shape: one cut edge stood in the
middle of the floor. Without an explicit size the canvas takes the car's own
shape across the cut, keeping its height (its width for a car cut at the top
and the bottom), and the car fills it between the margins of its other sides.
With an explicit size the car spans the width and stays between the top and
bottom margins.`,
			car: drawncar.Crop(full, image.Rect(200, 0, 400, 400)), config: "default_showroom", steps: showroomSteps},
		{name: "levelled", title: "A tilted photo levelled",
			text: `When the two tyres found stand at least half the car's width apart and the line
through their contact points is off level by at most 4 degrees, the car is
turned about its ground line so that line is level (red: the contact points
and the line through them).

A limit: in a three-quarter view seen nearly from the side the two near tyres
stand that far apart too, and their line slopes by perspective alone, the nearer
wheel lower in the picture. On five of the 283 glass-more dealer photos (107,
140, 196, 232, 244: 3.1 to 3.8 degrees) such a view is levelled and warned of
though the camera was level. The photo's verticals would tell the two apart (a
tilted camera leans them, perspective does not), but the lean of their edges,
measured on these photos, was too noisy to decide with.`,
			car: drawncar.New(600, 400, 3*deg), config: "default_white", steps: whiteSteps,
			mark: func(photo, out *image.NRGBA, s *pipeline.Scene, car *drawncar.Car) {
				a, b := pipeline.Point(car.Contacts[0]), pipeline.Point(car.Contacts[1])
				diagramLine(photo, a, b, red)
				diagramLine(out, s.Place.Forward(a), s.Place.Forward(b), red)
			}},
		{name: "far-wheels", title: "Far wheels on the floor",
			text: `Seen from a raised camera, a three-quarter view's far front tyre peeks out under
the sill, higher in the picture than the near wheels. Every tyre found is a
ground point, so the far one stands on the studio's floor, below the wall–floor
line (blue), not on the wall; a floor too shallow for the car is enlarged about
its bottom edge (at most 1.6 times), which raises the line. Red: the near front
and the far front tyres' contact points.`,
			car: drawncar.RaisedThreeQuarter(600, 400), config: "default_showroom", steps: showroomSteps,
			mark: func(photo, out *image.NRGBA, s *pipeline.Scene, car *drawncar.Car) {
				diagramDashes(out, 0, out.Rect.Dx(), int(math.Round(s.Floor)), blue)
				for _, c := range car.Contacts {
					p := pipeline.Point(c)
					diagramDot(photo, p, red)
					diagramDot(out, s.Place.Forward(p), red)
				}
			}},
		{name: "shadow-fade", title: "A shadow fading where the photo cut it",
			text: `A photographed shadow that runs out of the photo where the car itself does not
(here low sun casts it out of the right edge) fades out over a tenth of the
car's length towards that edge, instead of ending in a straight line: on a
canvas larger than the photo, a grey box.`,
			car: shadowCut, config: "default_showroom", steps: showroomSteps},
		{name: "warnings-clean", title: "Warnings: none on a clean photo",
			text: `Every result carries its warnings (the job record's warnings, the
Showroom-Warnings header): none for a whole car photographed level.`,
			car: full, config: "default_white", steps: whiteSteps},
		{name: "warnings-cut", title: "Warnings: the car cut by the frame",
			text: `The same car cut by the photo at its left and bottom: the result says so, so
that a person checks it before it is published.`,
			car: cutCar, config: "default_white", steps: whiteSteps},
		{name: "composed", title: "No silent trap: PlaceCarProcessor after AddBackgroundAndCropProcessor",
			text: `A later processor that would replace an earlier one's background is refused.
PlaceCarProcessor with a background of its own after AddBackgroundAndCropProcessor
would paint white over the uploaded studio:`,
			car: full, config: "PlaceCarProcessor without background after AddBackgroundAndCropProcessor", steps: composed},
	}

	var b strings.Builder
	b.WriteString(`# The frame: before and after

<!-- Generated by go generate ./internal/pipeline (cmd/docgen/framing.go);
     do not edit. A test fails when stale. -->

What the placing processors (PlaceCarProcessor, AddBackgroundAndCropProcessor)
do with a car, rule by rule, on drawn cars: left the photo, right the output,
both at one scale, a grey line round each. The rules and their parameters are
in [processors.md](processors.md#placing-the-car); how the shadow is found and
drawn, in [glass-and-shadow.md](glass-and-shadow.md).

`)
	pictures := map[string][]byte{}
	for _, c := range cases {
		e, err := pipeline.NewEngine(pipeline.EngineConfig{Segmenter: syntheticSegmenter{c.car}, Content: &pipeline.BuiltinContent{}})
		if err != nil {
			return nil, nil, err
		}
		w, h := c.car.Photo.Rect.Dx(), c.car.Photo.Rect.Dy()
		out, s, err := placementScene(e, c.car, c.steps, w, h)
		if err != nil {
			return nil, nil, fmt.Errorf("docs: framing %s: %w", c.name, err)
		}
		photo := c.car.Photo
		if c.mark != nil {
			photo = cloneNRGBA(photo)
			c.mark(photo, out, s, c.car)
		}
		// The warnings as a run reports them.
		raw, err := json.Marshal(c.steps)
		if err != nil {
			return nil, nil, err
		}
		res, err := e.Run(context.Background(), pipeline.Request{Processors: raw,
			Photo: pngEncode(c.car.Photo), Format: pipeline.FormatPNG})
		if err != nil {
			return nil, nil, fmt.Errorf("docs: framing %s: %w", c.name, err)
		}
		warns := res.Warnings
		pictures[c.name+".png"] = pngEncode(framingPair(photo, out,
			// The labels' bitmap font has no ×.
			fmt.Sprintf("photo %dx%d", w, h), fmt.Sprintf("output %dx%d, warnings: %s", out.Rect.Dx(), out.Rect.Dy(), warningCodes(warns))))
		fmt.Fprintf(&b, "## %s\n\n%s\n\n", c.title, c.text)
		if c.name == "composed" {
			raw, err := json.Marshal(refused)
			if err != nil {
				return nil, nil, err
			}
			fmt.Fprintf(&b, "```json\n%s\n```\n\nis answered 422 INVALID_CONFIGURATION:\n\n", indentJSON(raw))
			_, _, err = pipeline.Parse(raw)
			var se *showroom.Error
			if !errors.As(err, &se) {
				return nil, nil, fmt.Errorf("docs: the refused configuration was accepted (%v)", err)
			}
			for _, d := range se.Details {
				fmt.Fprintf(&b, "- `%s`: %s\n", d.Pointer, d.Problem)
			}
			b.WriteString("\nWithout its background, PlaceCarProcessor re-places the car on the studio\nthe earlier processor set, on that canvas:\n\n")
		}
		fill := boxFill(s)
		fmt.Fprintf(&b, "![%s](framing/%s.png)\n\n*%s: the photo %d×%d, the output %d×%d; the car's box covers %.0f%% of the canvas in its binding dimension.",
			c.title, c.name, c.config, w, h, out.Rect.Dx(), out.Rect.Dy(), 100*fill)
		if len(warns) == 0 {
			b.WriteString(" Warnings: none.*\n\n")
		} else {
			b.WriteString(" Warnings:*\n\n")
			for _, wn := range warns {
				fmt.Fprintf(&b, "- `%s`: %s\n", wn.Code, wn.Message)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString(`## Cleanup: a pickup's cab kept, a person leaning on a car removed

Which pixels are the car is the cleanup's work on the model's answer, before
any placing ([segmentation.md](segmentation.md#nothing-lost-nothing-extra-how-it-is-measured)). Before and after on
drawn saliency maps (left the model's answer, middle the cleanup before these
rules, right now; white car kept, blue car lost, red not car kept), drawn by
internal/vision's TestWriteCleanupFigures from the shape tests' own maps:

![A pickup seen from behind, its rear window see-through: before, the cab was cut](cleanup-pickup-cab.png)

![A person leaning on a car's bonnet: before, the person's upper body was kept; now what rises above the car is cut](cleanup-person-on-bonnet.png)
`)
	return []byte(b.String()), pictures, nil
}

// boxFill is the share of the canvas the car's box covers in its binding
// dimension, the box carried to the canvas by the placement.
func boxFill(s *pipeline.Scene) float64 {
	minX, minY, maxX, maxY := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	b := s.Box
	for _, c := range []pipeline.Point{{X: float64(b.Min.X), Y: float64(b.Min.Y)}, {X: float64(b.Max.X), Y: float64(b.Min.Y)},
		{X: float64(b.Min.X), Y: float64(b.Max.Y)}, {X: float64(b.Max.X), Y: float64(b.Max.Y)}} {
		q := s.Place.Forward(c)
		minX, minY, maxX, maxY = math.Min(minX, q.X), math.Min(minY, q.Y), math.Max(maxX, q.X), math.Max(maxY, q.Y)
	}
	return math.Max((math.Min(maxX, float64(s.Canvas.X))-math.Max(minX, 0))/float64(s.Canvas.X),
		(math.Min(maxY, float64(s.Canvas.Y))-math.Max(minY, 0))/float64(s.Canvas.Y))
}

// predefinedSteps returns a predefined configuration's steps.
func predefinedSteps(name string) []catalog.Step {
	c, _ := catalog.PredefinedConfiguration(name)
	steps, err := catalog.DecodeSteps(c.Processors)
	if err != nil {
		panic(err) // the predefined configurations are fixed and valid
	}
	return steps
}

// warningCodes lists the warnings' codes, "none" for none.
func warningCodes(ws []showroom.Warning) string {
	if len(ws) == 0 {
		return "none"
	}
	codes := make([]string, len(ws))
	for i, w := range ws {
		codes[i] = w.Code
	}
	return strings.Join(codes, ", ")
}

// framingPair draws before and after side by side at one scale (so a
// larger output shows larger), each with a grey line round it and a label
// under it. Both are opaque: the cases put the car on a background.
func framingPair(before, after *image.NRGBA, beforeLabel, afterLabel string) *image.NRGBA {
	const maxH, maxW, gap, labelH = 300.0, 470.0, 12, 18
	bs, as := before.Rect.Size(), after.Rect.Size()
	sc := math.Min(maxH/float64(max(bs.Y, as.Y)), maxW/float64(max(bs.X, as.X)))
	size := func(p image.Point) image.Point {
		return image.Pt(int(math.Round(float64(p.X)*sc)), int(math.Round(float64(p.Y)*sc)))
	}
	bw, aw := size(bs), size(as)
	h := max(bw.Y, aw.Y)
	out := image.NewNRGBA(image.Rect(0, 0, bw.X+aw.X+gap+2, h+labelH+2))
	draw.Draw(out, out.Rect, image.NewUniform(color.NRGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	grey := color.NRGBA{150, 150, 150, 255}
	for _, p := range []struct {
		img  *image.NRGBA
		at   image.Point
		size image.Point
		text string
	}{{before, image.Pt(1, 1), bw, beforeLabel}, {after, image.Pt(bw.X+gap+1, 1), aw, afterLabel}} {
		cell := image.Rectangle{p.at, p.at.Add(p.size)}
		draw.Draw(out, cell, pipeline.Resample(p.img, p.size.X, p.size.Y), image.Point{}, draw.Over)
		frame := cell.Inset(-1)
		for x := frame.Min.X; x < frame.Max.X; x++ {
			out.SetNRGBA(x, frame.Min.Y, grey)
			out.SetNRGBA(x, frame.Max.Y-1, grey)
		}
		for y := frame.Min.Y; y < frame.Max.Y; y++ {
			out.SetNRGBA(frame.Min.X, y, grey)
			out.SetNRGBA(frame.Max.X-1, y, grey)
		}
		gallery.Label(out, cell.Min.X, h+labelH-2, p.text, color.NRGBA{60, 60, 60, 255})
	}
	return out
}

// cloneNRGBA returns a copy of img to draw on.
func cloneNRGBA(img *image.NRGBA) *image.NRGBA {
	out := image.NewNRGBA(img.Rect)
	copy(out.Pix, img.Pix)
	return out
}

// diagramDot marks p with a dot of radius 4.
func diagramDot(img *image.NRGBA, p pipeline.Point, c color.NRGBA) {
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			if dx*dx+dy*dy <= 16 {
				img.SetNRGBA(int(p.X)+dx, int(p.Y)+dy, c)
			}
		}
	}
}

// diagramLine marks a and b with dots and draws a dashed line through
// them reaching half their distance beyond each.
func diagramLine(img *image.NRGBA, a, b pipeline.Point, c color.NRGBA) {
	diagramDot(img, a, c)
	diagramDot(img, b, c)
	dx, dy := b.X-a.X, b.Y-a.Y
	n := math.Hypot(dx, dy)
	if n == 0 {
		return
	}
	for t := -0.5 * n; t <= 1.5*n; t++ {
		if int(t+n)/6%2 != 0 {
			continue
		}
		x, y := a.X+dx*t/n, a.Y+dy*t/n
		img.SetNRGBA(int(x), int(y), c)
		img.SetNRGBA(int(x), int(y)+1, c)
	}
}
