package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"reflect"
	"slices"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

// goType is the Go type a field holding a parameter of each JSON type (and
// kind) has.
func goType(p Param) reflect.Type {
	switch {
	case p.Kind == Colour:
		return reflect.TypeFor[color.NRGBA]()
	case p.Type == Number:
		return reflect.TypeFor[float64]()
	case p.Type == Integer:
		return reflect.TypeFor[int]()
	case p.Type == Boolean:
		return reflect.TypeFor[bool]()
	}
	return reflect.TypeFor[string]()
}

// TestParamsHoldEveryDeclaredParameter: the processors read only their
// typed Params, so every field of them must hold a parameter the catalog
// declares (of a fitting type), and every declared parameter must have its
// field: a parameter no field holds would be accepted and ignored, a field
// no parameter fills would read as its zero value.
func TestParamsHoldEveryDeclaredParameter(t *testing.T) {
	if len(paramTypes) != len(catalog) {
		t.Errorf("%d Params types for %d processors", len(paramTypes), len(catalog))
	}
	for _, proc := range catalog {
		typ, ok := paramTypes[proc.Name]
		if !ok {
			t.Errorf("%s has no Params type", proc.Name)
			continue
		}
		held := map[string]int{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, set := paramTag(f)
			param, ok := proc.Param(name)
			switch {
			case !ok:
				t.Errorf("%s.%s holds %q, which %s does not declare", typ.Name(), f.Name, name, proc.Name)
			case set && f.Type.Kind() != reflect.Bool:
				t.Errorf("%s.%s tells whether %q is set, but is a %s", typ.Name(), f.Name, name, f.Type)
			case !set && f.Type != goType(*param):
				t.Errorf("%s.%s holds the %s %q as a %s, want %s", typ.Name(), f.Name, param.Type, name, f.Type, goType(*param))
			case !set:
				held[name]++
			}
		}
		for _, param := range proc.Params {
			if held[param.Name] != 1 {
				t.Errorf("%s's %q is held by %d fields of %s, want 1", proc.Name, param.Name, held[param.Name], typ.Name())
			}
		}
	}
}

// otherValue returns a valid value of param that is not its default, as
// decoded from JSON.
func otherValue(p Param) any {
	switch {
	case p.Kind == Colour:
		return "#102030"
	case p.Kind == ContentRef:
		return "someContent"
	case p.Kind == Enum:
		for _, e := range slices.Backward(p.Enum) {
			if e != p.Default {
				return e
			}
		}
	case p.Type == Boolean:
		b, _ := p.Default.(bool)
		return !b
	case p.Type == Integer:
		return *p.Min + 1
	case p.Type == Number:
		// Between the bounds, off the default.
		return *p.Min + (*p.Max-*p.Min)*0.37
	}
	return "x"
}

// stepOf writes typed parameters back as the step that gives every one of
// them (but those without a default it left unset), the inverse of
// ParseStep for a step that does.
func stepOf(t *testing.T, p Params) Step {
	t.Helper()
	proc, _ := Lookup(p.Processor())
	s := Step{"processorName": proc.Name}
	v := reflect.ValueOf(p)
	for i := range v.NumField() {
		name, set := paramTag(v.Type().Field(i))
		if param, _ := proc.Param(name); set || param.Default == nil && v.Field(i).IsZero() {
			continue
		}
		switch f := v.Field(i).Interface().(type) {
		case color.NRGBA:
			s[name] = fmt.Sprintf("#%02X%02X%02X", f.R, f.G, f.B)
		case int:
			s[name] = float64(f)
		default:
			s[name] = f
		}
	}
	return s
}

