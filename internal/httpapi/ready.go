package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// Readiness answers /readyz: every dependency of the process checked at
// each probe, at once, and named in the answer, so that an operator sees
// which one holds the process back. 200 when all pass, 503 otherwise:
//
//	{"status":"ready","checks":{"database":"ok","blobs":"ok","model":"ok"}}
//	{"status":"not ready","checks":{"database":"ok","blobs":"unreachable","model":"warming up"}}
type Readiness struct {
	log    *slog.Logger
	checks []*readyCheck
	// schema is the database's schema as this build knows it, when the
	// database can tell (SchemaChecker): requests wait on it (Gate).
	schema *schemaGate
}

// readyCheck is one dependency. A reachability check's error may name
// hosts, users or paths: the answer, which anyone who reaches the port
// reads, says "unreachable", and the log says why, once when it goes
// down and once when it is back (probes come every few seconds). A
// *showroom.Error's message is public by design: it is shown as it is
// (the database's "pending migrations; run 'showroom migrate'").
type readyCheck struct {
	name      string
	check     func(context.Context) error
	reachable bool
	down      atomic.Bool
}

// readyTimeout bounds each check: a dependency that takes longer to answer
// is not ready, and a probe gets its answer in time.
const readyTimeout = 5 * time.Second

// SchemaChecker is a database that can tell whether its schema is the one
// this build knows: CheckSchema returns nil when it is, an EUnavailable
// *showroom.Error saying what to do when migrations are pending (run
// 'showroom migrate'), an error wrapping showroom.ErrNewerSchema when a
// newer build has migrated it (served on: the migrations only add),
// another error when it could not look.
type SchemaChecker interface {
	CheckSchema(ctx context.Context) error
}

// NewReadiness returns the checks of a process on db, the database every
// role has: it answers a ping and, if db is a SchemaChecker, has the schema
// this build knows; until it does, the check says why and Gate refuses
// requests.
func NewReadiness(db Pinger, log *slog.Logger) *Readiness {
	rd := &Readiness{log: log}
	check := db.Ping
	if sc, ok := db.(SchemaChecker); ok {
		rd.schema = &schemaGate{check: sc.CheckSchema}
		check = func(ctx context.Context) error {
			if err := db.Ping(ctx); err != nil {
				return err
			}
			return rd.schema.refresh(ctx)
		}
	}
	rd.AddDependency("database", check)
	return rd
}

// Gate returns the error a request gets before any handler runs: the
// schema's, while the database lacks migrations this build knows (an
// un-migrated database answers every query with a missing table).
// Nil otherwise, and when the database cannot be reached: that is each
// request's own error to find.
func (rd *Readiness) Gate(ctx context.Context) error {
	if rd.schema == nil {
		return nil
	}
	return rd.schema.state(ctx)
}

// schemaGate keeps the result of the last schema check, so that requests
// do not each query the database: a schema found right is looked at again
// after schemaRecheck (another build may migrate it on), a wrong one after
// schemaRetry. Every /readyz probe looks again.
type schemaGate struct {
	check func(context.Context) error
	mu    sync.Mutex
	at    time.Time
	err   error // an EUnavailable *showroom.Error, or nil
}

const (
	schemaRecheck = 10 * time.Second
	schemaRetry   = time.Second
	// schemaTimeout bounds a request's look at the schema.
	schemaTimeout = 2 * time.Second
)

// state returns the schema's error, looking again when the last look is
// old. One request looks while the others that come meanwhile wait for it.
func (g *schemaGate) state(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	ttl := schemaRecheck
	if g.err != nil {
		ttl = schemaRetry
	}
	if !g.at.IsZero() && time.Since(g.at) < ttl {
		return g.err
	}
	ctx, cancel := context.WithTimeout(ctx, schemaTimeout)
	defer cancel()
	g.look(ctx)
	return g.err
}

// refresh looks at the schema now, for /readyz: its error is the schema's
// or, when it could not look, why not.
func (g *schemaGate) refresh(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.look(ctx)
}

// look checks the schema and keeps the answer; the caller holds g.mu. A
// failure to look keeps the last answer.
func (g *schemaGate) look(ctx context.Context) error {
	err := g.check(ctx)
	var e *showroom.Error
	switch {
	case err == nil, errors.Is(err, showroom.ErrNewerSchema):
		// A newer schema is the previous release's processes during a
		// rolling upgrade: they keep serving (the process logs it at
		// start).
		g.err = nil
	case errors.As(err, &e) && e.Code == showroom.EUnavailable:
		g.err = e
	default:
		return err
	}
	g.at = time.Now()
	return g.err
}

