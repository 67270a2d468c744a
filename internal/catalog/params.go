package catalog

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"reflect"
	"strings"

	"github.com/showroom/showroom/internal/showroom"
)

// Params are one processor's parameters, typed: one of the *Params structs
// below. Each field is tagged `param:"name"` with the catalog parameter it
// holds, and Parse fills it from the step and the catalog's defaults, so a
// processor reads fields the compiler checks, never a name in a string.
// A tag `param:"name,set"` on a bool field tells instead whether the step
// gave the parameter itself, for a processor whose absent parameter means
// "keep what an earlier processor set".
type Params interface {
	// Processor returns the processor's name.
	Processor() string
}

// DetectCarMaskParams are DetectCarMaskProcessor's parameters.
type DetectCarMaskParams struct {
	DetectionThreshold float64 `param:"carDetectionThreshold"`
	CropThreshold      float64 `param:"carCropThreshold"`
}

// DetectCarShadowParams are DetectCarShadowProcessor's parameters: none.
type DetectCarShadowParams struct{}

// PlaceShadowParams are PlaceShadowProcessor's parameters.
type PlaceShadowParams struct {
	Opacity float64 `param:"opacity"`
}

// CleanBackgroundParams are CleanBackgroundProcessor's parameters.
type CleanBackgroundParams struct {
	EnableShadow bool        `param:"enableShadow"`
	Color        color.NRGBA `param:"color"`
}

// WindowsParams are SemiTransparentWindowsProcessor's parameters.
type WindowsParams struct {
	Transparency float64 `param:"windowTransparency"`
	Brightness   float64 `param:"windowBrightness"`
}

// PlaceCarParams are PlaceCarProcessor's parameters.
type PlaceCarParams struct {
	HorizonLine float64     `param:"horizonLine"`
	CarWidth    float64     `param:"carWidth"`
	CarHeight   float64     `param:"carHeight"`
	Background  color.NRGBA `param:"background"`
	// OwnBackground is whether the step names a background; without one
	// the processor keeps the background an earlier processor set.
	OwnBackground bool `param:"background,set"`
	UseKeypoints  bool `param:"useKeypoints"`
}

// AddBackgroundParams are AddBackgroundAndCropProcessor's parameters.
// OutputWidth and OutputHeight are 0 when not given (they have no default,
// and the catalog allows no 0).
type AddBackgroundParams struct {
	Background   string  `param:"background"`
	HorizonLine  float64 `param:"horizonLine"`
	MarginLeft   float64 `param:"marginLeft"`
	MarginRight  float64 `param:"marginRight"`
	MarginTop    float64 `param:"marginTop"`
	MarginBottom float64 `param:"marginBottom"`
	OutputWidth  int     `param:"outputWidth"`
	OutputHeight int     `param:"outputHeight"`
}

// PosterParams are AddPosterProcessor's parameters.
type PosterParams struct {
	Poster   string  `param:"poster"`
	Position string  `param:"position"`
	Scale    float64 `param:"scale"`
	Opacity  float64 `param:"opacity"`
	Margin   float64 `param:"margin"`
}

// ResizeParams are ResizeProcessor's parameters. Width and Height are 0
// when not given (they have no default, and the catalog allows no 0).
type ResizeParams struct {
	Width      int         `param:"width"`
	Height     int         `param:"height"`
	Fit        string      `param:"fit"`
	Background color.NRGBA `param:"background"`
}

// Processor implements Params: each struct names its processor.
func (DetectCarMaskParams) Processor() string   { return DetectCarMask }
func (DetectCarShadowParams) Processor() string { return DetectCarShadow }
func (PlaceShadowParams) Processor() string     { return PlaceShadow }
func (CleanBackgroundParams) Processor() string { return CleanBackground }
func (WindowsParams) Processor() string         { return SemiTransparentWindows }
func (PlaceCarParams) Processor() string        { return PlaceCar }
func (AddBackgroundParams) Processor() string   { return AddBackgroundAndCrop }
func (PosterParams) Processor() string          { return AddPoster }
func (ResizeParams) Processor() string          { return Resize }

// paramTypes is each processor's Params type, by name.
var paramTypes = func() map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for _, p := range []Params{DetectCarMaskParams{}, DetectCarShadowParams{}, PlaceShadowParams{},
		CleanBackgroundParams{}, WindowsParams{}, PlaceCarParams{}, AddBackgroundParams{}, PosterParams{}, ResizeParams{}} {
		m[p.Processor()] = reflect.TypeOf(p)
	}
	return m
}()

// Configuration is a parsed configuration: each processor's typed
// parameters, in order.
type Configuration []Params

