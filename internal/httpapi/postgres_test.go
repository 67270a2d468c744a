package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/postgres"
	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// TestRateLimitAcrossAPIProcesses: two API servers, each on its own
// connection pool to one PostgreSQL database as two api processes would
// be, spend one bucket per company: a client that spreads its requests
// over both gets no more than from one, and each answer's headers count
// what both have spent.
func TestRateLimitAcrossAPIProcesses(t *testing.T) {
	url := pgtest.URL(t)
	ctx := context.Background()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	open := func() *postgres.DB { return pgtest.Open(t, url) }
	authDB := open()
	keys, err := auth.NewKeyRing(ctx, authDB, auth.DefaultConfig().RefreshTTL)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := auth.NewService(auth.DefaultConfig(), authDB, keys)
	if err != nil {
		t.Fatal(err)
	}
	company, err := authDB.CreateCompany(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	hash, err := auth.HashPassword(testPassword)
	if err != nil {
		t.Fatal(err)
	}
	if err := authDB.CreateUser(ctx, &showroom.User{Username: "alice", PasswordHash: hash, CompanyID: company.ID, Systems: []string{showroom.DefaultSystem}}); err != nil {
		t.Fatal(err)
	}
	tok, err := svc.Login(ctx, "alice", testPassword, showroom.DefaultSystem, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := blob.NewLocal(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}

	var bases []string
	for range 2 {
		db := open()
		lib, err := library.New(library.DefaultConfig(), library.Deps{Content: db, Configurations: db, Blobs: blobs, Images: pipeline.ContentImages{}, Art: builtinart.Art{}})
		if err != nil {
			t.Fatal(err)
		}
		cfg := river.DefaultConfig()
		cfg.Work = false // an api process only enqueues
		q, err := river.New(cfg, db.RiverDriver(), db, blobs, nil, log, river.Observer{})
		if err != nil {
			t.Fatal(err)
		}
		api := httpapi.NewAPIServer(httpapi.APIConfig{}, svc.Verifier(), db, log)
		api.EnableLibrary(lib)
		api.EnableProcessing(&httpapi.Processing{Queue: q, Jobs: db, Configs: lib, MaxPhotoBytes: 25 << 20,
			RateLimit: showroom.RateLimit{PerMinute: 1, Burst: 3}, Limiter: db})
		srv := httptest.NewServer(httpapi.Handler(api, log, nil, httpapi.BodyLimits{}))
		t.Cleanup(srv.Close)
		bases = append(bases, srv.URL)
	}

	photo := syntheticCarPNG(t)
	post := func(base string) (*http.Response, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest("POST", base+"/v1/process/single/free_cutout?format=gif", bytes.NewReader(photo))
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		req.Header.Set("Content-Type", "image/png")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return res, body
	}
	// A format the service does not make: the request spends its token
	// and is answered 400 at once, by either server (a configuration that
	// does not exist, 404, would spend none).
	for i, remaining := range []int{2, 1, 0} {
		res, body := post(bases[i%2])
		if res.StatusCode != 400 || body["errorCode"] != showroom.EInvalidParameter {
			t.Errorf("request %d: %d %v, want 400 %s", i+1, res.StatusCode, body, showroom.EInvalidParameter)
		}
		if res.Header.Get("RateLimit-Limit") != "3" || res.Header.Get("RateLimit-Remaining") != strconv.Itoa(remaining) {
			t.Errorf("request %d, to server %d: RateLimit-Limit %q, -Remaining %q; want 3, %d (counted over both servers)",
				i+1, i%2+1, res.Header.Get("RateLimit-Limit"), res.Header.Get("RateLimit-Remaining"), remaining)
		}
		if res.Header.Get("Showroom-Credits-Charged") != "0" || res.Header.Get("Showroom-Credits-Balance") != "unlimited" {
			t.Errorf("request %d: credits charged %q, balance %q; want 0, unlimited", i+1,
				res.Header.Get("Showroom-Credits-Charged"), res.Header.Get("Showroom-Credits-Balance"))
		}
	}
	res, body := post(bases[1])
	if res.StatusCode != 429 || body["errorCode"] != showroom.ETooManyRequests || body["status"] != float64(429) || body["message"] == "" {
		t.Errorf("fourth request, to the second server: %d %v, want 429 %s", res.StatusCode, body, showroom.ETooManyRequests)
	}
	if ra, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Errorf("429: Retry-After %q, want at most a minute", res.Header.Get("Retry-After"))
	}
	if reset, err := strconv.Atoi(res.Header.Get("RateLimit-Reset")); err != nil || reset <= 150 || reset > 180 || res.Header.Get("RateLimit-Remaining") != "0" {
		t.Errorf("429: RateLimit-Remaining %q, -Reset %q; want 0 and just under 180 s", res.Header.Get("RateLimit-Remaining"), res.Header.Get("RateLimit-Reset"))
	}
}
