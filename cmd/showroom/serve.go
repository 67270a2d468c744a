package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/console"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/metrics"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
)

// common holds the flags every server role shares.
type common struct {
	addr            string
	dataDir         string
	db              databaseFlags
	system          string
	logFormat       string
	logLevel        string
	shutdownTimeout time.Duration
	body            httpapi.BodyLimits
	// bodyMinRate is --body-min-rate, whose 0 (no minimum) body takes
	// as negative.
	bodyMinRate int64
	// maxClientConns caps each client address's connections; exempt
	// (the trusted proxies) have none. Zero for a role without the flag.
	maxClientConns int
	exempt         []netip.Prefix
	// blobURL is set by the roles that keep blobs (registerBlobs).
	blobURL string
	// minFreeBytes is the data directory's free space under which the
	// roles that write there say not ready (registerDisk).
	minFreeBytes int64
}

// register adds the flags of every role; --addr only with an address to
// default to (a role that listens). Each role's flag set holds only flags
// it reads (TestRoleFlags): the rest are added by the register methods of
// what the role runs.
func (c *common) register(fs *flagSet, defAddr string) {
	if defAddr != "" {
		fs.String(&c.addr, "addr", defAddr, "address to listen on")
	}
	fs.String(&c.dataDir, "data-dir", "./data", "directory of the SQLite database (without --database-url) and, without --blob-url, the blobs")
	c.db.register(fs)
	fs.String(&c.logFormat, "log-format", "json", "log format: json or text")
	fs.String(&c.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.Duration(&c.shutdownTimeout, "shutdown-timeout", 30*time.Second, "how long a graceful shutdown waits for running work")
}

// registerSystem adds --system, for the roles that verify access tokens.
func (c *common) registerSystem(fs *flagSet) {
	fs.String(&c.system, "system", showroom.DefaultSystem, "system name access tokens must carry")
}

// registerBody adds the request bodies' time limits and the cap on each
// client's connections, for the roles clients reach.
func (c *common) registerBody(fs *flagSet) {
	def := httpapi.DefaultBodyLimits()
	fs.Duration(&c.body.Idle, "body-idle-timeout", def.Idle, "a request body from which nothing arrives for this long gets 408")
	fs.Duration(&c.body.Total, "body-timeout", def.Total, "a request body not whole after this long gets 408")
	fs.Int64(&c.bodyMinRate, "body-min-rate", def.MinRate,
		fmt.Sprintf("bytes a second a request body must average, over the time the server waits for it, after its first %v of waiting; slower gets 408 (0: no minimum)", def.MinRateAfter))
	fs.Int(&c.maxClientConns, "max-client-conns", defaultMaxClientConns,
		"connections one client address (an IPv6 /64) may hold open at once; another gets 503 and is closed (0: no limit)")
}

// defaultMaxClientConns leaves room for a browser's six, for a program
// sending a few dozen requests at once, and for an office of them behind one
// address, while keeping one address from holding more than a sliver of
// what the server can keep open.
const defaultMaxClientConns = 64

// bodyLimits are the request bodies' limits the flags set.
func (c *common) bodyLimits() httpapi.BodyLimits {
	l := c.body
	l.MinRate = c.bodyMinRate
	if l.MinRate == 0 {
		l.MinRate = -1
	}
	return l
}

// registerDisk adds --min-free-bytes, for the roles that write to the data
// directory: the SQLite file, the blobs.
func (c *common) registerDisk(fs *flagSet) {
	fs.Int64(&c.minFreeBytes, "min-free-bytes", httpapi.DefaultMinFreeBytes, "free space on the data directory's disk under which /readyz says not ready, in bytes (while it holds the SQLite database or the blobs)")
}

// addDiskCheck adds the data directory's free space to rd's checks, when
// the role keeps its database or its blobs there.
func (c *common) addDiskCheck(rd *httpapi.Readiness) {
	if c.db.url == "" || c.blobURL == "" {
		rd.AddReadyCheck("disk", httpapi.DiskSpace(c.dataDir, c.minFreeBytes))
	}
}

// registerBlobs adds --blob-url, for the roles that keep content, photos
// and results.
func (c *common) registerBlobs(fs *flagSet) {
	fs.String(&c.blobURL, "blob-url", "", blobURLUsage)
}

func (c *common) logger(m *Main) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.logLevel)); err != nil {
		return nil, usageError(fmt.Sprintf("--log-level: %q is not debug, info, warn or error", c.logLevel))
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch c.logFormat {
	case "json":
		h = slog.NewJSONHandler(m.Stderr, opts)
	case "text":
		h = slog.NewTextHandler(m.Stderr, opts)
	default:
		return nil, usageError(fmt.Sprintf("--log-format: %q is not json or text", c.logFormat))
	}
	return slog.New(httpapi.LogHandler{Handler: h}), nil
}

