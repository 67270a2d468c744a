package pipeline

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

func decodeArray(t testing.TB, s string) []any {
	t.Helper()
	var v []any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestValidate(t *testing.T) {
	content := func(_ context.Context, name string) (string, bool, error) {
		switch name {
		case "bg":
			return showroom.ContentBackground, true, nil
		case "logo":
			return showroom.ContentPoster, true, nil
		}
		return "", false, nil
	}
	many := "["
	for i := range 33 {
		if i > 0 {
			many += ","
		}
		many += `{"processorName":"DetectCarMaskProcessor"}`
	}
	many += "]"
	tests := []struct {
		name string
		body string
		want []showroom.Detail
	}{
		{"minimal", `[{"processorName":"DetectCarMaskProcessor"}]`, nil},
		{"full", `[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":0.3},
			{"processorName":"DetectCarShadowProcessor"},{"processorName":"PlaceShadowProcessor","opacity":1},
			{"processorName":"AddBackgroundAndCropProcessor","background":"bg","outputWidth":1920},
			{"processorName":"AddPosterProcessor","poster":"logo","position":"center"},
			{"processorName":"ResizeProcessor","width":800,"fit":"cover","background":"#00ff00"}]`, nil},
		{"empty", `[]`, []showroom.Detail{{Pointer: "", Problem: "a configuration needs at least one processor, and the first must be DetectCarMaskProcessor"}}},
		{"too many", many, []showroom.Detail{{Pointer: "", Problem: "a configuration may hold at most 32 processors, this one has 33"}}},
		{"wrong first", `[{"processorName":"CleanBackgroundProcessor"}]`, []showroom.Detail{
			{Pointer: "/0/processorName", Problem: "the first processor must be DetectCarMaskProcessor"}}},
		{"dependency order", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"PlaceShadowProcessor"},{"processorName":"DetectCarShadowProcessor"}]`,
			[]showroom.Detail{{Pointer: "/1/processorName", Problem: "PlaceShadowProcessor requires DetectCarShadowProcessor earlier in the list"}}},
		{"not an object", `[{"processorName":"DetectCarMaskProcessor"}, 3]`, []showroom.Detail{{Pointer: "/1", Problem: "must be a processor object"}}},
		{"unknown processor", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"Sparkle"}]`,
			[]showroom.Detail{{Pointer: "/1/processorName", Problem: `unknown processor "Sparkle"; GET /v1/processors lists them`}}},
		{"bad params", `[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":"high","a/b":1},
			{"processorName":"SemiTransparentWindowsProcessor","windowTransparency":1.5,"windowBrightness":true},
			{"processorName":"CleanBackgroundProcessor","color":"white"},
			{"processorName":"AddBackgroundAndCropProcessor","background":"logo","outputWidth":100.5},
			{"processorName":"AddPosterProcessor","position":"middle"}]`, []showroom.Detail{
			{Pointer: "/0/a~1b", Problem: "unknown parameter of DetectCarMaskProcessor"},
			{Pointer: "/0/carDetectionThreshold", Problem: "must be a number"},
			{Pointer: "/1/windowBrightness", Problem: "must be a number"},
			{Pointer: "/1/windowTransparency", Problem: "must be between 0 and 1"},
			{Pointer: "/2/color", Problem: "must be a colour of the form #RRGGBB"},
			{Pointer: "/3/background", Problem: `content "logo" is of type POSTER; BACKGROUND_SIMPLE needed`},
			{Pointer: "/3/outputWidth", Problem: "must be an integer"},
			{Pointer: "/4/position", Problem: "must be one of top-left, top-right, bottom-left, bottom-right, center"},
			{Pointer: "/4/poster", Problem: "is required by AddPosterProcessor"},
		}},
		{"missing content", `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"nope"}]`,
			[]showroom.Detail{{Pointer: "/1/background", Problem: `no content named "nope"; upload it first`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Validate(context.Background(), decodeArray(t, tt.body), content)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Validate =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
}

func TestEffectiveParamsAndCost(t *testing.T) {
	steps := []Step{{"processorName": DetectCarMask}, {"processorName": PlaceCar, "carWidth": 0.5, "background": "#102030"}}
	if c := Cost(steps); c != 1 {
		t.Errorf("Cost = %d, want 1", c)
	}
	p, err := EffectiveParams(steps[1])
	if err != nil {
		t.Fatal(err)
	}
	if p.Float("carWidth") != 0.5 || p.Float("horizonLine") != 0.75 || p.Bool("useKeypoints") {
		t.Errorf("params = %v", p)
	}
	if r, g, b := p.RGB("background"); r != 0x10 || g != 0x20 || b != 0x30 {
		t.Errorf("RGB = %d %d %d", r, g, b)
	}
	if p.Has("outputWidth") {
		t.Error("no default, yet Has")
	}
	if _, err := EffectiveParams(Step{"processorName": "Nope"}); err == nil {
		t.Error("unknown processor accepted")
	}
}

// TestOneBackground: a configuration has one background. A processor that
// would replace a background an earlier one set with a different one is
// refused, naming both; PlaceCarProcessor without its own background keeps
// the earlier one, so those compose.
func TestOneBackground(t *testing.T) {
	const (
		det   = `{"processorName":"DetectCarMaskProcessor"}`
		place = `{"processorName":"PlaceCarProcessor"}`
		add   = `{"processorName":"AddBackgroundAndCropProcessor","background":"bg"}`
		clean = `{"processorName":"CleanBackgroundProcessor"}`
	)
	for _, tt := range []struct {
		name, config string
		want         []showroom.Detail
	}{
		{"place after add keeps the image", `[` + det + `,` + add + `,` + place + `]`, nil},
		{"place after clean keeps the colour", `[` + det + `,{"processorName":"CleanBackgroundProcessor","color":"#102030"},` + place + `]`, nil},
		{"same colour twice", `[` + det + `,` + clean + `,{"processorName":"PlaceCarProcessor","background":"#ffffff"}]`, nil},
		{"place before add", `[` + det + `,` + place + `,` + add + `]`, nil},
		{"place with a colour after add", `[` + det + `,` + add + `,{"processorName":"PlaceCarProcessor","background":"#FFFFFF"}]`,
			[]showroom.Detail{{Pointer: "/2/background", Problem: `PlaceCarProcessor's background #FFFFFF would replace the background "bg" that AddBackgroundAndCropProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"clean after add", `[` + det + `,` + add + `,` + clean + `]`,
			[]showroom.Detail{{Pointer: "/2/processorName", Problem: `CleanBackgroundProcessor's color #FFFFFF would replace the background "bg" that AddBackgroundAndCropProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"add after clean", `[` + det + `,` + clean + `,` + add + `]`,
			[]showroom.Detail{{Pointer: "/2/background", Problem: `AddBackgroundAndCropProcessor's background "bg" would replace the background #FFFFFF that CleanBackgroundProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"add after a placed colour", `[` + det + `,{"processorName":"PlaceCarProcessor","background":"#000000"},` + add + `]`,
			[]showroom.Detail{{Pointer: "/2/background", Problem: `AddBackgroundAndCropProcessor's background "bg" would replace the background #000000 that PlaceCarProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"two colours", `[` + det + `,{"processorName":"CleanBackgroundProcessor","color":"#102030"},{"processorName":"PlaceCarProcessor","background":"#FFFFFF"}]`,
			[]showroom.Detail{{Pointer: "/2/background", Problem: `PlaceCarProcessor's background #FFFFFF would replace the background #102030 that CleanBackgroundProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"clean after a placed colour", `[` + det + `,{"processorName":"PlaceCarProcessor","background":"#000000"},` + clean + `]`,
			[]showroom.Detail{{Pointer: "/2/processorName", Problem: `CleanBackgroundProcessor's color #FFFFFF would replace the background #000000 that PlaceCarProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
		{"two images", `[` + det + `,` + add + `,{"processorName":"AddBackgroundAndCropProcessor","background":"other"}]`,
			[]showroom.Detail{{Pointer: "/2/background", Problem: `AddBackgroundAndCropProcessor's background "other" would replace the background "bg" that AddBackgroundAndCropProcessor at /1 set: a configuration has one background; leave it to one of them (PlaceCarProcessor without background keeps the earlier one)`}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ds, err := Validate(context.Background(), decodeArray(t, tt.config), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(ds, tt.want) {
				t.Errorf("details\n%v\nwant\n%v", ds, tt.want)
			}
		})
	}
	// The predefined configurations stay valid (the gallery's own are
	// checked in its package).
	for _, c := range PredefinedConfigurations() {
		var elems []any
		if err := json.Unmarshal(c.Processors, &elems); err != nil {
			t.Fatal(err)
		}
		if ds, err := Validate(context.Background(), elems, nil); err != nil || ds != nil {
			t.Errorf("%s: %v %v", c.Name, ds, err)
		}
	}
}
