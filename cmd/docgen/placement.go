package main

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/gallery"
	"github.com/showroom/showroom/internal/pipeline"
)

// placementDocs is the docs' section on where the car goes: what each
// placement parameter means, with the picture placementPicture draws.
const placementDocs = `
## Placing the car

PlaceCarProcessor and AddBackgroundAndCropProcessor stand the car on its
wheels, not on its bounding box. The wheels' contact points are found in the
car's own outline: every dark, grey, round dip of its lower edge is a tyre
(a bumper's corner, a sill or an exhaust is not: the far front tyre of a
three-quarter view peeks out under the sill, higher than the near ones), the
two lowest a quarter of the car apart give the ground line, and the lowest
point of each end of the car finds a third wheel further back in a
three-quarter view. The highest of these is the *far* wheel; the others stand
lower, as photographed: the placement keeps the photo's perspective and never
flattens it. When no two wheels are found (a front view whose bumper hides
the tyres) the bottom of the car's box stands in for them.

### The frame

The car fills the frame the same way whatever the view: with the default
parameters its box covers 65–92% of the canvas in its binding dimension (the
one it fills the most: the width of a side view, the height of a front view)
and keeps clear of every side of the canvas (PlaceCarProcessor: carWidth 0.8
or carHeight 0.7 of it, at least 4% of the height from the top and bottom
edges; AddBackgroundAndCropProcessor: as large as the margins allow, and at
least 72% of the canvas when the margins allow that much). A three-quarter
view seen from above, whose near wheels stand well below its far ones, needs
more floor than a side view: rather than shrinking it to half the canvas to
fit the floor, AddBackgroundAndCropProcessor enlarges the background about its
bottom edge (at most 1.6 times), which raises the wall–floor line, and past
that narrows the gap behind the car (never under a twenty-fifth of its height)
and lets its near wheels into the bottom margin down to 4%.

Where the photo cuts the car (its outline runs along the photo's border for
2% of its extent there: a close crop slicing the tyres or the front off; or
along a line within three of the model's pixels of it, over which the model's
answer fades at a border), the cut side lies on the canvas's edge: the car runs out of the picture as it ran
out of the photo, never a sliced car in the middle of the floor with a shadow
under the cut. Margins and the floor do not apply on that side; a car cut at
the bottom has no wheels to stand on and is as large as the other margins
allow. A car cut at two opposite sides spans the canvas between them. The
result carries the CAR_CUT_BY_FRAME warning.

A tilted photo is levelled: when the two tyres found stand at least half the
car's width apart (a side, front or rear view: in a three-quarter view the
near wheels are closer and their line slopes with the perspective) and the
line through their contact points is off level by at most 4 degrees, the car
is turned about its ground line so that line is level.
AddBackgroundAndCropProcessor always does so, PlaceCarProcessor with
useKeypoints (default_white sets it). A car the photo cuts is not turned: its
cut edge must stay along the canvas's edge. The TILTED warning gives the angle
the levelling used.

![Where the car goes: PlaceCarProcessor on white, left; AddBackgroundAndCropProcessor on the built-in studio, right](processors/placement.png)

*Left, PlaceCarProcessor (horizonLine 0.7, carWidth 0.6): the far wheel on
the horizon, the near one lower. Right, AddBackgroundAndCropProcessor on the
built-in studio (horizonLine 0.72, marginLeft and marginRight 0.2, the others
0.05): the far wheel the gap (a fifth of the car's height) below the
wall–floor line, the car inside the margins (dashed). Red dots: the wheels'
contact points.*

| parameter | processor | meaning |
|---|---|---|
| ` + "`horizonLine`" + ` | PlaceCar | The ground line on a plain colour, as a share of the canvas height from the top. The far wheels touch it; the near wheels stand lower by what the photo shows. The car is raised where its near wheels would leave the canvas. |
| ` + "`horizonLine`" + ` | AddBackgroundAndCrop | Where the background's floor meets its wall, as a share of the background's height from the top (0.72 for the built-in studio). The background is scaled to cover the output and shifted, where the cover allows, to keep this line at the same share of the output's height. |
| ` + "`carWidth`, `carHeight`" + ` | PlaceCar | The largest share of the canvas width and height the car may take; the car keeps its aspect, so one of the two decides. |
| ` + "`marginLeft`, `marginRight`, `marginTop`, `marginBottom`" + ` | AddBackgroundAndCrop | The least space between the car and each edge of the output, as a share of the output's width (left, right) or height (top, bottom). The car is as large as they allow while standing on the floor. |
| ` + "`outputWidth`, `outputHeight`" + ` | AddBackgroundAndCrop | The output size, honoured exactly; with one given, the other follows the background's aspect. With neither, the background's size, made smaller by as much as the car would otherwise be enlarged beyond its photographed pixels (the picture is the same, only smaller), but never with a long side under the photo's (the picture is then scaled up, the car enlarged with it). |
| ` + "`useKeypoints`" + ` | PlaceCar | Levels a slightly tilted car (up to 4°) on the line through its wheels' contact points, when they are at least half the car's width apart. A steeper line, or one through closer wheels, is a three-quarter view's perspective and is kept. Without it the car stands on its wheels just the same. AddBackgroundAndCrop levels as this does, always. |

On a background with a floor the far wheels stand below the wall–floor line
by a gap of a fifth of the car's height on the output. In a studio the wall
stands metres behind the car, and seen from a camera at about half a car's
height that much floor shows between the car and the wall whatever the photo's
size or view. On a shallow floor the gap is at most half the floor between the
line and the bottom margin, and the car is made smaller until its near wheels
stand above the bottom margin. A background whose line lies at or below the
bottom margin has no floor to stand on: the car then stands on the bottom
margin. The shadow is drawn on the floor only, fading where the floor turns
into the wall, and fading out towards a side of the photo it runs out of
where the car itself does not (see [glass-and-shadow.md](glass-and-shadow.md)).

PlaceCarProcessor's canvas is the photo's size (a car smaller than carWidth
or carHeight of it is enlarged); ResizeProcessor gives a fixed output size.
Without one, no output is smaller than the photo: its long side is at least
the photo's, as remove.bg and Photoroom keep the input's size.
`

