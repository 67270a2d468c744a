package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
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
}

// readyCheck is one dependency. A reachability check's error may name
// hosts, users or paths: the answer, which anyone who reaches the port
// reads, says "unreachable", and the log says why, once when it goes
// down and once when it is back (probes come every few seconds).
type readyCheck struct {
	name      string
	check     func(context.Context) error
	reachable bool
	down      atomic.Bool
}

// readyTimeout bounds each check: a dependency that takes longer to answer
// is not ready, and a probe gets its answer in time.
const readyTimeout = 5 * time.Second

// NewReadiness returns the checks of a process on db, the database every
// role has.
func NewReadiness(db Pinger, log *slog.Logger) *Readiness {
	rd := &Readiness{log: log}
	rd.AddDependency("database", db.Ping)
	return rd
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

// readyBody is /readyz's answer.
type readyBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

func (rd *Readiness) serve(w http.ResponseWriter, r *http.Request) error {
	body := readyBody{Status: "ready", Checks: make(map[string]string, len(rd.checks))}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, c := range rd.checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
			defer cancel()
			result := "ok"
			err := c.check(ctx)
			if err != nil {
				result = err.Error()
				if c.reachable {
					result = "unreachable"
					if !c.down.Swap(true) {
						rd.log.WarnContext(r.Context(), "not ready: a dependency is unreachable", "dependency", c.name, "err", err)
					}
				}
			} else if c.reachable && c.down.Swap(false) {
				rd.log.InfoContext(r.Context(), "a dependency is reachable again", "dependency", c.name)
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
	status := http.StatusOK
	if body.Status != "ready" {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, body)
	return nil
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
	s.rt.handle("GET", "/healthz", healthz)
	s.rt.handle("GET", "/readyz", s.serve)
	return s
}

// ServeHTTP implements http.Handler.
func (s *ProbeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.rt.ServeHTTP(w, r) }
