// Package pipeline is the scene pipeline and its processor catalog. The
// catalog (this file) is data: every processor with its parameters, their
// types, defaults and ranges, its dependencies and its cost. The
// configuration validator, GET /v1/processors, the OpenAPI document and the
// docs table all read it; nothing restates it by hand.
package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/showroom/showroom/internal/showroom"
)

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
			"new background show through.",
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
			"which the photo cuts the car on the output's edge. Without an output size the output is the background's size, made smaller where the car would " +
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
					"large: the run then fails with 422 INVALID_CONFIGURATION). With neither set: the background's size, " +
					"smaller where the car would be enlarged, its long side at least the photo's."},
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

// Step is one processor object of a configuration, decoded from JSON:
// "processorName" and the parameters. Numbers are float64.
type Step map[string]any

// Name returns the step's processorName.
func (s Step) Name() string { n, _ := s["processorName"].(string); return n }

// Cost returns the cost of a configuration: the sum of its processors'
// costs. Unknown processors count 0 (a validated configuration has none).
func Cost(steps []Step) int {
	total := 0
	for _, s := range steps {
		if p, ok := Lookup(s.Name()); ok {
			total += p.Cost
		}
	}
	return total
}

// ContentLookup tells the validator about a content name: its content type
// and whether the company (or the built-in content) has it. An error means
// the lookup itself failed, not that the content is missing.
type ContentLookup func(ctx context.Context, name string) (contentType string, found bool, err error)

var colourRE = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// Validate checks a configuration, decoded from a JSON array (each element
// as decoded by encoding/json into any), against the catalog: contract
// rules 1 and 2 (DetectCarMaskProcessor first, dependencies earlier), at
// most MaxProcessors, known processors and parameters, JSON types, ranges,
// enums, colours, required parameters, and (when content is not nil)
// referenced content that exists with a fitting type. It returns one Detail
// per problem, with a JSON pointer into the array, and nil when the
// configuration is valid. The error is only for a failing content lookup.
func Validate(ctx context.Context, elems []any, content ContentLookup) ([]showroom.Detail, error) {
	var ds []showroom.Detail
	add := func(ptr, format string, args ...any) {
		ds = append(ds, showroom.Detail{Pointer: ptr, Problem: fmt.Sprintf(format, args...)})
	}
	if len(elems) == 0 {
		add("", "a configuration needs at least one processor, and the first must be %s", DetectCarMask)
		return ds, nil
	}
	if len(elems) > MaxProcessors {
		add("", "a configuration may hold at most %d processors, this one has %d", MaxProcessors, len(elems))
		return ds, nil
	}
	seen := map[string]bool{}
	var bg setBackground
	for i, el := range elems {
		base := fmt.Sprintf("/%d", i)
		obj, ok := el.(map[string]any)
		if !ok {
			add(base, "must be a processor object")
			continue
		}
		rawName, present := obj["processorName"]
		name, isString := rawName.(string)
		switch {
		case !present:
			add(base+"/processorName", "is required")
			continue
		case !isString:
			add(base+"/processorName", "must be a string")
			continue
		}
		p, known := Lookup(name)
		if !known {
			add(base+"/processorName", "unknown processor %q; GET /v1/processors lists them", name)
			continue
		}
		if i == 0 && name != DetectCarMask {
			add(base+"/processorName", "the first processor must be %s", DetectCarMask)
		} else if i > 0 && name == DetectCarMask {
			add(base+"/processorName", "%s may only be the first processor", DetectCarMask)
		}
		for _, req := range p.Requires {
			if !seen[req] && !(i == 0 && req == DetectCarMask) {
				add(base+"/processorName", "%s requires %s earlier in the list", name, req)
			}
		}
		seen[name] = true
		for _, key := range sortedKeys(obj) {
			if key == "processorName" {
				continue
			}
			ptr := base + "/" + escapePointer(key)
			param, ok := p.Param(key)
			if !ok {
				add(ptr, "unknown parameter of %s", name)
				continue
			}
			problem, err := checkValue(ctx, param, obj[key], content)
			if err != nil {
				return nil, err
			}
			if problem != "" {
				add(ptr, "%s", problem)
			}
		}
		for _, param := range p.Params {
			if _, ok := obj[param.Name]; param.Required && !ok {
				add(base+"/"+escapePointer(param.Name), "is required by %s", name)
			}
		}
		if set, ok := backgroundSet(name, obj); ok {
			set.at = i
			if bg.value != "" && !strings.EqualFold(bg.value, set.value) {
				add(base+"/"+set.ptr, "%s's %s %s would replace the background %s that %s at /%d set: a configuration "+
					"has one background; leave it to one of them (%s without background keeps the earlier one)",
					name, set.param, set.value, bg.value, bg.by, bg.at, PlaceCar)
			} else if bg.value == "" {
				set.by = name
				bg = set
			}
		}
	}
	return ds, nil
}

// setBackground is the background a step sets, for Validate's rule that a
// configuration has one: a later processor that silently replaced an
// earlier one's background (PlaceCarProcessor's white over an uploaded
// studio) was a trap no dealer would see until the results came back.
type setBackground struct {
	value      string // a colour, or a quoted content name
	param, ptr string // the parameter that sets it and where to point
	by         string
	at         int
}