// placementPicture draws the docs' picture of where the car goes: the
// drawn car with its far wheel raised (as in a three-quarter view) placed
// by PlaceCarProcessor and by AddBackgroundAndCropProcessor, with the
// lines, contact points and margins marked.
func placementPicture() (*image.NRGBA, error) {
	car := drawncar.NewInView(480, 300, 0, 0.05)
	e, err := pipeline.NewEngine(pipeline.EngineConfig{Segmenter: syntheticSegmenter{car}, Content: &pipeline.BuiltinContent{}})
	if err != nil {
		return nil, err
	}
	const w, h = 480, 320
	out := image.NewNRGBA(image.Rect(0, 0, 2*w+4, h))
	draw.Draw(out, out.Rect, image.NewUniform(color.NRGBA{255, 255, 255, 255}), image.Point{}, draw.Src)
	blue, red, green, orange := color.NRGBA{30, 90, 200, 255}, color.NRGBA{220, 30, 30, 255},
		color.NRGBA{20, 140, 60, 255}, color.NRGBA{220, 120, 0, 255}

	// Left: PlaceCar on white, on a canvas of the panel's size.
	left, s, err := placementScene(e, car, []catalog.Step{{"processorName": catalog.DetectCarMask},
		{"processorName": catalog.PlaceCar, "horizonLine": 0.7, "carWidth": 0.6, "background": "#FFFFFF"}}, w, h)
	if err != nil {
		return nil, err
	}
	y := int(math.Round(0.7 * float64(left.Rect.Dy())))
	diagramDashes(left, 0, left.Rect.Dx(), y, blue)
	gallery.Label(left, 8, y-6, "horizonLine", blue)
	far, near := diagramContacts(left, s, car, red)
	gallery.Label(left, int(far.X)-60, int(far.Y)+18, "far wheel on it", red)
	gallery.Label(left, int(near.X)-40, int(near.Y)+18, "near wheel lower", red)
	draw.Draw(out, left.Rect, left, image.Point{}, draw.Src)

	// Right: AddBackgroundAndCrop on the built-in studio, with side
	// margins wide enough to leave the wall–floor line in sight.
	const side = 0.2
	right, s, err := placementScene(e, car, []catalog.Step{{"processorName": catalog.DetectCarMask},
		{"processorName": catalog.AddBackgroundAndCrop, "background": catalog.StudioBackground, "horizonLine": catalog.StudioHorizon,
			"marginLeft": side, "marginRight": side, "outputWidth": float64(w), "outputHeight": float64(h)}}, w, h)
	if err != nil {
		return nil, err
	}
	line := int(math.Round(s.Floor))
	diagramDashes(right, 0, w, line, blue)
	gallery.Label(right, 4, line-20, "horizonLine", blue)
	gallery.Label(right, 4, line-6, "wall", blue)
	gallery.Label(right, 4, line+14, "floor", blue)
	m := image.Rect(int(side*w), int(0.05*h), int((1-side)*w), int(0.95*h))
	for _, yy := range []int{m.Min.Y, m.Max.Y} {
		diagramDashes(right, m.Min.X, m.Max.X, yy, green)
	}
	for yy := m.Min.Y; yy < m.Max.Y; yy++ {
		if yy/6%2 == 0 {
			right.SetNRGBA(m.Min.X, yy, green)
			right.SetNRGBA(m.Max.X, yy, green)
		}
	}
	gallery.Label(right, m.Max.X+4, m.Min.Y+12, "margins", green)
	far, _ = diagramContacts(right, s, car, red)
	// The gap: a bracket left of the car from the line down to the far
	// wheel's contact row, and a dotted guide to the wheel.
	gx := m.Min.X - 14
	for yy := line; yy <= int(far.Y); yy++ {
		right.SetNRGBA(gx, yy, orange)
	}
	for _, yy := range []int{line, int(far.Y)} {
		for x := gx - 4; x <= gx+4; x++ {
			right.SetNRGBA(x, yy, orange)
		}
	}
	for x := gx; x < int(far.X)-5; x += 3 {
		right.SetNRGBA(x, int(far.Y), orange)
	}
	gallery.Label(right, gx-30, (line+int(far.Y))/2+5, "gap", orange)
	draw.Draw(out, right.Rect.Add(image.Pt(w+4, 0)), right, image.Point{}, draw.Src)
	return out, nil
}