// TestParamsRoundTrip: every parameter of every processor, given a value
// other than its default, reaches its field and comes back unchanged, and
// the predefined configurations parse to the same parameters after a trip
// through their fields.
func TestParamsRoundTrip(t *testing.T) {
	for _, proc := range catalog {
		s := Step{"processorName": proc.Name}
		for _, param := range proc.Params {
			s[param.Name] = otherValue(param)
		}
		p, err := ParseStep(s)
		if err != nil {
			t.Fatalf("%s: %v", proc.Name, err)
		}
		if p.Processor() != proc.Name {
			t.Errorf("%s parsed as %s's parameters", proc.Name, p.Processor())
		}
		if back := stepOf(t, p); !reflect.DeepEqual(back, s) {
			t.Errorf("%s: %v came back as %v", proc.Name, s, back)
		}
	}
	for _, c := range PredefinedConfigurations() {
		cfg, err := Parse(c.Processors)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		steps := make([]Step, len(cfg))
		for i, p := range cfg {
			steps[i] = stepOf(t, p)
		}
		again, err := Parse(stepsJSON(steps))
		if err != nil {
			t.Fatalf("%s written back: %v", c.Name, err)
		}
		// OwnBackground says whether the step named a background; written
		// back, every step names its own.
		for i := range again {
			if pc, ok := again[i].(PlaceCarParams); ok {
				pc.OwnBackground = cfg[i].(PlaceCarParams).OwnBackground
				again[i] = pc
			}
		}
		if !reflect.DeepEqual(again, cfg) {
			t.Errorf("%s: %v written back parses as %v", c.Name, cfg, again)
		}
	}
}

// TestParseDefaults: what a step does not give is the catalog's default,
// and a parameter without a default that it does not give is the zero
// value, which the catalog's ranges never allow.
func TestParseDefaults(t *testing.T) {
	cfg, err := Parse(json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"},
		{"processorName":"PlaceCarProcessor","carWidth":0.5},
		{"processorName":"AddBackgroundAndCropProcessor","background":"bg","outputWidth":640},
		{"processorName":"PlaceCarProcessor","useKeypoints":true},
		{"processorName":"ResizeProcessor","height":300}]`))
	if err != nil {
		t.Fatal(err)
	}
	white := color.NRGBA{255, 255, 255, 255}
	want := Configuration{
		DetectCarMaskParams{DetectionThreshold: 0.5, CropThreshold: 1},
		PlaceCarParams{HorizonLine: 0.75, CarWidth: 0.5, CarHeight: 0.7, Background: white},
		AddBackgroundParams{Background: "bg", HorizonLine: 0.75, MarginLeft: 0.05, MarginRight: 0.05, MarginTop: 0.05,
			MarginBottom: 0.05, OutputWidth: 640},
		PlaceCarParams{HorizonLine: 0.75, CarWidth: 0.8, CarHeight: 0.7, Background: white, UseKeypoints: true},
		ResizeParams{Height: 300, Fit: "contain", Background: white},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("parsed\n%#v\nwant\n%#v", cfg, want)
	}
	own, err := Parse(json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"},
		{"processorName":"PlaceCarProcessor","background":"#102030"}]`))
	if err != nil {
		t.Fatal(err)
	}
	if p := own[1].(PlaceCarParams); !p.OwnBackground || p.Background != (color.NRGBA{0x10, 0x20, 0x30, 255}) {
		t.Errorf("own background: %#v", p)
	}
	if c := cfg.Cost(); c != 1 {
		t.Errorf("cost %d, want 1", c)
	}
	if refs := cfg.ContentRefs(); !slices.Equal(refs, []string{"bg"}) {
		t.Errorf("content refs %v, want [bg]", refs)
	}
}

// TestParseRefuses: Parse refuses what Validate refuses, with its details.
func TestParseRefuses(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want []showroom.Detail
	}{
		{`{"processorName":"DetectCarMaskProcessor"}`, nil},
		{`[{"processorName":"DetectCarMaskProcessor","horizonLine":0.5}]`,
			[]showroom.Detail{{Pointer: "/0/horizonLine", Problem: "unknown parameter of DetectCarMaskProcessor"}}},
		{`[{"processorName":"DetectCarMaskProcessor"},{"processorName":"PlaceCarProcessor","carWidth":"wide"}]`,
			[]showroom.Detail{{Pointer: "/1/carWidth", Problem: "must be a number"}}},
	} {
		_, err := Parse(json.RawMessage(tt.raw))
		var e *showroom.Error
		if !errors.As(err, &e) || e.Code != showroom.EInvalidConfig || !reflect.DeepEqual(e.Details, tt.want) {
			t.Errorf("%s: %v, want INVALID_CONFIGURATION with %v", tt.raw, err, tt.want)
		}
	}
}
