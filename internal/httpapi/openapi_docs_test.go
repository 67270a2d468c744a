package httpapi_test

import (
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/showroom/showroom/internal/httpapi"
)

func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPI())
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	return doc
}

// docRoute is a route as docs/api.md writes it: `GET /v1/content/{contentName}`.
var docRoute = regexp.MustCompile("`(GET|POST|PUT|DELETE|PATCH) ((?:\\{auth_url\\})?/[^` ?]*)[^`]*`")

// TestDocsRoutesMatchOpenAPI: every route docs/api.md names is in the
// OpenAPI document under the same path, path parameters named alike, and
// every operation of the document is in docs/api.md: a client written from
// either finds the other's names.
func TestDocsRoutesMatchOpenAPI(t *testing.T) {
	b, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := loadOpenAPI(t)
	inDocs := map[string]bool{}
	for _, m := range docRoute.FindAllStringSubmatch(string(b), -1) {
		path := strings.Replace(m[2], "{auth_url}", "/auth", 1)
		if strings.HasSuffix(path, "...") {
			continue // prose: "POST /v1/process/single/..."
		}
		inDocs[m[1]+" "+path] = true
		item := doc.Paths.Find(path)
		if item == nil || doc.Paths.Value(path) == nil {
			t.Errorf("docs/api.md names %s %s; the OpenAPI document has no such path (parameters named alike)", m[1], path)
			continue
		}
		if item.GetOperation(m[1]) == nil {
			t.Errorf("docs/api.md names %s %s; the OpenAPI document has no %s there", m[1], path, m[1])
		}
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !inDocs[method+" "+path] {
				t.Errorf("the OpenAPI document has %s %s, which docs/api.md does not name", method, path)
			}
		}
	}
}

// TestEveryAnswerDocumentsRequestID: X-Request-ID is on every answer, so
// every response of the OpenAPI document declares it; the server sets it
// on a success, an error and an unknown route alike.
func TestEveryAnswerDocumentsRequestID(t *testing.T) {
	doc := loadOpenAPI(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for status, res := range op.Responses.Map() {
				if res.Value == nil || res.Value.Headers["X-Request-ID"] == nil {
					t.Errorf("%s %s: the %s answer does not declare X-Request-ID", method, path, status)
				}
			}
		}
	}
	e := newEnv(t)
	for _, path := range []string{"/healthz", "/v1/content/", "/no/such/route"} {
		res, err := http.Get(e.url + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.Header.Get("X-Request-ID") == "" {
			t.Errorf("GET %s (%d): no X-Request-ID", path, res.StatusCode)
		}
	}
}

// TestDocsNameEveryHeader: every response header the OpenAPI document
// declares is explained in docs/api.md too (X-Request-ID was in every
// schema of the document and nowhere in the page).
func TestDocsNameEveryHeader(t *testing.T) {
	b, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := loadOpenAPI(t)
	if len(doc.Components.Headers) == 0 {
		t.Fatal("the OpenAPI document declares no headers")
	}
	for name := range doc.Components.Headers {
		if !strings.Contains(string(b), "`"+name+"`") {
			t.Errorf("the OpenAPI document declares the header %s, which docs/api.md does not name", name)
		}
	}
}
