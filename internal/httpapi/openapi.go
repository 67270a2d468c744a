package httpapi

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/showroom/showroom/internal/catalog"
)

// openAPISource is the hand-written part of the OpenAPI 3.0.3 document of
// both services; its processor schemas are generated from the catalog.
//
//go:embed openapi.yaml
var openAPISource []byte

// processorPlaceholder is the line of openapi.yaml the generated processor
// schemas replace.
const processorPlaceholder = "    ProcessorObject: {}\n"

// OpenAPI returns the OpenAPI document as served at GET /openapi.yaml: the
// hand-written paths and one schema per processor of the catalog, so the
// document checks configurations exactly as the validator does (types,
// ranges, enums, colours, unknown parameters). The HTTP tests validate
// every request and response they make against it.
var OpenAPI = sync.OnceValue(func() []byte {
	if !bytes.Contains(openAPISource, []byte(processorPlaceholder)) {
		panic("openapi.yaml lost its ProcessorObject placeholder")
	}
	return bytes.Replace(openAPISource, []byte(processorPlaceholder), processorSchemas(), 1)
})

// processorSchemas writes the catalog as OpenAPI schemas, one line each in
// JSON flow style (which is YAML).
func processorSchemas() []byte {
	cat := catalog.Catalog()
	var b bytes.Buffer
	line := func(name string, v any) {
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		if err := e.Encode(v); err != nil {
			panic(err)
		}
		b.WriteString("    " + name + ": " + strings.TrimSpace(enc.String()) + "\n")
	}
	names := make([]string, len(cat))
	oneOf := make([]map[string]string, len(cat))
	mapping := map[string]string{}
	for i, p := range cat {
		names[i] = p.Name
		ref := "#/components/schemas/" + p.Name
		oneOf[i] = map[string]string{"$ref": ref}
		mapping[p.Name] = ref
	}
	line("ProcessorObject", map[string]any{
		"description":   "A processor object: processorName and that processor's parameters (see GET /v1/processors).",
		"oneOf":         oneOf,
		"discriminator": map[string]any{"propertyName": "processorName", "mapping": mapping},
	})
	for _, p := range cat {
		props := map[string]any{"processorName": map[string]any{"type": "string", "enum": []string{p.Name}}}
		required := []string{"processorName"}
		for _, pa := range p.Params {
			s := map[string]any{"type": string(pa.Type), "description": pa.Description}
			if pa.Default != nil {
				s["default"] = pa.Default
			}
			if pa.Min != nil {
				s["minimum"] = *pa.Min
			}
			if pa.Max != nil {
				s["maximum"] = *pa.Max
			}
			switch pa.Kind {
			case catalog.Colour:
				s["pattern"] = "^#[0-9A-Fa-f]{6}$"
			case catalog.ContentRef:
				s["pattern"] = "^[A-Za-z0-9]{1,64}$"
				s["description"] = pa.Description + " Content types: " + strings.Join(pa.ContentTypes, ", ") + "."
			case catalog.Enum:
				s["enum"] = pa.Enum
			}
			if pa.Required {
				required = append(required, pa.Name)
			}
			props[pa.Name] = s
		}
		desc := p.Description
		if len(p.Requires) > 0 {
			desc += " Requires earlier: " + strings.Join(p.Requires, ", ") + "."
		}
		line(p.Name, map[string]any{
			"type": "object", "description": desc, "required": required,
			"properties": props, "additionalProperties": false,
		})
	}
	return b.Bytes()
}

func serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "application/yaml")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Write(OpenAPI())
	return nil
}
