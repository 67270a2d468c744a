package httpapi_test

import (
	"bytes"
	"context"
	"image/png"
	"strconv"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// syntheticCarPNG is a drawn car on a plain ground, as a PNG.
func syntheticCarPNG(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, drawncar.New(480, 300, 0).Photo); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// wantHeaders checks a processing answer's rate limit and credit headers:
// remaining requests of a burst of 3 at a request a minute, and the
// credits charged and left ("" for a header that must be absent).
func wantHeaders(t *testing.T, r *response, remaining int, charged, balance string) {
	t.Helper()
	h := r.header
	if h.Get("RateLimit-Limit") != "3" || h.Get("RateLimit-Remaining") != strconv.Itoa(remaining) {
		t.Errorf("%s: RateLimit-Limit %q, -Remaining %q; want 3, %d", r.req, h.Get("RateLimit-Limit"), h.Get("RateLimit-Remaining"), remaining)
	}
	// The bucket lacks 3-remaining tokens, a minute each, less the
	// moments since the first take; whole seconds, rounded up.
	reset, err := strconv.Atoi(h.Get("RateLimit-Reset"))
	if full := 60 * (3 - remaining); err != nil || reset > full || reset < full-30 {
		t.Errorf("%s: RateLimit-Reset %q, want whole seconds just under %d", r.req, h.Get("RateLimit-Reset"), full)
	}
	if got := h.Get("Showroom-Credits-Charged"); got != charged {
		t.Errorf("%s: Showroom-Credits-Charged %q, want %q", r.req, got, charged)
	}
	if got := h.Get("Showroom-Credits-Balance"); got != balance {
		t.Errorf("%s: Showroom-Credits-Balance %q, want %q", r.req, got, balance)
	}
}

// TestProcessingHeaders: every processing answer, the result, the accepted
// job, an error and the 429 itself, says how much of the company's rate
// limit is left and what the answer cost of its credits; a request for a
// configuration the company does not have (404) spends none of the limit.
func TestProcessingHeaders(t *testing.T) {
	limit := func(p *httpapi.Processing) { p.RateLimit = showroom.RateLimit{PerMinute: 1, Burst: 3} }
	e := newEnvWith(t, library.DefaultConfig(), withProcessing(t, runnerConfig(), limit))
	e.addUser("acme", "alice")
	e.addUser("other", "olga")
	acme, err := e.db.FindCompany(context.Background(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	ten := int64(10)
	if err := e.db.SetCredits(context.Background(), acme.ID, &ten); err != nil {
		t.Fatal(err)
	}
	alice, olga := with(e.bearer("alice"), "Content-Type", "image/png"), with(e.bearer("olga"), "Content-Type", "image/png")
	var config struct {
		Cost int64 `json:"cost"`
	}
	e.do("GET", "/v1/configuration/default_white", nil, alice).wantStatus(200).decode(&config)
	if config.Cost < 1 {
		t.Fatalf("default_white costs %d; the test needs a configuration that costs", config.Cost)
	}
	left := strconv.FormatInt(10-config.Cost, 10)
	photo := syntheticCarPNG(t)

	r := e.do("POST", "/v1/process/single/default_white", bytes.NewReader(photo), alice).wantStatus(200)
	wantHeaders(t, r, 2, strconv.FormatInt(config.Cost, 10), left)
	// Accepted, not yet run: charged when it succeeds (free_cutout is free
	// anyway, so the balance below cannot move under the test).
	r = e.do("POST", "/v1/process/single/free_cutout?async=true", bytes.NewReader(photo), alice).wantStatus(202)
	wantHeaders(t, r, 1, "0", left)
	// A configuration the company does not have spends nothing: however
	// many such requests, the next one still has the token left.
	for range 4 {
		r = e.do("POST", "/v1/process/single/nosuch", bytes.NewReader(photo), alice)
		r.wantError(404, showroom.EConfigNotFound)
		wantNoRateHeaders(t, r, "0", left)
	}
	r = e.do("POST", "/v1/process/single/default_white?format=gif", bytes.NewReader(photo), alice)
	r.wantError(400, showroom.EInvalidParameter)
	wantHeaders(t, r, 0, "0", left)
	r = e.do("POST", "/v1/process/single/default_white", bytes.NewReader(photo), alice)
	r.wantError(429, showroom.ETooManyRequests)
	wantHeaders(t, r, 0, "0", left)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Errorf("429: Retry-After %q, want the next token's wait, at most a minute", r.header.Get("Retry-After"))
	}
	if u, err := e.db.Usage(context.Background(), acme.ID, 10); err != nil || strconv.FormatInt(u.Balance, 10) != left {
		t.Errorf("usage %+v, %v; want the balance the headers said, %s", u, err, left)
	}

	// Another company has a bucket of its own, and unlimited credits.
	r = e.do("POST", "/v1/process/single/default_white?format=gif", bytes.NewReader(photo), olga)
	r.wantError(400, showroom.EInvalidParameter)
	wantHeaders(t, r, 2, "0", "unlimited")
}

// wantNoRateHeaders checks an answer that spent none of the rate limit:
// no RateLimit-* header, the credit headers as wantHeaders.
func wantNoRateHeaders(t *testing.T, r *response, charged, balance string) {
	t.Helper()
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		if v := r.header.Get(h); v != "" {
			t.Errorf("%s: %s %q on an answer that spends no request", r.req, h, v)
		}
	}
	if got := r.header.Get("Showroom-Credits-Charged"); got != charged {
		t.Errorf("%s: Showroom-Credits-Charged %q, want %q", r.req, got, charged)
	}
	if got := r.header.Get("Showroom-Credits-Balance"); got != balance {
		t.Errorf("%s: Showroom-Credits-Balance %q, want %q", r.req, got, balance)
	}
}

// TestProcessingWithoutRateLimit: with the limit off, no RateLimit-*
// header promises anything; the credits are still told.
func TestProcessingWithoutRateLimit(t *testing.T) {
	e := newEnvWith(t, library.DefaultConfig(), withRunner(runnerConfig(), nil))
	e.addUser("acme", "alice")
	r := e.do("POST", "/v1/process/single/nosuch", bytes.NewReader(syntheticCarPNG(t)), with(e.bearer("alice"), "Content-Type", "image/png"))
	r.wantError(404, showroom.EConfigNotFound)
	for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		if v := r.header.Get(h); v != "" {
			t.Errorf("%s: %q with no rate limit", h, v)
		}
	}
	if r.header.Get("Showroom-Credits-Charged") != "0" || r.header.Get("Showroom-Credits-Balance") != "unlimited" {
		t.Errorf("credits: charged %q, balance %q; want 0, unlimited", r.header.Get("Showroom-Credits-Charged"), r.header.Get("Showroom-Credits-Balance"))
	}
}
