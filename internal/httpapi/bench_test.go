package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/metrics"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// BenchmarkLightHandlers is the work one light authenticated request costs
// the service itself: the handler chain 'serve' builds (request ID, JSON
// access log, metrics, token check, library, SQLite) called directly, one
// request at a time, without a network or a client. BenchmarkLight in
// cmd/showroom measures req/s over loopback against a plain handler; this
// tells a change's effect on the server's own work apart from the load of
// a shared machine, which moves ns/op much less than it moves req/s.
// cpu-ns/op is the process's CPU time (the garbage collector's included)
// per request; other work on the machine moves it less than ns/op.
// Run: go test -run '^$' -bench LightHandlers -count 6 ./internal/httpapi
func BenchmarkLightHandlers(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "showroom.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	keys, err := auth.NewKeyRing(ctx, db, auth.DefaultConfig().RefreshTTL)
	if err != nil {
		b.Fatal(err)
	}
	svc, err := auth.NewService(auth.DefaultConfig(), db, keys)
	if err != nil {
		b.Fatal(err)
	}
	blobs, err := blob.NewLocal(filepath.Join(b.TempDir(), "blobs"))
	if err != nil {
		b.Fatal(err)
	}
	lib, err := library.New(library.DefaultConfig(), library.Deps{Content: db, Configurations: db, Blobs: blobs})
	if err != nil {
		b.Fatal(err)
	}
	co, err := db.CreateCompany(ctx, "acme")
	if err != nil {
		b.Fatal(err)
	}
	hash, err := auth.HashPassword(testPassword)
	if err != nil {
		b.Fatal(err)
	}
	if err := db.CreateUser(ctx, &showroom.User{Username: "alice", PasswordHash: hash, CompanyID: co.ID, Systems: []string{showroom.DefaultSystem}}); err != nil {
		b.Fatal(err)
	}
	tok, err := svc.Login(ctx, "alice", testPassword, showroom.DefaultSystem, "bench")
	if err != nil {
		b.Fatal(err)
	}
	// What a request of alice's carries, her company resolved.
	alice := showroom.NewContextWithCompany(showroom.NewContextWithPrincipal(ctx,
		&showroom.Principal{Username: "alice", Company: "acme", System: showroom.DefaultSystem}), co)
	for i := range 3 {
		name := fmt.Sprintf("background%d", i)
		if _, _, err := lib.Upload(alice, name, "BACKGROUND_SIMPLE", pngBytes(b, 64, 40)); err != nil {
			b.Fatal(err)
		}
		cfg := `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"DetectCarShadowProcessor"},
			{"processorName":"AddBackgroundAndCropProcessor","background":"` + name + `","horizonLine":0.7}]`
		if _, _, err := lib.SaveConfiguration(alice, fmt.Sprintf("studio%d", i), []byte(cfg)); err != nil {
			b.Fatal(err)
		}
	}
	log := slog.New(httpapi.LogHandler{Handler: slog.NewJSONHandler(io.Discard, nil)})
	api := httpapi.NewAPIServer(httpapi.APIConfig{}, svc.Verifier(), db, log)
	api.EnableLibrary(lib)
	h := httpapi.Handler(httpapi.Combined(httpapi.NewAuthServer(svc, db, log), api), log, metrics.New().Request, httpapi.BodyLimits{})

	for _, path := range []string{"/v1/configuration/", "/v1/me", "/v1/content/", "/v1/processors"} {
		b.Run(strings.Trim(path[len("/v1/"):], "/"), func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			b.ReportAllocs()
			cpu := processCPU(b)
			for b.Loop() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", path, rec.Code, rec.Body)
				}
			}
			b.ReportMetric(float64(processCPU(b)-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
