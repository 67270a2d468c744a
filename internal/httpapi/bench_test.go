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
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/metrics"
	"github.com/showroom/showroom/internal/pipeline"
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
	st := newAliceStack(b)
	db, svc, lib, co, tok := st.db, st.svc, st.lib, st.company, st.token
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

// aliceStack is what a handler test over SQLite starts from: the database,
// the auth service, local blobs, the library, company acme and a login of
// its user alice.
type aliceStack struct {
	db      *sqlite.DB
	svc     *auth.Service
	blobs   *blob.Local
	lib     *library.Service
	company *showroom.Company
	token   *auth.TokenResponse
}

func newAliceStack(tb testing.TB) aliceStack {
	tb.Helper()
	ctx := context.Background()
	var st aliceStack
	var err error
	if st.db, err = sqlite.Open(ctx, filepath.Join(tb.TempDir(), "showroom.db")); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.db.Close() })
	keys, err := auth.NewKeyRing(ctx, st.db, auth.DefaultConfig().RefreshTTL)
	if err != nil {
		tb.Fatal(err)
	}
	if st.svc, err = auth.NewService(auth.DefaultConfig(), st.db, keys); err != nil {
		tb.Fatal(err)
	}
	if st.blobs, err = blob.NewLocal(filepath.Join(tb.TempDir(), "blobs")); err != nil {
		tb.Fatal(err)
	}
	if st.lib, err = library.New(library.DefaultConfig(), library.Deps{Content: st.db, Configurations: st.db, Blobs: st.blobs, Images: pipeline.ContentImages{}, Art: builtinart.Art{}}); err != nil {
		tb.Fatal(err)
	}
	if st.company, err = st.db.CreateCompany(ctx, "acme"); err != nil {
		tb.Fatal(err)
	}
	hash, err := auth.HashPassword(testPassword)
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.db.CreateUser(ctx, &showroom.User{Username: "alice", PasswordHash: hash, CompanyID: st.company.ID, Systems: []string{showroom.DefaultSystem}}); err != nil {
		tb.Fatal(err)
	}
	if st.token, err = st.svc.Login(ctx, "alice", testPassword, showroom.DefaultSystem, "test"); err != nil {
		tb.Fatal(err)
	}
	return st
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
