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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// env is a running Showroom (auth under /auth, the API at the root) on a
// fresh database, for HTTP tests.
type env struct {
	t   testing.TB
	url string
	db  *sqlite.DB
	svc *auth.Service
	lib *library.Service
	// api is the OpenAPI document the server serves; every request and
	// response of do is checked against it.
	api routers.Router
	// logs is what the server logged, as JSON lines.
	logs *logBuffer
}

const testPassword = "correct horse battery"

func newEnv(t testing.TB) *env {
	t.Helper()
	return newEnvWith(t, library.DefaultConfig())
}

// envOption adds to a test server before it starts, e.g. processing.
type envOption func(t testing.TB, db *sqlite.DB, blobs *blob.Local, lib *library.Service, api *httpapi.APIServer)

// newEnvWith is newEnv with the library's limits set.
func newEnvWith(t testing.TB, libCfg library.Config, opts ...envOption) *env {
	t.Helper()
	return newEnvConfig(t, auth.DefaultConfig(), libCfg, opts...)
}

// newEnvAuth is newEnv with the auth service's configuration set.
func newEnvAuth(t testing.TB, authCfg auth.Config) *env {
	t.Helper()
	return newEnvConfig(t, authCfg, library.DefaultConfig())
}

func newEnvConfig(t testing.TB, authCfg auth.Config, libCfg library.Config, opts ...envOption) *env {
	t.Helper()
	return newEnvBody(t, authCfg, libCfg, httpapi.BodyLimits{}, opts...)
}

// newEnvBody is newEnvConfig with the request bodies' time limits set.
func newEnvBody(t testing.TB, authCfg auth.Config, libCfg library.Config, body httpapi.BodyLimits, opts ...envOption) *env {
	t.Helper()
	return newEnvStore(t, authCfg, libCfg, body, nil, opts...)
}

// newEnvStore is newEnvBody with the library's blob store wrapped by wrap
// (when not nil), e.g. to make it fail.
func newEnvStore(t testing.TB, authCfg auth.Config, libCfg library.Config, body httpapi.BodyLimits, wrap func(blob.Store) blob.Store, opts ...envOption) *env {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "showroom.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	keys, err := auth.NewKeyRing(ctx, db, authCfg.RefreshTTL)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := auth.NewService(authCfg, db, keys)
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	log := slog.New(httpapi.LogHandler{Handler: slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})})
	blobs, err := blob.NewLocal(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	var store blob.Store = blobs
	if wrap != nil {
		store = wrap(blobs)
	}
	lib, err := library.New(libCfg, library.Deps{Content: db, Configurations: db, Blobs: store, Images: pipeline.ContentImages{}, Art: builtinart.Art{}})
	if err != nil {
		t.Fatal(err)
	}
	api := httpapi.NewAPIServer(httpapi.APIConfig{}, svc.Verifier(), db, log)
	api.EnableLibrary(lib)
	for _, o := range opts {
		o(t, db, blobs, lib, api)
	}
	srv := httptest.NewServer(httpapi.Handler(httpapi.Combined(httpapi.NewAuthServer(svc, db, log), api), log, nil, body))
	t.Cleanup(srv.Close)
	return &env{t: t, url: srv.URL, db: db, svc: svc, lib: lib, api: openAPIRouter(t), logs: logs}
}

var registerDecoders sync.Once

// openAPIRouter loads the served OpenAPI document, checks that it is a
// valid OpenAPI 3.0 document, and returns a router over it.
func openAPIRouter(t testing.TB) routers.Router {
	t.Helper()
	registerDecoders.Do(func() {
		for _, ct := range []string{"image/jpeg", "image/png", "image/webp"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.FileBodyDecoder)
		}
	})
	doc, err := openapi3.NewLoader().LoadFromData(httpapi.OpenAPI())
	if err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml is not valid: %v", err)
	}
	doc.Servers = nil // match requests to the test server's address
	r, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// addUser creates company (if needed) and a user in it with testPassword.
func (e *env) addUser(company, username string, systems ...string) {
	e.t.Helper()
	ctx := context.Background()
	c, err := e.db.FindCompany(ctx, company)
	if showroom.ErrorCode(err) == showroom.ENotFound {
		c, err = e.db.CreateCompany(ctx, company)
	}
	if err != nil {
		e.t.Fatal(err)
	}
	hash, err := auth.HashPassword(testPassword)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(systems) == 0 {
		systems = []string{showroom.DefaultSystem}
	}
	if err := e.db.CreateUser(ctx, &showroom.User{Username: username, PasswordHash: hash, CompanyID: c.ID, Systems: systems}); err != nil {
		e.t.Fatal(err)
	}
}