// Parse checks a configuration (its processors' JSON array, as stored)
// against the catalog and returns its processors' typed parameters, the
// catalog's defaults filled in. It accepts exactly what Validate accepts
// without a content lookup; anything else is INVALID_CONFIGURATION with
// Validate's details. Parse it once, when it is saved or a job starts, and
// hand the result on.
func Parse(raw json.RawMessage) (Configuration, error) {
	invalid := func(ds []showroom.Detail, cause error) error {
		e := showroom.Errorf(showroom.EInvalidConfig, "the configuration is not valid")
		e.Details, e.Cause = ds, cause
		return e
	}
	var elems []any
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, invalid(nil, err)
	}
	ds, err := Validate(context.Background(), elems, nil)
	if err != nil {
		return nil, err
	}
	if len(ds) > 0 {
		return nil, invalid(ds, nil)
	}
	cfg := make(Configuration, len(elems))
	for i, el := range elems {
		if cfg[i], err = ParseStep(Step(el.(map[string]any))); err != nil {
			return nil, invalid(nil, err)
		}
	}
	return cfg, nil
}

// ParseStep returns the typed parameters of a step that Validate accepted:
// its values, the catalog's defaults where it gives none, the zero value
// for a parameter without a default that it does not give. It fails for
// an unknown processor or a value of the wrong type.
func ParseStep(s Step) (Params, error) {
	proc, ok := Lookup(s.Name())
	if !ok {
		return nil, fmt.Errorf("unknown processor %q", s.Name())
	}
	t, ok := paramTypes[proc.Name]
	if !ok {
		return nil, fmt.Errorf("catalog: processor %s has no Params type", proc.Name)
	}
	v := reflect.New(t).Elem()
	for i := range t.NumField() {
		name, set := paramTag(t.Field(i))
		param, ok := proc.Param(name)
		if !ok {
			return nil, fmt.Errorf("catalog: %s.%s holds %q, which %s does not declare", t.Name(), t.Field(i).Name, name, proc.Name)
		}
		value, given := s[name]
		if set {
			v.Field(i).SetBool(given)
			continue
		}
		if !given {
			value = param.Default
		}
		if value == nil {
			continue
		}
		if err := setField(v.Field(i), param, value); err != nil {
			return nil, fmt.Errorf("%s's %s: %w", proc.Name, name, err)
		}
	}
	return v.Interface().(Params), nil
}

// paramTag returns the parameter a field holds and whether the field tells
// only whether the step set it.
func paramTag(f reflect.StructField) (name string, set bool) {
	name, opt, _ := strings.Cut(f.Tag.Get("param"), ",")
	return name, opt == "set"
}

var nrgbaType = reflect.TypeFor[color.NRGBA]()

// setField sets a field to a parameter's value as decoded from JSON (or
// its default).
func setField(f reflect.Value, param *Param, value any) error {
	switch {
	case f.Type() == nrgbaType:
		s, ok := value.(string)
		if !ok || !colourRE.MatchString(s) {
			return fmt.Errorf("%v is not a colour of the form #RRGGBB", value)
		}
		var rgb uint32
		fmt.Sscanf(s[1:], "%06x", &rgb)
		f.Set(reflect.ValueOf(color.NRGBA{uint8(rgb >> 16), uint8(rgb >> 8), uint8(rgb), 255}))
	case f.Kind() == reflect.Float64 && param.Type == Number:
		n, ok := asFloat(value)
		if !ok {
			return fmt.Errorf("%v is not a number", value)
		}
		f.SetFloat(n)
	case f.Kind() == reflect.Int && param.Type == Integer:
		n, ok := asFloat(value)
		if !ok || n != float64(int(n)) {
			return fmt.Errorf("%v is not an integer", value)
		}
		f.SetInt(int64(n))
	case f.Kind() == reflect.Bool && param.Type == Boolean:
		b, ok := value.(bool)
		if !ok {
			return fmt.Errorf("%v is not a boolean", value)
		}
		f.SetBool(b)
	case f.Kind() == reflect.String && param.Type == String:
		s, ok := value.(string)
		if !ok {
			return fmt.Errorf("%v is not a string", value)
		}
		f.SetString(s)
	default:
		return fmt.Errorf("a field of type %s cannot hold a %s", f.Type(), param.Type)
	}
	return nil
}

// Cost returns the configuration's cost: the sum of its processors' costs.
func (c Configuration) Cost() int {
	total := 0
	for _, p := range c {
		if proc, ok := Lookup(p.Processor()); ok {
			total += proc.Cost
		}
	}
	return total
}

// ContentRefs returns the content names the configuration uses, each once,
// in order of appearance.
func (c Configuration) ContentRefs() []string {
	var names []string
	seen := map[string]bool{}
	for _, p := range c {
		proc, _ := Lookup(p.Processor())
		v := reflect.ValueOf(p)
		for i := range v.NumField() {
			name, set := paramTag(v.Type().Field(i))
			param, ok := proc.Param(name)
			if set || !ok || param.Kind != ContentRef {
				continue
			}
			if n := v.Field(i).String(); n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}
