package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// countingDB counts the company lookups by name.
type countingDB struct {
	*sqlite.DB
	finds atomic.Int64
}

func (c *countingDB) FindCompany(ctx context.Context, name string) (*showroom.Company, error) {
	c.finds.Add(1)
	return c.DB.FindCompany(ctx, name)
}

// TestCompanyResolvedOnce: a request that acts for a company looks it up
// once, where its token is checked, and a job's run (loading the company's
// content, as the pipeline does) none; the caller-only answers none. Each
// lookup is a database query on the path of every request.
func TestCompanyResolvedOnce(t *testing.T) {
	ctx := context.Background()
	st := newAliceStack(t)
	sdb, svc, blobs, lib, tok := st.db, st.svc, st.blobs, st.lib, st.token
	db := &countingDB{DB: sdb}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	out := pngBytes(t, 8, 8)
	run := func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
		img, err := lib.LoadContent(ctx, "bg")
		if err != nil || img == nil {
			return nil, fmt.Errorf("load: %w", err)
		}
		return &river.Output{Image: out, MediaType: "image/png"}, nil
	}
	q, err := river.New(runnerConfig(), sdb.RiverDriver(), sdb, blobs, run, log, river.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Stop(context.Background()) })
	api := httpapi.NewAPIServer(httpapi.APIConfig{}, svc.Verifier(), db, log)
	api.EnableLibrary(lib)
	api.EnableProcessing(&httpapi.Processing{Queue: q, Jobs: sdb, Configs: lib, MaxPhotoBytes: 25 << 20, Limiter: sdb})
	srv := httptest.NewServer(httpapi.Handler(api, log, nil, httpapi.BodyLimits{}))
	t.Cleanup(srv.Close)
	do := func(method, path, ct string, body []byte, wantStatus int, wantFinds int64) {
		t.Helper()
		db.finds.Store(0)
		req, _ := http.NewRequest(method, srv.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if got := db.finds.Load(); res.StatusCode != wantStatus || got != wantFinds {
			t.Errorf("%s %s: %d with %d company lookups, want %d with %d", method, path, res.StatusCode, got, wantStatus, wantFinds)
		}
	}
	do("POST", "/v1/content/upload/bg/BACKGROUND_SIMPLE", "image/png", pngBytes(t, 64, 40), 201, 1)
	do("POST", "/v1/configuration/mine", "application/json",
		[]byte(`[{"processorName":"DetectCarMaskProcessor"},{"processorName":"AddBackgroundAndCropProcessor","background":"bg"}]`), 201, 1)
	do("GET", "/v1/content/", "", nil, 200, 1)
	do("GET", "/v1/configuration/mine", "", nil, 200, 1)
	do("GET", "/v1/processors", "", nil, 200, 0)
	do("GET", "/v1/me", "", nil, 200, 0)
	// Synchronous: the run, which loads bg, is over when the answer comes.
	do("POST", "/v1/process/single/mine", "image/png", pngBytes(t, 64, 48), 200, 1)
	do("GET", "/v1/process/jobs", "", nil, 200, 1)
	do("GET", "/v1/usage", "", nil, 200, 1)
}
