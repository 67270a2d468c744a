package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
	"github.com/showroom/showroom/internal/vision"
)

// withProcessing enables the processing endpoints with the real engine on
// the fast model, or skips the test when the model files or the dev photos
// are not there. tune, if any, changes the endpoints' settings.
func withProcessing(t testing.TB, cfg river.Config, tune ...func(*httpapi.Processing)) envOption {
	t.Helper()
	dir := os.Getenv("SHOWROOM_MODEL_DIR")
	if dir == "" {
		dir = vision.DefaultModelDir()
	}
	if _, err := os.Stat(filepath.Join(dir, "u2netp.onnx")); err != nil {
		t.Skipf("skipping: no model files in %s; run 'make models'", dir)
	}
	return func(t testing.TB, db *sqlite.DB, blobs *blob.Local, lib *library.Service, api *httpapi.APIServer) {
		vcfg := vision.DefaultConfig(dir)
		vcfg.Model = vision.ModelU2Netp
		seg, err := vision.New(vcfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { seg.Close() })
		withEngine(cfg, seg, tune...)(t, db, blobs, lib, api)
	}
}

// withEngine enables the processing endpoints with the real pipeline over
// seg and the library's content, limits as the server's defaults.
func withEngine(cfg river.Config, seg pipeline.Segmenter, tune ...func(*httpapi.Processing)) envOption {
	return func(t testing.TB, db *sqlite.DB, blobs *blob.Local, lib *library.Service, api *httpapi.APIServer) {
		engine, err := pipeline.NewEngine(pipeline.EngineConfig{Segmenter: seg, Content: lib,
			MaxPixels: 60_000_000, MaxDecodeBytes: showroom.DefaultMaxBytes})
		if err != nil {
			t.Fatal(err)
		}
		run := func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
			res, err := engine.Run(ctx, pipeline.Request{Processors: j.Processors, Photo: photo, Format: j.Format, Quality: j.Quality})
			if err != nil {
				return nil, err
			}
			return &river.Output{Image: res.Image, MediaType: res.MediaType, Warnings: res.Warnings, Timings: res.Timings}, nil
		}
		withRunner(cfg, run, tune...)(t, db, blobs, lib, api)
	}
}

// withRunner enables the processing endpoints on a queue that runs run
// instead of the engine: for tests of the HTTP side of processing, which
// need no model and a run of known length or order. Webhooks are on, to
// private addresses too when cfg allows them. tune, if any, changes the
// endpoints' settings.
func withRunner(cfg river.Config, run river.Runner, tune ...func(*httpapi.Processing)) envOption {
	return withRunnerLimits(cfg, run, 25<<20, tune...)
}

// withRunnerLimits is withRunner with the photo's size limit set.
func withRunnerLimits(cfg river.Config, run river.Runner, maxPhotoBytes int64, tune ...func(*httpapi.Processing)) envOption {
	return func(t testing.TB, db *sqlite.DB, blobs *blob.Local, lib *library.Service, api *httpapi.APIServer) {
		q, err := river.New(cfg, db.RiverDriver(), db, blobs, run, slog.New(slog.NewTextHandler(io.Discard, nil)), river.Observer{})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.EnableWebhooks(river.Webhooks{Store: db, Render: httpapi.JobJSON}); err != nil {
			t.Fatal(err)
		}
		if err := q.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			q.Stop(ctx)
		})
		p := &httpapi.Processing{Queue: q, Jobs: db, Configs: lib, MaxPhotoBytes: maxPhotoBytes, MaxPixels: 60_000_000,
			Limiter: db, Webhooks: db, WebhookAllowPrivate: cfg.Webhooks.AllowPrivate}
		for _, f := range tune {
			f(p)
		}
		api.EnableProcessing(p)
	}
}

// runnerConfig is the queue's default configuration, polling often.
func runnerConfig() river.Config {
	cfg := river.DefaultConfig()
	cfg.PollInterval = 20 * time.Millisecond
	return cfg
}

func devPhoto(t testing.TB) []byte {
	t.Helper()
	photos, _ := filepath.Glob("../../../shared/testdata/cars/*.jpg")
	if len(photos) == 0 {
		t.Skip("skipping: ../shared/testdata/cars is not there (the dev photos are not in the repository)")
	}
	b, err := os.ReadFile(photos[0])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestProcessingMatchesOpenAPI drives the processing endpoints through the
// harness, so that every request and answer is checked against the
// OpenAPI document. (cmd/showroom tests every status on the real program.)
func TestProcessingMatchesOpenAPI(t *testing.T) {
	photo := devPhoto(t)
	e := newEnvWith(t, library.DefaultConfig(), withProcessing(t, runnerConfig()))
	e.addUser("acme", "alice")
	e.addUser("other", "olga")
	auth := map[string]string{"Authorization": "Bearer " + e.login("alice").AccessToken, "Content-Type": "image/jpeg"}
	other := map[string]string{"Authorization": "Bearer " + e.login("olga").AccessToken}

	res := e.do("POST", "/v1/process/single/free_cutout", strings.NewReader(string(photo)), auth).wantStatus(200)
	if res.header.Get("Content-Type") != "image/png" || res.header.Get("Server-Timing") == "" {
		t.Errorf("sync answer: %s, Server-Timing %q", res.header.Get("Content-Type"), res.header.Get("Server-Timing"))
	}
	res = e.do("POST", "/v1/process/single/default_white?async=true&format=webp&quality=80", strings.NewReader(string(photo)), auth).wantStatus(202)
	var job struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	res.decode(&job)
	for deadline := time.Now().Add(60 * time.Second); job.Status != "succeeded"; time.Sleep(50 * time.Millisecond) {
		e.do("GET", "/v1/process/jobs/"+job.ID, nil, auth).wantStatus(200).decode(&job)
		if job.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("job %+v", job)
		}
	}
	if res := e.do("GET", "/v1/process/jobs/"+job.ID+"/result", nil, auth).wantStatus(200); res.header.Get("Content-Type") != "image/webp" {
		t.Errorf("result type %q", res.header.Get("Content-Type"))
	}
	var page map[string]json.RawMessage
	e.do("GET", "/v1/process/jobs?limit=1", nil, auth).wantStatus(200).decode(&page)
	if page["next"] == nil {
		t.Errorf("job list page without next: %v", page)
	}
	e.do("GET", "/v1/usage", nil, auth).wantStatus(200)

	e.do("POST", "/v1/process/single/nosuch", strings.NewReader(string(photo)), auth).wantError(404, showroom.EConfigNotFound)
	e.do("POST", "/v1/process/single/free_cutout", strings.NewReader("plain text"), auth).wantError(415, showroom.EUnsupportedMedia)
	e.do("POST", "/v1/process/single/free_cutout?format=gif", strings.NewReader(string(photo)), auth).wantError(400, showroom.EInvalidParameter)
	e.do("POST", "/v1/process/single/free_cutout", strings.NewReader(string(photo)), map[string]string{}).wantError(401, showroom.EUnauthorized)
	e.do("GET", "/v1/process/jobs/"+job.ID, nil, other).wantError(404, showroom.EJobNotFound)
	e.do("GET", "/v1/process/jobs/"+job.ID+"/result", nil, other).wantError(404, showroom.EJobNotFound)
	if res := e.do("GET", "/v1/process/single/free_cutout", nil, auth); res.status != http.StatusMethodNotAllowed {
		t.Errorf("GET on the processing path: %d", res.status)
	}
}