// AddDependency adds a service the process reaches (the blob store):
// while check fails, /readyz answers 503 with name "unreachable". Call it
// before serving.
func (rd *Readiness) AddDependency(name string, check func(context.Context) error) {
	rd.checks = append(rd.checks, &readyCheck{name: name, check: check, reachable: true})
}

// AddReadyCheck adds a condition of the process itself (the model warmed
// up): while check fails, /readyz answers 503 with name and check's error,
// which must say nothing secret. Call it before serving.
func (rd *Readiness) AddReadyCheck(name string, check func(context.Context) error) {
	rd.checks = append(rd.checks, &readyCheck{name: name, check: check})
}

// DefaultMinFreeBytes is the free space under which DiskSpace says not
// ready: room for a few uploads and results, and for SQLite to finish
// what it has begun.
const DefaultMinFreeBytes = 100 << 20

// DiskSpace returns a ready check of the file system that holds dir (the
// data directory: the SQLite file, the blobs): it fails while less than
// min bytes are free to the process (the blocks kept for root left out),
// so that a load balancer turns away from the process before its writes
// fail on a full disk. Its error is public: it says how much is free, not
// where.
func DiskSpace(dir string, min int64) func(context.Context) error {
	return func(context.Context) error {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			return errors.New("the data directory's free space cannot be read")
		}
		if free := int64(st.Bavail) * int64(st.Bsize); free < min {
			return fmt.Errorf("low on disk space: %d MiB free, under the %d MiB --min-free-bytes asks", free>>20, min>>20)
		}
		return nil
	}
}

// readyBody is /readyz's answer.
type readyBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

func (rd *Readiness) serve(w http.ResponseWriter, r *http.Request) error {
	body := rd.run(r.Context())
	status := http.StatusOK
	if body.Status != "ready" {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, body)
	return nil
}

// Check runs every check now, as a probe of /readyz does: nil when /readyz
// would answer 200, else an error naming each check that fails and what it
// says. The process uses it to say when it is ready without probing itself
// over HTTP.
func (rd *Readiness) Check(ctx context.Context) error {
	body := rd.run(ctx)
	if body.Status == "ready" {
		return nil
	}
	var failing []string
	for name, result := range body.Checks {
		if result != "ok" {
			failing = append(failing, name+": "+result)
		}
	}
	slices.Sort(failing)
	return errors.New(strings.Join(failing, "; "))
}

// run runs every check at once, each within readyTimeout.
func (rd *Readiness) run(ctx context.Context) readyBody {
	body := readyBody{Status: "ready", Checks: make(map[string]string, len(rd.checks))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range rd.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, readyTimeout)
			defer cancel()
			result := "ok"
			err := c.check(ctx)
			var public *showroom.Error
			if err != nil {
				result = err.Error()
				if c.reachable {
					result = "unreachable"
					msg := "not ready: a dependency is unreachable"
					if errors.As(err, &public) {
						result, msg = public.Message, "not ready: "+public.Message
					}
					if !c.down.Swap(true) {
						rd.log.WarnContext(ctx, msg, "dependency", c.name, "err", err)
					}
				}
			} else if c.reachable && c.down.Swap(false) {
				rd.log.InfoContext(ctx, "a dependency is reachable again", "dependency", c.name)
			}
			mu.Lock()
			body.Checks[c.name] = result
			if result != "ok" {
				body.Status = "not ready"
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	return body
}

// ProbeServer serves a process's liveness and readiness alone, for a role
// that serves no API: the worker.
type ProbeServer struct {
	*Readiness
	rt *router
}

// NewProbeServer serves /healthz and /readyz for a process on db; add the
// process's other dependencies to it before serving.
func NewProbeServer(db Pinger, log *slog.Logger) *ProbeServer {
	s := &ProbeServer{Readiness: NewReadiness(db, log), rt: newRouter(log)}
	s.rt.handleProbe("GET", "/healthz", healthz)
	s.rt.handleProbe("GET", "/readyz", s.serve)
	return s
}

// ServeHTTP implements http.Handler.
func (s *ProbeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.rt.ServeHTTP(w, r) }
