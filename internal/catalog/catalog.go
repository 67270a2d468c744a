// Package catalog is what the system ships, as declarations and rules in
// pure Go: every processor with its parameters, their types, defaults and
// ranges, its dependencies and its cost (this file); the typed parameters
// each processor runs with (params.go); the validation of configurations
// (validate.go); the predefined configurations and the names and sizes of
// the built-in content (predefined.go). It draws no pixels: the renderer
// (pipeline) builds each processor's step from its typed parameters and
// draws the built-in art. The validator, the renderer, GET /v1/processors,
// the OpenAPI document and the docs table all read it; nothing restates it
// by hand. It needs no cgo, so the rules of content and configurations
// compile and test without the image libraries.
package catalog

import "github.com/showroom/showroom/internal/showroom"

// Processor names, as they appear in configurations.
const (
	DetectCarMask          = "DetectCarMaskProcessor"
	DetectCarShadow        = "DetectCarShadowProcessor"
	PlaceShadow            = "PlaceShadowProcessor"
	CleanBackground        = "CleanBackgroundProcessor"
	SemiTransparentWindows = "SemiTransparentWindowsProcessor"
	PlaceCar               = "PlaceCarProcessor"
	AddBackgroundAndCrop   = "AddBackgroundAndCropProcessor"
	AddPoster              = "AddPosterProcessor"
	Resize                 = "ResizeProcessor"
)

// MaxProcessors is the most processors one configuration may hold.
const MaxProcessors = 32

// MaxNamedSide is the largest side a processor's size parameters name
// (outputWidth, outputHeight, width, height): the renderer keeps an output
// of MaxNamedSide×MaxNamedSide always within its output limit.
const MaxNamedSide = 8192

// ParamType is a parameter's JSON type.
type ParamType string

// The JSON types parameters use. An integer is a JSON number without a
// fraction.
const (
	Number  ParamType = "number"
	Integer ParamType = "integer"
	Boolean ParamType = "boolean"
	String  ParamType = "string"
)

// ParamKind narrows what a string parameter may hold.
type ParamKind string

// The kinds of string parameter. A plain string has no kind.
const (
	// Colour is a hex colour of the form #RRGGBB (either case).
	Colour ParamKind = "color"
	// ContentRef names content of the company (or built-in content) of one
	// of the parameter's ContentTypes.
	ContentRef ParamKind = "content"
	// Enum is one of the parameter's Enum values.
	Enum ParamKind = "enum"
)

// Param describes one parameter of a processor.
type Param struct {
	Name string    `json:"name"`
	Type ParamType `json:"type"`
	Kind ParamKind `json:"kind,omitempty"`
	// Default is the value used when the parameter is absent: float64 for
	// number, int for integer, bool or string. Nil means no fixed default
	// (the description says what happens, e.g. "the background's width").
	Default any `json:"default,omitempty"`
	// Min and Max bound number and integer parameters, inclusive.
	Min *float64 `json:"minimum,omitempty"`
	Max *float64 `json:"maximum,omitempty"`
	// Enum lists the allowed values of an Enum parameter.
	Enum []string `json:"enum,omitempty"`
	// ContentTypes lists the content types a ContentRef parameter accepts.
	ContentTypes []string `json:"contentTypes,omitempty"`
	Required     bool     `json:"required"`
	Description  string   `json:"description"`
}

// Processor describes one processor of the catalog.
type Processor struct {
	Name        string `json:"processorName"`
	Description string `json:"description"`
	// Cost is what the processor adds to a configuration's cost, in credits:
	// a credit pays for running the segmentation model, so detection costs
	// 1 and every other processor, which works on the detected scene, 0.
	Cost int `json:"cost"`
	// Requires names processors that must appear earlier in a configuration.
	Requires []string `json:"requires"`
	Params   []Param  `json:"parameters"`
}

// Param returns the processor's parameter of that name.
func (p *Processor) Param(name string) (*Param, bool) {
	for i := range p.Params {
		if p.Params[i].Name == name {
			return &p.Params[i], true
		}
	}
	return nil, false
}

func bound(v float64) *float64 { return &v }

func num(name string, def, min, max float64, desc string) Param {
	return Param{Name: name, Type: Number, Default: def, Min: bound(min), Max: bound(max), Description: desc}
}

