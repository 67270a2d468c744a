package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// SystemCompany is the company field of what ships with the system: the
// predefined configurations and the built-in content. No real company can
// see it as its own; every company can use it.
const SystemCompany = "system"

// StudioBackground is the name of the built-in BACKGROUND_SIMPLE content:
// a rendered studio (wall and floor) that default_showroom uses. Every
// company can use and download it; nobody can replace or delete it.
const StudioBackground = "showroomStudio"

// StudioHorizon is where the studio's floor meets the wall, as a share of
// its height from the top: the horizonLine that puts a car on its floor.
const StudioHorizon = 0.72

// StudioWidth and StudioHeight are the rendered studio's size in pixels.
const (
	StudioWidth  = 1920
	StudioHeight = 1280
)

// ThumbnailWidth and ThumbnailHeight are the size of the predefined
// configurations' thumbnails, which the program draws.
const (
	ThumbnailWidth  = 320
	ThumbnailHeight = 240
)

// CustomThumbnail names the neutral thumbnail shown for a company's
// configuration that has no thumbnail of its own.
const CustomThumbnail = "custom"

// predefinedDate is when the predefined configurations were last changed;
// it is their createdDate and lastModifiedDate.
var predefinedDate = time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)

type predefined struct {
	name  string
	steps []Step
	en    showroom.NameDescription
	de    showroom.NameDescription
}

var predefinedList = []predefined{
	{
		name: "default_white",
		steps: []Step{
			{"processorName": DetectCarMask},
			{"processorName": DetectCarShadow},
			{"processorName": SemiTransparentWindows, "windowTransparency": 0.5},
			{"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"},
			{"processorName": PlaceCar, "background": "#FFFFFF", "useKeypoints": true},
		},
		en: showroom.NameDescription{Name: "White background",
			Description: "The car on a clean white background with its shadow kept, centred, windows see-through."},
		de: showroom.NameDescription{Name: "Weißer Hintergrund",
			Description: "Das Auto auf sauberem weißem Hintergrund mit seinem Schatten, zentriert, Scheiben durchsichtig."},
	},
	{
		name: "default_transparent",
		steps: []Step{
			{"processorName": DetectCarMask},
			{"processorName": SemiTransparentWindows, "windowTransparency": 0.5},
		},
		en: showroom.NameDescription{Name: "Transparent background",
			Description: "The car cut out on transparency (PNG), windows half transparent, ready for your own layout."},
		de: showroom.NameDescription{Name: "Transparenter Hintergrund",
			Description: "Das Auto freigestellt auf Transparenz (PNG), Scheiben halb durchsichtig, bereit für Ihr eigenes Layout."},
	},
	{
		name: "default_showroom",
		steps: []Step{
			{"processorName": DetectCarMask},
			{"processorName": DetectCarShadow},
			{"processorName": SemiTransparentWindows, "windowTransparency": 0.6},
			{"processorName": AddBackgroundAndCrop, "background": StudioBackground, "horizonLine": StudioHorizon},
			{"processorName": PlaceShadow, "opacity": 0.7},
		},
		en: showroom.NameDescription{Name: "Showroom",
			Description: "The car in a bright studio with a soft floor shadow, as if photographed in a showroom."},
		de: showroom.NameDescription{Name: "Showroom",
			Description: "Das Auto in einem hellen Studio mit weichem Bodenschatten, wie im Showroom fotografiert."},
	},
	{
		name:  "free_cutout",
		steps: []Step{{"processorName": DetectCarMask}},
		en: showroom.NameDescription{Name: "Free cut-out",
			Description: "The car cut out on transparency, nothing else. Free of charge."},
		de: showroom.NameDescription{Name: "Kostenloses Freistellen",
			Description: "Das Auto freigestellt auf Transparenz, sonst nichts. Kostenlos."},
	},
}

// PredefinedConfigurations returns the configurations that ship with the
// system, sorted by name. Their company is SystemCompany; their thumbnail
// is their own name (ThumbnailFullPath is left for the HTTP layer, which
// knows the server's address); free_* ones cost 0, the others the sum of
// their processors' costs. Each call returns fresh copies, which the
// caller may change.
func PredefinedConfigurations() []*showroom.Configuration {
	all := predefinedConfigurations()
	out := make([]*showroom.Configuration, len(all))
	for i, c := range all {
		out[i] = copyConfiguration(c)
	}
	return out
}

// PredefinedConfiguration returns (a copy of) the predefined configuration
// of that name.
func PredefinedConfiguration(name string) (*showroom.Configuration, bool) {
	for _, c := range predefinedConfigurations() {
		if c.Name == name {
			return copyConfiguration(c), true
		}
	}
	return nil, false
}

func copyConfiguration(c *showroom.Configuration) *showroom.Configuration {
	cp := *c
	cp.Processors = slices.Clone(c.Processors)
	cp.ContentRefs = slices.Clone(c.ContentRefs)
	cp.UI.NameDescriptions = maps.Clone(c.UI.NameDescriptions)
	return &cp
}

// predefinedConfigurations builds the predefined configurations once:
// encoding their steps was most of the work of a request that lists
// configurations or runs a predefined one.
var predefinedConfigurations = sync.OnceValue(func() []*showroom.Configuration {
	out := make([]*showroom.Configuration, 0, len(predefinedList))
	for _, p := range predefinedList {
		raw := stepsJSON(p.steps)
		cfg, err := Parse(raw)
		if err != nil {
			panic(fmt.Sprintf("catalog: predefined configuration %s: %v", p.name, err)) // static data
		}
		cost := cfg.Cost()
		if strings.HasPrefix(p.name, "free_") {
			cost = 0
		}
		out = append(out, &showroom.Configuration{
			Company:    SystemCompany,
			Name:       p.name,
			Type:       showroom.ConfigExterior,
			Processors: raw,
			Cost:       cost,
			UI: showroom.UIConfiguration{
				Thumbnail:        p.name,
				NameDescriptions: map[string]showroom.NameDescription{"en": p.en, "de": p.de},
			},
			CreatedAt: predefinedDate,
			UpdatedAt: predefinedDate,
			CreatedBy: SystemCompany,
			UpdatedBy: SystemCompany,
		})
	}
	slices.SortFunc(out, func(a, b *showroom.Configuration) int { return strings.Compare(a.Name, b.Name) })
	return out
})

// stepsJSON encodes steps with processorName first in each object, as people
// write them.
func stepsJSON(steps []Step) json.RawMessage {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range steps {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(s.Name())
		b.WriteString(`{"processorName":`)
		b.Write(name)
		for _, k := range sortedKeys(s) {
			if k == "processorName" {
				continue
			}
			kb, _ := json.Marshal(k)
			vb, err := json.Marshal(s[k])
			if err != nil {
				panic(err) // static data
			}
			b.WriteByte(',')
			b.Write(kb)
			b.WriteByte(':')
			b.Write(vb)
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}
