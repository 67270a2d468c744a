package httpapi

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/codec"
)

const apiDoc = "../../docs/api.md"

// TestErrorTableDocumented keeps docs/api.md's error table and statusOf in
// step: every code with its status, and no code the code does not know.
func TestErrorTableDocumented(t *testing.T) {
	b, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| (\\d{3}) \\| (.+) \\|$")
	documented := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		status, _ := strconv.Atoi(m[2])
		documented[m[1]] = status
	}
	for code, status := range statusOf {
		if got, ok := documented[code]; !ok {
			t.Errorf("docs/api.md does not list %s (%d)", code, status)
		} else if got != status {
			t.Errorf("docs/api.md gives %s status %d, the code %d", code, got, status)
		}
	}
	for code := range documented {
		if _, ok := statusOf[code]; !ok {
			t.Errorf("docs/api.md lists %s, which the code does not have", code)
		}
	}
}

// catalogTable renders the processor catalog as the docs show it.
func catalogTable() string {
	var b strings.Builder
	b.WriteString("| processor | cost | requires | parameter | type | default | range / values | description |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, p := range catalog.Catalog() {
		req := strings.Join(p.Requires, ", ")
		if req == "" {
			req = "—"
		}
		head := fmt.Sprintf("| `%s` | %d | %s ", p.Name, p.Cost, req)
		if len(p.Params) == 0 {
			fmt.Fprintf(&b, "%s| — | | | | %s |\n", head, p.Description)
			continue
		}
		for i, pa := range p.Params {
			if i > 0 {
				head = "| | | "
			}
			def := ""
			if pa.Default != nil {
				def = fmt.Sprintf("`%v`", pa.Default)
			}
			if pa.Required {
				def = "required"
			}
			var rng string
			switch {
			case pa.Min != nil:
				rng = fmt.Sprintf("%g – %g", *pa.Min, *pa.Max)
			case pa.Kind == catalog.Colour:
				rng = "`#RRGGBB`"
			case pa.Kind == catalog.Enum:
				rng = "`" + strings.Join(pa.Enum, "`, `") + "`"
			case pa.Kind == catalog.ContentRef:
				rng = "content of type " + strings.Join(pa.ContentTypes, ", ")
			}
			desc := pa.Description
			if i == 0 {
				desc = "**" + p.Description + "** " + desc
			}
			fmt.Fprintf(&b, "%s| `%s` | %s | %s | %s | %s |\n", head, pa.Name, pa.Type, def, rng, desc)
		}
	}
	return b.String()
}

// TestDocsCatalogTable keeps docs/api.md's catalog table generated from the
// catalog; UPDATE_DOCS=1 rewrites it.
func TestDocsCatalogTable(t *testing.T) {
	b, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	const start, end = "<!-- catalog:start -->\n", "<!-- catalog:end -->"
	doc := string(b)
	i, j := strings.Index(doc, start), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatal("docs/api.md lacks the catalog markers")
	}
	want := catalogTable()
	if doc[i+len(start):j] == want {
		return
	}
	if os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(apiDoc, []byte(doc[:i+len(start)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("docs/api.md's catalog table is out of date; run UPDATE_DOCS=1 go test ./internal/httpapi -run TestDocs")
}

// TestDocsFormatsMatchOpenAPI: the ?format values docs/api.md lists are the
// OpenAPI document's, and both are what the server takes.
func TestDocsFormatsMatchOpenAPI(t *testing.T) {
	b, err := os.ReadFile(apiDoc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`\\?format=([a-z|]+)`").FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/api.md lists no `?format=...` values")
	}
	documented := strings.Split(string(m[1]), "|")
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	var enum []string
	for _, p := range doc.Paths.Value("/v1/process/single/{configuration_name}").Post.Parameters {
		if p.Value.Name == "format" && p.Value.In == "query" {
			for _, v := range p.Value.Schema.Value.Enum {
				enum = append(enum, v.(string))
			}
		}
	}
	served := codec.FormatNames()
	for _, s := range [][]string{documented, enum, served} {
		slices.Sort(s)
	}
	if !slices.Equal(documented, enum) || !slices.Equal(enum, served) {
		t.Errorf("formats: docs/api.md %v, the OpenAPI document %v, the server %v", documented, enum, served)
	}
}
