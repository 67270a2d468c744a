package httpapi_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
)

// TestRefreshKeepsRefreshToken holds docs/api.md, the README and the
// OpenAPI document to what /refresh does: a new access token, the same
// refresh token back, still usable.
func TestRefreshKeepsRefreshToken(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	var fresh struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": tok.RefreshToken}), nil).wantStatus(200).decode(&fresh)
	if fresh.RefreshToken != tok.RefreshToken {
		t.Errorf("refresh answered another refresh token; the docs say it is returned unchanged")
	}
	e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": fresh.RefreshToken}), nil).wantStatus(200)
	docs, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(docs), "rotates the refresh token") {
		t.Error("docs/api.md says /refresh rotates the refresh token")
	}
}

// TestJobFormatAsDocumented holds a job record's format to docs/api.md:
// the format asked for, on a single job's GET and in the list, and absent
// when the server chooses.
func TestJobFormatAsDocumented(t *testing.T) {
	photo := encodeJPEG(t, gradient(64, 48))
	e := newEnvWith(t, library.DefaultConfig(), withRunner(runnerConfig(), func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
		return &river.Output{Image: encodePNG(t, gradient(16, 16)), MediaType: "image/png"}, nil
	}))
	e.addUser("acme", "alice")
	auth := map[string]string{"Authorization": "Bearer " + e.login("alice").AccessToken, "Content-Type": "image/jpeg"}
	for _, tc := range []struct {
		query, accept string
		want          any // the record's format; nil: absent
	}{
		{"", "", nil},
		{"?format=webp", "", "webp"},
		{"?format=jpg", "", "jpeg"},
		{"", "image/png", "png"},
		{"", "image/*", nil},
	} {
		h := map[string]string{"Authorization": auth["Authorization"], "Content-Type": "image/jpeg", "Prefer": "respond-async"}
		if tc.accept != "" {
			h["Accept"] = tc.accept
		}
		var accepted map[string]any
		e.do("POST", "/v1/process/single/free_cutout"+tc.query, strings.NewReader(string(photo)), h).wantStatus(202).decode(&accepted)
		id, _ := accepted["id"].(string)
		for _, res := range []*response{e.do("GET", "/v1/process/jobs/"+id, nil, auth).wantStatus(200), e.do("GET", "/v1/process/jobs", nil, auth).wantStatus(200)} {
			var job map[string]any
			if strings.HasSuffix(res.req, "/jobs") {
				var page struct{ Jobs []map[string]any }
				res.decode(&page)
				job = page.Jobs[0] // newest first: this one
			} else {
				res.decode(&job)
			}
			if got, ok := job["format"]; got != tc.want || ok != (tc.want != nil) {
				b, _ := json.Marshal(job)
				t.Errorf("%s (query %q, Accept %q): format %v, want %v: %s", res.req, tc.query, tc.accept, got, tc.want, b)
			}
		}
	}
}