// openDB opens the database the flags choose.
func (c *common) openDB(ctx context.Context) (*database, error) {
	return c.db.open(ctx, c.dataDir)
}

// authFlags configure the auth service.
type authFlags struct {
	maxLoginChecks int
	trustedProxies string
	trusted        []netip.Prefix // trustedProxies, parsed by parse
}

func (a *authFlags) register(fs *flagSet) {
	def := auth.DefaultConfig()
	fs.Int(&a.maxLoginChecks, "max-login-checks", def.MaxHashes,
		"login password checks (argon2id, 19 MiB each) run at once; logins beyond them wait a second, then get 503")
	fs.String(&a.trustedProxies, "trusted-proxies", "",
		"addresses or prefixes (comma-separated, e.g. 10.0.0.5,10.1.0.0/16) of proxies in front of the auth service, such as 'showroom api' forwarding the console's logins: their X-Forwarded-For names the client a failed login counts against")
}

// parse checks the flags once they are read, before any work starts.
func (a *authFlags) parse() error {
	trusted, err := httpapi.ParseProxies(a.trustedProxies)
	if err != nil {
		return usageError("--trusted-proxies: " + err.Error())
	}
	a.trusted = trusted
	return nil
}

// authService builds the key ring and the auth service on db.
func authService(ctx context.Context, db showroom.AuthStore, a authFlags) (*auth.Service, error) {
	cfg := auth.DefaultConfig()
	cfg.MaxHashes = a.maxLoginChecks
	keys, err := auth.NewKeyRing(ctx, db, cfg.RefreshTTL)
	if err != nil {
		return nil, err
	}
	return auth.NewService(cfg, db, keys)
}