// placementScene runs steps on the car's photo, with a canvas of w×h when
// the steps leave the photo's, and renders it; the scene says where the
// car went.
func placementScene(e *pipeline.Engine, car *drawncar.Car, steps []catalog.Step, w, h int) (*image.NRGBA, *pipeline.Scene, error) {
	raw, err := json.Marshal(steps)
	if err != nil {
		return nil, nil, err
	}
	s := pipeline.NewScene(car.Photo)
	s.Canvas = image.Pt(w, h)
	if err := e.Apply(context.Background(), raw, s); err != nil {
		return nil, nil, err
	}
	img, _ := pipeline.Render(s)
	return img, s, nil
}

// diagramContacts marks the car's wheels' contact points on the rendered
// canvas and returns them, the higher (far) one first.
func diagramContacts(img *image.NRGBA, s *pipeline.Scene, car *drawncar.Car, c color.NRGBA) (far, near pipeline.Point) {
	far, near = s.Place.Forward(pipeline.Point(car.Contacts[0])), s.Place.Forward(pipeline.Point(car.Contacts[1]))
	if far.Y > near.Y {
		far, near = near, far
	}
	diagramDot(img, far, c)
	diagramDot(img, near, c)
	return far, near
}

// diagramDashes draws a dashed horizontal line from x0 to x1 at row y.
func diagramDashes(img *image.NRGBA, x0, x1, y int, c color.NRGBA) {
	for x := x0; x <= x1; x++ {
		if x/6%2 == 0 {
			img.SetNRGBA(x, y, c)
			img.SetNRGBA(x, y+1, c)
		}
	}
}
