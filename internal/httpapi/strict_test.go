package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// TestUnknownQueryParameters: every endpoint refuses a query parameter it
// does not take with 400 UNKNOWN_PARAMETER naming it, before anything else
// (a token too); a parameter given twice is INVALID_PARAMETER; the ones an
// endpoint takes still work.
func TestUnknownQueryParameters(t *testing.T) {
	e, alice, _ := webhookEnv(t, false)
	photo := pngBytes(t, 16, 16)
	img := with(alice, "Content-Type", "image/png")
	for _, c := range []struct {
		method, path string
		body         []byte
		headers      map[string]string
		names        string // what the message must name
		takes        string // what it must say the endpoint takes
	}{
		{"POST", "/v1/process/single/free_cutout?bg_color=red", photo, img, `"bg_color"`, "only async, format, quality, callbackUrl"},
		{"POST", "/v1/process/single/free_cutout?async=true&size=full&bg_color=red", photo, img, `"bg_color", "size"`, "only async"},
		{"POST", "/v1/process/single/free_cutout?Format=png", photo, img, `"Format"`, "only async"},
		{"GET", "/v1/process/jobs?limit=5&page=2", nil, alice, `"page"`, "only limit, after"},
		{"GET", "/v1/process/jobs/abc?verbose=1", nil, alice, `"verbose"`, "no query parameters"},
		{"GET", "/v1/me?x=1", nil, alice, `"x"`, "no query parameters"},
		{"GET", "/v1/me?x", nil, nil, `"x"`, "no query parameters"},
		{"GET", "/v1/content/?sort=name", nil, alice, `"sort"`, "no query parameters"},
		{"GET", "/v1/configuration/?all", nil, alice, `"all"`, "no query parameters"},
		{"GET", "/v1/usage?company=beta", nil, alice, `"company"`, "no query parameters"},
		{"GET", "/v1/webhook?reveal=true", nil, alice, `"reveal"`, "no query parameters"},
		{"GET", "/healthz?probe=1", nil, nil, `"probe"`, "no query parameters"},
		{"POST", "/auth/login?remember=1", []byte(`{}`), map[string]string{"Content-Type": "application/json"}, `"remember"`, "no query parameters"},
	} {
		var body io.Reader
		if c.body != nil {
			body = bytes.NewReader(c.body)
		}
		got := e.do(c.method, c.path, body, c.headers).wantError(400, showroom.EUnknownParameter)
		msg, _ := got["message"].(string)
		if !strings.Contains(msg, "unknown query parameter "+c.names+":") || !strings.Contains(msg, c.takes) {
			t.Errorf("%s %s: message %q; want it to name %s and say the endpoint takes %s", c.method, c.path, msg, c.names, c.takes)
		}
	}
	e.do("GET", "/v1/process/jobs?limit=5&limit=6", nil, alice).wantError(400, showroom.EInvalidParameter)
	e.do("GET", "/v1/process/jobs?limit=%zz", nil, alice).wantError(400, showroom.EInvalidParameter)
	var jobs struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	e.do("GET", "/v1/process/jobs", nil, alice).wantStatus(200).decode(&jobs)
	if len(jobs.Jobs) != 0 {
		t.Errorf("refused requests made %d jobs", len(jobs.Jobs))
	}
	// The parameters an endpoint takes are taken.
	e.do("POST", "/v1/process/single/free_cutout?format=png&quality=80", bytes.NewReader(photo), img).wantStatus(200)
	e.do("GET", "/v1/process/jobs?limit=5", nil, alice).wantStatus(200)
}

// TestAsyncRefusedBeforeAccepted: an asynchronous request whose photo is
// over the size or pixel limit, or too small, gets the synchronous
// request's error at once, never 202, and leaves no job.
func TestAsyncRefusedBeforeAccepted(t *testing.T) {
	const limit = 64 << 10
	cfg := runnerConfig()
	e := newEnvWith(t, library.DefaultConfig(), withRunnerLimits(cfg, echo, limit))
	e.addUser("acme", "alice")
	alice := e.bearer("alice")
	img := with(alice, "Content-Type", "image/png")
	big := append(pngBytes(t, 16, 16), make([]byte, limit)...) // a PNG with trailing bytes past the limit
	for _, mode := range []string{"?async=true", ""} {
		path := "/v1/process/single/free_cutout" + mode
		// Announced by Content-Length, refused before reading.
		body := e.do("POST", path, bytes.NewReader(big), img).wantError(413, showroom.EPayloadTooLarge)
		if msg, _ := body["message"].(string); !strings.Contains(msg, "64 KiB") {
			t.Errorf("%s: message %q, want the limit", path, msg)
		}
		// Sent without a length, refused once the limit is passed.
		e.do("POST", path, io.MultiReader(bytes.NewReader(big)), img).wantError(413, showroom.EPayloadTooLarge)
		// Pixels over the limit, from the header.
		e.do("POST", path, bytes.NewReader(pngHeaderOnly(100_000, 100_000)), img).wantError(413, showroom.EPayloadTooLarge)
		// Under 8 pixels on a side, from the header.
		e.do("POST", path, bytes.NewReader(pngBytes(t, 40, 7)), img).wantError(422, showroom.EInvalidImage)
	}
	var jobs struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	e.do("GET", "/v1/process/jobs", nil, alice).wantStatus(200).decode(&jobs)
	if len(jobs.Jobs) != 0 {
		t.Errorf("refused requests made %d jobs", len(jobs.Jobs))
	}
	// Within the limits, the asynchronous request is accepted.
	res := e.do("POST", "/v1/process/single/free_cutout?async=true", bytes.NewReader(pngBytes(t, 16, 16)), img).wantStatus(http.StatusAccepted)
	if !strings.HasPrefix(res.header.Get("Location"), "/v1/process/jobs/") {
		t.Errorf("202 without Location: %v", res.header)
	}
}
