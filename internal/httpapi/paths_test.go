package httpapi_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

// TestDotSegments: "." and ".." in a name's place are names, invalid ones,
// answered as any invalid name is (http.ServeMux used to redirect them,
// 307 with an HTML body, to the path without them: a POST to
// /v1/content/upload/../background reached DELETE /v1/content/background's
// route); elsewhere, and an empty segment, are 404 NOT_FOUND. Never a
// redirect, always the contract's body (issue 25 item 9).
func TestDotSegments(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	auth := map[string]string{"Authorization": "Bearer " + e.login("alice").AccessToken}
	png := string(pngBytes(t, 16, 12))
	config := `[{"processorName":"DetectCarMaskProcessor"}]`
	// do sends one request without following a redirect.
	do := func(method, path, body string) *response {
		t.Helper()
		req, err := http.NewRequest(method, e.url+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", auth["Authorization"])
		res, err := noRedirects.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return &response{t: t, req: method + " " + path, status: res.StatusCode, header: res.Header, body: b}
	}
	for _, tc := range []struct {
		method, path, body string
		invalid            string // the same route with an invalid name, whose answer it must get
	}{
		{"POST", "/v1/content/upload/./background", png, "/v1/content/upload/a%20b/background"},
		{"POST", "/v1/content/upload/../background", png, "/v1/content/upload/a%20b/background"},
		{"POST", "/v1/content/upload/bg/..", png, "/v1/content/upload/bg/a%20b"},
		{"GET", "/v1/content/..", "", "/v1/content/a%20b"},
		{"DELETE", "/v1/content/.", "", "/v1/content/a%20b"},
		{"POST", "/v1/configuration/..", config, "/v1/configuration/a%20b"},
		{"GET", "/v1/configuration/.", "", "/v1/configuration/a%20b"},
		{"DELETE", "/v1/configuration/..", "", "/v1/configuration/a%20b"},
		{"POST", "/v1/process/single/..", png, "/v1/process/single/a%20b"},
		{"GET", "/v1/process/jobs/..", "", "/v1/process/jobs/a%20b"},
	} {
		want := do(tc.method, tc.invalid, tc.body)
		var wantBody struct{ ErrorCode string }
		want.decode(&wantBody)
		got := do(tc.method, tc.path, tc.body)
		got.wantError(want.status, wantBody.ErrorCode)
	}
	if r := do("POST", "/v1/content/upload/../background", png); !strings.Contains(string(r.body), showroom.EInvalidName) {
		t.Errorf("a content named ..: %d %s, want 422 %s", r.status, r.body, showroom.EInvalidName)
	}
	for _, path := range []string{"/v1/../healthz", "/./healthz", "/v1/content/upload//background", "//healthz", "/auth/../healthz",
		"/auth", "/v1/process/jobs/./result"} {
		do("GET", path, "").wantError(404, showroom.ENotFound)
	}
}