// login logs username in and returns the token response.
func (e *env) login(username string) auth.TokenResponse {
	e.t.Helper()
	res := e.do("POST", "/auth/login", jsonBody(map[string]string{
		"username": username, "password": testPassword, "system": showroom.DefaultSystem,
	}), nil)
	res.wantStatus(http.StatusOK)
	var tok auth.TokenResponse
	res.decode(&tok)
	return tok
}

// response is a finished request, body read.
type response struct {
	t      testing.TB
	req    string
	status int
	header http.Header
	body   []byte
}

// do sends a request to the test server. body may be nil; headers are set
// on top of a JSON content type when body is a *bytes.Reader made by
// jsonBody.
//
// Every exchange is checked against the OpenAPI document: the response must
// be one the document describes for the request, and a request the document
// calls invalid must be refused (4xx). A path the document does not know
// must answer 404 or 405.
func (e *env) do(method, path string, body io.Reader, headers map[string]string) *response {
	e.t.Helper()
	var reqBody []byte
	if body != nil {
		var err error
		if reqBody, err = io.ReadAll(body); err != nil {
			e.t.Fatal(err)
		}
	}
	newReq := func() *http.Request {
		var rb io.Reader
		if body != nil {
			rb = bytes.NewReader(reqBody)
		}
		req, err := http.NewRequest(method, e.url+path, rb)
		if err != nil {
			e.t.Fatal(err)
		}
		if _, ok := body.(*jsonReader); ok {
			req.Header.Set("Content-Type", "application/json")
		}
		for k, v := range headers {
			if v == "" {
				req.Header.Del(k)
			} else {
				req.Header.Set(k, v)
			}
		}
		return req
	}
	res, err := http.DefaultClient.Do(newReq())
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := &response{t: e.t, req: method + " " + path, status: res.StatusCode, header: res.Header, body: b}
	e.checkOpenAPI(newReq(), r)
	return r
}

// checkOpenAPI checks one exchange against the OpenAPI document.
func (e *env) checkOpenAPI(req *http.Request, r *response) {
	e.t.Helper()
	ctx := context.Background()
	route, params, err := e.api.FindRoute(req)
	if err != nil {
		if r.status != http.StatusNotFound && r.status != http.StatusMethodNotAllowed {
			e.t.Errorf("%s: not in openapi.yaml (%v), yet answered %d", r.req, err, r.status)
		}
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil && r.status < 400 {
		e.t.Errorf("%s: openapi.yaml calls the request invalid, yet it was answered %d: %v", r.req, r.status, err)
	}
	if err := openapi3filter.ValidateResponse(ctx, &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: r.status, Header: r.header,
		Body: io.NopCloser(bytes.NewReader(r.body)), Options: opts,
	}); err != nil {
		e.t.Errorf("%s: response %d does not match openapi.yaml: %v\nbody: %.300s", r.req, r.status, err, r.body)
	}
}

type jsonReader struct{ *bytes.Reader }

// jsonBody encodes v as a JSON request body.
func jsonBody(v any) io.Reader {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return &jsonReader{bytes.NewReader(b)}
}

// rawJSON is a JSON request body given as text, valid or not.
func rawJSON(s string) io.Reader { return &jsonReader{bytes.NewReader([]byte(s))} }

func (r *response) wantStatus(status int) *response {
	r.t.Helper()
	if r.status != status {
		r.t.Fatalf("%s: status %d, want %d; body: %s", r.req, r.status, status, r.body)
	}
	return r
}

func (r *response) decode(v any) {
	r.t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		r.t.Fatalf("%s: decode %s: %v", r.req, r.body, err)
	}
}

// wantError checks that the response is the contract's error body with
// status and code, every field present and consistent.
func (r *response) wantError(status int, code string) map[string]any {
	r.t.Helper()
	r.wantStatus(status)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		r.t.Errorf("%s: Content-Type %q, want application/json", r.req, ct)
	}
	var body map[string]any
	r.decode(&body)
	if got := body["status"]; got != float64(status) {
		r.t.Errorf("%s: body status %v, want %d", r.req, got, status)
	}
	if got := body["reason"]; got != http.StatusText(status) {
		r.t.Errorf("%s: reason %v, want %q", r.req, got, http.StatusText(status))
	}
	if got := body["errorCode"]; got != code {
		r.t.Errorf("%s: errorCode %v, want %s (body %s)", r.req, got, code, r.body)
	}
	if msg, _ := body["message"].(string); msg == "" {
		r.t.Errorf("%s: no message in %s", r.req, r.body)
	}
	ts, _ := body["timestamp"].(float64)
	if d := time.Since(time.UnixMilli(int64(ts))); d < -time.Minute || d > time.Minute {
		r.t.Errorf("%s: timestamp %v is not now in Unix ms", r.req, body["timestamp"])
	}
	return body
}