func colour(name, def, desc string) Param {
	return Param{Name: name, Type: String, Kind: Colour, Default: def, Description: desc}
}

// catalog is every processor, in the order the docs list them. Defaults and
// ranges are DESIGN section 7's.
var catalog = []Processor{
	{
		Name: DetectCarMask,
		Description: "Segments the car with the model, keeps the main car and refines its edges at full resolution. " +
			"Must be the first processor of every configuration. Alone, the result is the car cut out on transparency.",
		Cost: 1,
		Params: []Param{
			num("carDetectionThreshold", 0.5, 0, 1,
				"Least confidence that a car was found; below it the run fails with 422 NO_CAR_DETECTED."),
			num("carCropThreshold", 1, 0, 1,
				"Largest share of the car's outline that may run along the photo's border; above it the run fails "+
					"with 422 CAR_CROPPED. 1 never rejects."),
		},
	},
	{
		Name:        DetectCarShadow,
		Description: "Finds the shadow the car casts on the ground in the photo, as a soft darkness layer below the car: its shape and darkness without the ground's texture, its edge softer away from the tyres, and a contact shadow under each tyre.",
		Requires:    []string{DetectCarMask},
	},
	{
		Name:        PlaceShadow,
		Description: "Draws the detected shadow under the car in its new place.",
		Requires:    []string{DetectCarMask, DetectCarShadow},
		Params: []Param{
			num("opacity", 0.7, 0, 1, "Opacity of the drawn shadow."),
		},
	},
	{
		Name: CleanBackground,
		Description: "Replaces the background with a colour; with enableShadow, keeps the detected shadow or, " +
			"if none was detected, draws a soft contact shadow under the wheels.",
		Requires: []string{DetectCarMask},
		Params: []Param{
			{Name: "enableShadow", Type: Boolean, Default: true, Description: "Keep or draw a shadow under the car."},
			colour("color", "#FFFFFF", "Background colour, #RRGGBB."),
		},
	},
	{
		Name: SemiTransparentWindows,
		Description: "Finds the glass (regions inside the car's outline that show the old background) and lets the " +
			"new background show through. A pane found only in part is left as photographed, not drawn torn; " +
			"when no glass is found at all the result carries the WINDOWS_NOT_FOUND warning.",
		Requires: []string{DetectCarMask},
		Params: []Param{
			num("windowTransparency", 0.5, 0, 1, "How much of the new background shows through the glass: 0 opaque, 1 clear."),
			num("windowBrightness", 1, 0, 2, "Factor on the glass's brightness."),
		},
	},
	{
		Name: PlaceCar,
		Description: "Scales the car to fit carWidth x carHeight of the canvas, centres it and stands it on the horizon " +
			"as photographed: its far wheels touch the horizon, its near wheels stand lower. A side along which " +
			"the photo cuts the car lies on the canvas's edge instead. The canvas is the " +
			"photo's size (or the one an earlier AddBackgroundAndCropProcessor set); ResizeProcessor gives a " +
			"fixed output size.",
		Requires: []string{DetectCarMask},
		Params: []Param{
			num("horizonLine", 0.75, 0, 1, "The ground line, as a share of the canvas height from the top: where the "+
				"far wheels touch the ground (the car is raised where its near wheels would leave the canvas)."),
			num("carWidth", 0.8, 0, 1, "Largest width of the car, as a share of the canvas width."),
			num("carHeight", 0.7, 0, 1, "Largest height of the car, as a share of the canvas height."),
			colour("background", "#FFFFFF", "Canvas colour, #RRGGBB. Without it, the background an earlier "+
				"processor set is kept (white where none did); with it, a different background set earlier "+
				"is refused (a configuration has one background)."),
			{Name: "useKeypoints", Type: Boolean, Default: false,
				Description: "Level a slightly tilted car (up to 4 degrees) on the line through its wheels' " +
					"contact points, when they are at least half the car's width apart; a steeper line, or one " +
					"through closer wheels, is a three-quarter view's perspective and is kept, and a car the photo " +
					"cuts is not turned. Without it the car stands on its wheels too, as photographed."},
		},
	},
	{
		Name: AddBackgroundAndCrop,
		Description: "Puts the car on an uploaded BACKGROUND_SIMPLE image (scaled to cover the output), standing on " +
			"its floor: the far wheels a fifth of the car's height (at most half the floor) below the line where " +
			"the floor meets the wall, the near wheels lower as photographed, the car as large as the margins " +
			"allow (at least 72% of the output where they allow that much), a tilted photo levelled, a side along " +
			"which the photo cuts the car on the output's edge. Without an output size the output is the background's size (narrowed to " +
			"the car's own shape where the photo cuts it at both its left and right, or its top and bottom), made smaller where the car would " +
			"otherwise be enlarged beyond its photographed pixels, but never with a long side under the photo's.",
		Requires: []string{DetectCarMask},
		Params: []Param{
			{Name: "background", Type: String, Kind: ContentRef, ContentTypes: []string{showroom.ContentBackground},
				Required: true, Description: "Name of the BACKGROUND_SIMPLE content to use."},
			num("horizonLine", 0.75, 0, 1, "Where the background's floor meets its wall, as a share of its height "+
				"from the top (the built-in showroomStudio: 0.72). The car stands on the floor below it."),
			num("marginLeft", 0.05, 0, 0.45, "Least space left of the car, as a share of the output width."),
			num("marginRight", 0.05, 0, 0.45, "Least space right of the car, as a share of the output width."),
			num("marginTop", 0.05, 0, 0.45, "Least space above the car, as a share of the output height."),
			num("marginBottom", 0.05, 0, 0.45, "Least space below the car, as a share of the output height. "+
				"A wall–floor line at or below it leaves no floor: the car then stands on this margin."),
			{Name: "outputWidth", Type: Integer, Min: bound(64), Max: bound(MaxNamedSide),
				Description: "Width of the output in pixels, honoured exactly; with outputHeight unset the " +
					"height follows the background's aspect (a background of an extreme shape can make that too " +
					"large: the run then fails with 422 INVALID_CONFIGURATION). With neither set: the background's size " +
					"(narrowed to a car the photo cuts at two opposite sides), smaller where the car would be enlarged, " +
					"its long side at least the photo's."},
			{Name: "outputHeight", Type: Integer, Min: bound(64), Max: bound(MaxNamedSide),
				Description: "Height of the output in pixels, honoured exactly; with outputWidth unset the " +
					"width follows the background's aspect."},
		},
	},
	{
		Name:        AddPoster,
		Description: "Overlays POSTER content (a logo or sign) on the image at a corner or the centre.",
		Requires:    []string{DetectCarMask},
		Params: []Param{
			{Name: "poster", Type: String, Kind: ContentRef, ContentTypes: []string{showroom.ContentPoster},
				Required: true, Description: "Name of the POSTER content to overlay."},
			{Name: "position", Type: String, Kind: Enum, Default: "bottom-right",
				Enum:        []string{"top-left", "top-right", "bottom-left", "bottom-right", "center"},
				Description: "Where the poster goes."},
			num("scale", 0.2, 0.01, 1, "Poster width as a share of the output width."),
			num("opacity", 1, 0, 1, "Opacity of the poster."),
			num("margin", 0.03, 0, 0.45, "Space between the poster and the image's edges, as a share of the output width."),
		},
	},
	{
		Name: Resize,
		Description: "Resizes the output. With only width or only height, the other follows the aspect ratio " +
			"(an output too large from a photo of an extreme shape fails the run with 422 INVALID_CONFIGURATION).",
		Requires: []string{DetectCarMask},
		Params: []Param{
			{Name: "width", Type: Integer, Min: bound(16), Max: bound(MaxNamedSide), Description: "Output width in pixels."},
			{Name: "height", Type: Integer, Min: bound(16), Max: bound(MaxNamedSide), Description: "Output height in pixels."},
			{Name: "fit", Type: String, Kind: Enum, Default: "contain", Enum: []string{"contain", "cover", "fill"},
				Description: "contain: fit inside and pad; cover: fill and crop; fill: stretch."},
			colour("background", "#FFFFFF", "Colour of contain's padding, #RRGGBB."),
		},
	},
}

// Catalog returns every processor. The slice is a copy; the processors'
// parameter slices are shared and must not be changed.
func Catalog() []Processor { return append([]Processor(nil), catalog...) }

// Lookup returns the processor of that name.
func Lookup(name string) (*Processor, bool) {
	for i := range catalog {
		if catalog[i].Name == name {
			return &catalog[i], true
		}
	}
	return nil, false
}
