package library_test

import (
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// FuzzSaveConfiguration feeds configuration validation any name and body.
// Whatever arrives, the answer is accepted or one of the validation errors
// (never INTERNAL, never a panic), and what is accepted parses to typed
// parameters and is accepted again unchanged.
func FuzzSaveConfiguration(f *testing.F) {
	for _, p := range catalog.Catalog() {
		f.Add("c1", `[{"processorName":"`+p.Name+`"}]`)
	}
	for _, s := range []string{
		`[]`, `{}`, `null`, `[null]`, `[{"processorName":7}]`, `"x"`, `[{}]`,
		`[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":0.5}]`,
		`[{"processorName":"DetectCarMaskProcessor","carDetectionThreshold":1e400}]`,
		`[{"processorName":"AddBackgroundProcessor","backgroundName":"CONTENT:nosuch"}]`,
		`[{"processorName":"AddBackgroundProcessor","backgroundName":"#ffffff"}]`,
		`{"processors":[{"processorName":"DetectCarMaskProcessor"}],"uiConfiguration":{"thumbnail":"x","nameDescriptions":{"en":{"name":"a"}}}}`,
		`[{"processorName":"DetectCarMaskProcessor","processorName":"x"}]`,
		strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
		"[{\"processorName\":\"Detect\xffCar\"}]",
	} {
		f.Add("c1", s)
	}
	f.Add("default_white", `[]`)
	f.Add("a/b", `[]`)
	f.Add(strings.Repeat("a", 65), `[]`)
	fx := newFixture(f)
	f.Fuzz(func(t *testing.T, name, body string) {
		cfg, _, err := fx.lib.SaveConfiguration(fx.alice, name, []byte(body))
		if err != nil {
			switch code := showroom.ErrorCode(err); code {
			case showroom.EInvalidName, showroom.EInvalidBody, showroom.EInvalidConfig, showroom.EReservedName:
			default:
				t.Fatalf("SaveConfiguration(%q, %q): code %s (%v)", name, body, code, err)
			}
			return
		}
		if _, err := catalog.Parse(cfg.Processors); err != nil {
			t.Fatalf("accepted %q, stored processors that do not parse: %v", body, err)
		}
		again, _, err := fx.lib.SaveConfiguration(fx.alice, name, cfg.Processors)
		if err != nil || string(again.Processors) != string(cfg.Processors) {
			t.Fatalf("accepted %q as %s, which saved again gives %v, %s", body, cfg.Processors, err, again.Processors)
		}
	})
}