// backgroundSet returns the background a step sets, if it sets one:
// CleanBackgroundProcessor always (its colour, white by default),
// AddBackgroundAndCropProcessor its image, PlaceCarProcessor only with
// an explicit background (without one it keeps an earlier background).
// A value of the wrong type sets nothing: Validate reports it already.
func backgroundSet(name string, obj map[string]any) (setBackground, bool) {
	param, ptr := "", ""
	switch name {
	case CleanBackground:
		param, ptr = "color", "color"
		if _, ok := obj[param]; !ok {
			return setBackground{value: "#FFFFFF", param: param, ptr: "processorName"}, true
		}
	case PlaceCar:
		param, ptr = "background", "background"
	case AddBackgroundAndCrop:
		n, ok := obj["background"].(string)
		return setBackground{value: fmt.Sprintf("%q", n), param: "background", ptr: "background"}, ok
	default:
		return setBackground{}, false
	}
	c, ok := obj[param].(string)
	if !ok || !colourRE.MatchString(c) {
		return setBackground{}, false
	}
	return setBackground{value: strings.ToUpper(c), param: param, ptr: ptr}, true
}

// checkValue returns what is wrong with v as a value of param, or "".
func checkValue(ctx context.Context, param *Param, v any, content ContentLookup) (string, error) {
	switch param.Type {
	case Number, Integer:
		f, ok := asFloat(v)
		if !ok {
			return "must be a " + string(param.Type), nil
		}
		if param.Type == Integer && f != math.Trunc(f) {
			return "must be an integer", nil
		}
		if param.Min != nil && param.Max != nil && (f < *param.Min || f > *param.Max) {
			return fmt.Sprintf("must be between %s and %s", fmtNum(*param.Min), fmtNum(*param.Max)), nil
		}
	case Boolean:
		if _, ok := v.(bool); !ok {
			return "must be a boolean (true or false)", nil
		}
	case String:
		s, ok := v.(string)
		if !ok {
			return "must be a string", nil
		}
		switch param.Kind {
		case Colour:
			if !colourRE.MatchString(s) {
				return "must be a colour of the form #RRGGBB", nil
			}
		case Enum:
			for _, e := range param.Enum {
				if s == e {
					return "", nil
				}
			}
			return "must be one of " + strings.Join(param.Enum, ", "), nil
		case ContentRef:
			if !showroom.ValidName(s) {
				return "must be a content name (1 to 64 letters and digits)", nil
			}
			if content == nil {
				return "", nil
			}
			typ, found, err := content(ctx, s)
			if err != nil {
				return "", err
			}
			if !found {
				return fmt.Sprintf("no content named %q; upload it first", s), nil
			}
			for _, t := range param.ContentTypes {
				if t == typ {
					return "", nil
				}
			}
			return fmt.Sprintf("content %q is of type %s; %s needed", s, typ, strings.Join(param.ContentTypes, " or ")), nil
		}
	}
	return "", nil
}

// ContentRefs returns the content names a (validated) configuration uses,
// each once, in order of appearance.
func ContentRefs(steps []Step) []string {
	var names []string
	seen := map[string]bool{}
	for _, s := range steps {
		p, ok := Lookup(s.Name())
		if !ok {
			continue
		}
		for _, param := range p.Params {
			if param.Kind != ContentRef {
				continue
			}
			if n, ok := s[param.Name].(string); ok && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// Params are a processor's effective parameters: the step's values with
// the catalog's defaults filled in. Numbers are float64. Parameters without
// a default that the step does not set are absent; Has tells.
type Params map[string]any

// EffectiveParams returns the parameters of a validated step with defaults
// applied. It fails for an unknown processor.
func EffectiveParams(s Step) (Params, error) {
	p, ok := Lookup(s.Name())
	if !ok {
		return nil, fmt.Errorf("unknown processor %q", s.Name())
	}
	out := Params{}
	for _, param := range p.Params {
		if v, ok := s[param.Name]; ok {
			if f, isNum := asFloat(v); isNum {
				v = f
			}
			out[param.Name] = v
		} else if param.Default != nil {
			if i, isInt := param.Default.(int); isInt {
				out[param.Name] = float64(i)
			} else {
				out[param.Name] = param.Default
			}
		}
	}
	return out, nil
}

// Has reports whether the parameter is set, by the step or by a default.
func (p Params) Has(name string) bool { _, ok := p[name]; return ok }

// Float returns a number parameter, 0 when absent.
func (p Params) Float(name string) float64 { f, _ := asFloat(p[name]); return f }

// Int returns an integer parameter, 0 when absent.
func (p Params) Int(name string) int { f, _ := asFloat(p[name]); return int(f) }

// Bool returns a boolean parameter, false when absent.
func (p Params) Bool(name string) bool { b, _ := p[name].(bool); return b }

// String returns a string parameter (a colour, content name or enum value),
// "" when absent.
func (p Params) String(name string) string { s, _ := p[name].(string); return s }

// RGB returns a colour parameter as its red, green and blue bytes; white
// when absent or malformed.
func (p Params) RGB(name string) (r, g, b uint8) {
	s := p.String(name)
	if !colourRE.MatchString(s) {
		return 255, 255, 255
	}
	var v uint32
	fmt.Sscanf(s[1:], "%06x", &v)
	return uint8(v >> 16), uint8(v >> 8), uint8(v)
}

// DecodeSteps decodes a configuration's JSON array into steps.
func DecodeSteps(raw json.RawMessage) ([]Step, error) {
	var steps []Step
	if err := json.Unmarshal(raw, &steps); err != nil {
		return nil, err
	}
	return steps, nil
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	}
	return 0, false
}

func fmtNum(f float64) string { return fmt.Sprintf("%g", f) }

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

func sortedKeys(m map[string]any) []string {
	// Sorted so that details come in a stable order.
	return slices.Sorted(maps.Keys(m))
}