func (m *Main) runServe(ctx context.Context, args []string) error {
	var c common
	var a authFlags
	var e engineFlags
	q, l := newQueueFlags(), newLibraryFlags()
	var mf metricsFlags
	var demo bool
	fs := m.newFlagSet("serve")
	c.register(fs, "127.0.0.1:8080")
	c.registerSystem(fs)
	c.registerBody(fs)
	c.registerBlobs(fs)
	c.registerDisk(fs)
	a.register(fs)
	e.register(fs)
	q.registerAdmission(fs)
	q.registerRuns(fs)
	q.registerWebhooks(fs)
	l.registerDecodes(fs)
	l.registerUploads(fs)
	l.registerCache(fs)
	mf.register(fs, "serve")
	fs.Bool(&demo, "demo", false, "on an empty database, create a demo company and user and print how to log in")
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	if err := a.parse(); err != nil {
		return err
	}
	c.exempt = a.trusted
	log, db, blobs, lib, err := m.openData(ctx, c, l)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkSchema(ctx, db, true, log); err != nil {
		return err
	}
	svc, err := authService(ctx, db, a)
	if err != nil {
		return err
	}
	mx := metrics.New()
	proc, stopProc, err := processing(ctx, db, blobs, lib, e, q, true, mx, log)
	if err != nil {
		return err
	}
	api := httpapi.NewAPIServer(httpapi.APIConfig{System: c.system, PublicURL: l.publicURL}, svc.Verifier(), db, log)
	api.AddDependency("blobs", blobs.Reachable)
	c.addDiskCheck(api.Readiness)
	api.EnableProcessing(proc)
	api.EnableLibrary(lib)
	if err := enableConsole(api, c.system); err != nil {
		return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
	}
	h, err := mf.withMetrics(ctx, httpapi.Combined(httpapi.NewAuthServer(svc, db, log, a.trusted...), api), mx, log)
	if err != nil {
		return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = m.listenAndServe(sctx, c, httpapi.Handler(h, log, mx.Request, c.bodyLimits()), log, func(base string) error {
		fmt.Fprintf(m.Stdout, "Showroom is starting on %s; it says when it is ready (the model loads first)\n", base)
		if demo {
			if err := m.demo(ctx, db, c, base); err != nil {
				return err
			}
		}
		m.announceReady(sctx, api.Readiness, fmt.Sprintf("\nShowroom is ready:\n  console:  %s/\n  auth_url: %s/auth\n  base_url: %s\n", base, base, base))
		return nil
	})
	cancel()
	return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
}

// readyPoll is how often announceReady looks, and notReadyAfter how long it
// waits before it says what holds the process back.
const (
	readyPoll     = 250 * time.Millisecond
	notReadyAfter = time.Minute
)

// announceReady prints msg once rd says ready, as /readyz would (the port
// opens seconds before the model has loaded); if that takes longer than
// notReadyAfter, it says once what is not ready yet. It stops when ctx ends.
func (m *Main) announceReady(ctx context.Context, rd *httpapi.Readiness, msg string) {
	go func() {
		start := time.Now()
		told := false
		tick := time.NewTicker(readyPoll)
		defer tick.Stop()
		for {
			err := rd.Check(ctx)
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				fmt.Fprint(m.Stdout, msg)
				return
			}
			if !told && time.Since(start) > notReadyAfter {
				fmt.Fprintf(m.Stdout, "Showroom is not ready yet (%v); /readyz says the same\n", err)
				told = true
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// metricsFlags say where the Prometheus metrics are served.
type metricsFlags struct {
	addr string
}

func (f *metricsFlags) register(fs *flagSet, role string) {
	usage := "serve the Prometheus metrics on this address only (e.g. a private 127.0.0.1:9090), not at /metrics beside the API"
	if role == "worker" {
		usage = "serve the Prometheus metrics on this address only (e.g. a private 127.0.0.1:9090), not at /metrics beside /healthz and /readyz on --addr"
	}
	fs.String(&f.addr, "metrics-addr", "", usage)
}

// withMetrics serves the metrics at /metrics beside h, unless they have an
// address of their own; then it starts serving them there, until ctx ends.
func (f *metricsFlags) withMetrics(ctx context.Context, h http.Handler, mx *metrics.Metrics, log *slog.Logger) (http.Handler, error) {
	if f.addr == "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", mx.Handler())
		mux.Handle("/", h)
		return mux, nil
	}
	return h, f.serve(ctx, mx, log)
}

// serve serves the metrics alone on f.addr, if set, until ctx ends.
func (f *metricsFlags) serve(ctx context.Context, mx *metrics.Metrics, log *slog.Logger) error {
	if f.addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", mx.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	log.Info("serving metrics", "addr", ln.Addr().String())
	return nil
}

// openData opens what every role that serves content or processes photos
// needs: the logger, the database, the blob store and the library on them.
// The caller closes db.
func (m *Main) openData(ctx context.Context, c common, l libraryFlags) (*slog.Logger, *database, blob.Store, *library.Service, error) {
	log, err := c.logger(m)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	db, err := c.openDB(ctx)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	blobs, err := openBlobs(ctx, c.blobURL, c.dataDir)
	if err == nil {
		var lib *library.Service
		if lib, err = newLibrary(db, blobs, l); err == nil {
			return log, db, blobs, lib, nil
		}
	}
	db.Close()
	return nil, nil, nil, nil, err
}

// stopWithin runs stop with a deadline: the running jobs finish first, up to
// the shutdown timeout.
func stopWithin(d time.Duration, stop func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return stop(ctx)
}

// runWorker runs processing jobs: the worker role of a scaled-out
// deployment, beside 'showroom api' on the same database. It serves no API,
// only what its operator needs on --addr: /healthz, /readyz (the database,
// the blob store, the model warmed up) and, unless --metrics-addr puts them
// elsewhere, /metrics.
func (m *Main) runWorker(ctx context.Context, args []string) error {
	var c common
	var e engineFlags
	q, l := newQueueFlags(), newLibraryFlags()
	var mf metricsFlags
	fs := m.newFlagSet("worker")
	c.register(fs, "127.0.0.1:8082")
	c.registerBlobs(fs)
	c.registerDisk(fs)
	e.register(fs)
	q.registerRuns(fs)
	q.registerWebhooks(fs)
	l.registerDecodes(fs)
	l.registerCache(fs)
	mf.register(fs, "worker")
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	log, db, blobs, lib, err := m.openData(ctx, c, l)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkSchema(ctx, db, true, log); err != nil {
		return err
	}
	mx := metrics.New()
	proc, stopProc, err := processing(ctx, db, blobs, lib, e, q, true, mx, log)
	if err != nil {
		return err
	}
	probes := httpapi.NewProbeServer(db, log)
	probes.AddDependency("blobs", blobs.Reachable)
	c.addDiskCheck(probes.Readiness)
	probes.AddReadyCheck("model", proc.Ready)
	h, err := mf.withMetrics(ctx, probes, mx, log)
	if err != nil {
		return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
	}
	err = m.listenAndServe(ctx, c, httpapi.Handler(h, log, mx.Request, c.bodyLimits()), log, func(base string) error {
		served := "/healthz, /readyz and /metrics"
		if mf.addr != "" {
			served = "/healthz and /readyz"
		}
		fmt.Fprintf(m.Stdout, "Showroom worker is running %d jobs at a time; %s on %s\n", q.workers, served, base)
		return nil
	})
	log.Info("stopping: finishing running jobs")
	return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
}

func (m *Main) runAuth(ctx context.Context, args []string) error {
	var c common
	var a authFlags
	fs := m.newFlagSet("auth")
	c.register(fs, "127.0.0.1:8081")
	c.registerBody(fs)
	a.register(fs)
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	if err := a.parse(); err != nil {
		return err
	}
	c.exempt = a.trusted
	log, err := c.logger(m)
	if err != nil {
		return err
	}
	db, err := c.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkSchema(ctx, db, true, log); err != nil {
		return err
	}
	svc, err := authService(ctx, db, a)
	if err != nil {
		return err
	}
	return m.listenAndServe(ctx, c, httpapi.Handler(httpapi.NewAuthServer(svc, db, log, a.trusted...), log, nil, c.bodyLimits()), log, func(base string) error {
		fmt.Fprintf(m.Stdout, "Showroom auth service is listening on %s\n", base)
		return nil
	})
}

func (m *Main) runAPI(ctx context.Context, args []string) error {
	var c common
	q, l := newQueueFlags(), newLibraryFlags()
	var mf metricsFlags
	var e engineFlags // only its admission limit: the API runs no model
	var authURL, proxies string
	fs := m.newFlagSet("api")
	c.register(fs, "127.0.0.1:8080")
	c.registerSystem(fs)
	c.registerBody(fs)
	c.registerBlobs(fs)
	c.registerDisk(fs)
	q.registerAdmission(fs)
	e.registerAdmission(fs)
	q.registerWebhooks(fs)
	l.registerDecodes(fs)
	l.registerUploads(fs)
	mf.register(fs, "api")
	fs.String(&authURL, "auth-url", "http://127.0.0.1:8081", "base URL of the auth service, whose JWKS verifies tokens")
	fs.String(&proxies, "trusted-proxies", "",
		"addresses or prefixes (comma-separated) of the load balancers or proxies in front of the api: their connections are not capped by --max-client-conns")
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	// Behind a load balancer every connection comes from its address: the
	// per-address cap belongs there, not on the balancer's connections.
	exempt, err := httpapi.ParseProxies(proxies)
	if err != nil {
		return usageError("--trusted-proxies: " + err.Error())
	}
	c.exempt = exempt
	authBase, err := url.Parse(strings.TrimSuffix(authURL, "/"))
	if err != nil || authBase.Scheme == "" || authBase.Host == "" {
		return usageError(fmt.Sprintf("--auth-url: %q is not an absolute URL", authURL))
	}
	log, db, blobs, lib, err := m.openData(ctx, c, l)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := checkSchema(ctx, db, false, log); err != nil {
		return err
	}
	mx := metrics.New()
	// The API only enqueues; 'showroom worker' processes.
	proc, stopProc, err := processing(ctx, db, blobs, lib, e, q, false, mx, log)
	if err != nil {
		return err
	}
	verifier := auth.NewVerifier(auth.NewJWKSClient(strings.TrimSuffix(authURL, "/")+"/.well-known/jwks.json", nil), db)
	api := httpapi.NewAPIServer(httpapi.APIConfig{System: c.system, PublicURL: l.publicURL}, verifier, db, log)
	api.AddDependency("blobs", blobs.Reachable)
	c.addDiskCheck(api.Readiness)
	api.EnableProcessing(proc)
	api.EnableLibrary(lib)
	if err := enableConsole(api, c.system); err != nil {
		return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
	}
	// The console logs in on its own origin: /auth is the auth service's.
	h, err := mf.withMetrics(ctx, httpapi.Combined(console.AuthProxy(authBase, log), api), mx, log)
	if err != nil {
		return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	err = m.listenAndServe(sctx, c, httpapi.Handler(h, log, mx.Request, c.bodyLimits()), log, func(base string) error {
		fmt.Fprintf(m.Stdout, "Showroom API is listening on %s (tokens verified by %s); it says when it is ready\n", base, authURL)
		m.announceReady(sctx, api.Readiness, fmt.Sprintf("Showroom API is ready:\n  console:  %s/\n  base_url: %s\n", base, base))
		return nil
	})
	cancel()
	return errors.Join(err, stopWithin(c.shutdownTimeout, stopProc))
}

// listenAndServe serves h on c.addr until ctx ends, then shuts down
// gracefully. started runs once the listener is bound.
func (m *Main) listenAndServe(ctx context.Context, c common, h http.Handler, log *slog.Logger, started func(base string) error) error {
	ln, err := net.Listen("tcp", c.addr)
	if err != nil {
		return err
	}
	base := "http://" + ln.Addr().String()
	ln = httpapi.LimitConnsPerClient(ln, c.maxClientConns, c.exempt, log)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	log.Info("listening", "addr", ln.Addr().String())
	if err := started(base); err != nil {
		srv.Close()
		return err
	}
	if m.ready != nil {
		m.ready(base)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), c.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// demoCredentials is the file in the data directory where --demo keeps the
// demo user's password, so that later runs can print it again.
const demoCredentials = "demo-credentials.txt"

// demo creates a demo company and user on an empty database and prints how
// to log in.
func (m *Main) demo(ctx context.Context, db showroom.AuthStore, c common, base string) error {
	file := filepath.Join(c.dataDir, demoCredentials)
	n, err := db.CountUsers(ctx)
	if err != nil {
		return err
	}
	var password string
	switch b, err := os.ReadFile(file); {
	case n == 0:
		buf := make([]byte, 12)
		rand.Read(buf)
		password = base64.RawURLEncoding.EncodeToString(buf)
		if err := createUser(ctx, db, "demo", "demo", password, []string{c.system}, true); err != nil {
			return err
		}
		if err := os.WriteFile(file, []byte(password+"\n"), 0o600); err != nil {
			return err
		}
	case err == nil:
		password = strings.TrimSpace(string(b))
	default:
		fmt.Fprintf(m.Stdout, "\nThe database has users already; create one with 'showroom admin user add'.\n")
		return nil
	}
	fmt.Fprintf(m.Stdout, `
Demo login (company "demo"): username demo, password %s
  curl -s -X POST %s/auth/login -H 'Content-Type: application/json' \
    -d '{"username":"demo","password":"%s","system":"%s"}'
`, password, base, password, c.system)
	return nil
}

// libraryFlags are the limits of uploaded content and the address used in
// FULLPATH: links. Fields a role does not register keep their defaults.
type libraryFlags struct {
	maxUploadBytes       int64
	maxUploadPixels      int64
	maxUploadDecodeBytes int64
	maxDecodes           int
	cacheBytes           int64
	publicURL            string
}

// newLibraryFlags returns the defaults, for the flags a role leaves out.
func newLibraryFlags() libraryFlags {
	def := library.DefaultConfig()
	return libraryFlags{maxUploadBytes: def.MaxUploadBytes, maxUploadPixels: def.MaxPixels,
		maxUploadDecodeBytes: def.MaxDecodeBytes, maxDecodes: def.MaxDecodes, cacheBytes: def.CacheBytes}
}

// registerDecodes adds the limits of decoding content, which both the
// uploads and the runs that load content decode.
func (l *libraryFlags) registerDecodes(fs *flagSet) {
	fs.Int64(&l.maxUploadPixels, "max-upload-pixels", l.maxUploadPixels, "most pixels (width x height) of an uploaded image, checked before decoding")
	fs.Int64(&l.maxUploadDecodeBytes, "max-upload-decode-bytes", l.maxUploadDecodeBytes, "most memory the decode of an uploaded image may take, in bytes, checked before decoding")
	fs.Int(&l.maxDecodes, "max-decodes", l.maxDecodes, "uploaded images fully decoded at once")
}

// registerUploads adds what only the API reads: the upload's size and the
// links in its answers.
func (l *libraryFlags) registerUploads(fs *flagSet) {
	fs.Int64(&l.maxUploadBytes, "max-upload-bytes", l.maxUploadBytes, "largest content upload in bytes")
	fs.String(&l.publicURL, "public-url", "", "absolute URL clients reach the API at, for FULLPATH: links (default: from each request)")
}

// registerCache adds the cache of decoded content, which only the roles
// that run jobs fill.
func (l *libraryFlags) registerCache(fs *flagSet) {
	fs.Int64(&l.cacheBytes, "content-cache-bytes", l.cacheBytes, "decoded backgrounds and posters kept for processing, in bytes of pixels")
}

// newLibrary builds the content and configuration service.
func newLibrary(db stores, blobs blob.Store, l libraryFlags) (*library.Service, error) {
	return library.New(library.Config{MaxUploadBytes: l.maxUploadBytes, MaxPixels: l.maxUploadPixels,
		MaxDecodeBytes: l.maxUploadDecodeBytes, MaxDecodes: l.maxDecodes, CacheBytes: l.cacheBytes},
		library.Deps{Content: db, Configurations: db, Blobs: blobs, Images: pipeline.ContentImages{}, Art: builtinart.Art{}})
}
