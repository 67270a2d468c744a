package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/showroom/showroom/internal/showroom"
)

// handlerFunc is an HTTP handler that returns its error instead of writing
// it; the router writes every error in the contract's body.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// router wraps http.ServeMux so that a wrong method gets 405 with Allow and
// an unknown path 404, both in the contract's error body rather than the
// mux's plain text.
type router struct {
	mux     *http.ServeMux
	log     *slog.Logger
	methods map[string][]string // path pattern -> methods
	// gate, if set, runs before every route but the probes': its error is
	// the answer (Readiness.Gate: the database's schema is not this
	// build's).
	gate func(context.Context) error
}

func newRouter(log *slog.Logger) *router {
	rt := &router{mux: http.NewServeMux(), log: log, methods: map[string][]string{}}
	rt.mux.HandleFunc("/", rt.notFound)
	return rt
}

func (rt *router) notFound(w http.ResponseWriter, r *http.Request) {
	setRoute(r, "unmatched")
	writeError(w, r, rt.log, showroom.Errorf(showroom.ENotFound, "no such resource: %s", r.URL.Path))
}

// handle routes method and path to h, which takes the query parameters
// params and no others.
func (rt *router) handle(method, path string, h handlerFunc, params ...string) {
	rt.route(method, path, rt.gated(strictQuery(h, params)))
}

// handleProbe routes method and path to h, a liveness or readiness probe,
// which answers whatever the gate says: it is how an operator learns why.
func (rt *router) handleProbe(method, path string, h handlerFunc) {
	rt.route(method, path, strictQuery(h, nil))
}

// gated runs h once the gate, if any, lets the request through.
func (rt *router) gated(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if rt.gate != nil {
			if err := rt.gate(r.Context()); err != nil {
				return err
			}
		}
		return h(w, r)
	}
}

// handlePage routes method and path to h, a web page: it takes any query
// string, since links to a page carry parameters of their own (a mail's
// utm_source) that are no option of the API's.
func (rt *router) handlePage(method, path string, h handlerFunc) {
	rt.route(method, path, rt.gated(h))
}

func (rt *router) route(method, path string, h handlerFunc) {
	route := method + " " + path
	rt.mux.Handle(route, rt.adapt(route, h))
	if _, seen := rt.methods[path]; !seen && path != "/" {
		rt.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			setRoute(r, path)
			allow := rt.allowed(path)
			w.Header().Set("Allow", allow)
			writeError(w, r, rt.log, showroom.Errorf(showroom.EMethodNotAllowed,
				"method %s is not allowed here; allowed: %s", r.Method, allow))
		})
	}
	if _, seen := rt.methods[path]; !seen && strings.HasSuffix(path, "/") && !strings.HasSuffix(path, "}/") && path != "/" {
		// The mux would redirect the folder's name without its slash to
		// it, with an HTML body: it names nothing here.
		rt.mux.HandleFunc(strings.TrimSuffix(path, "/"), rt.notFound)
	}
	rt.methods[path] = append(rt.methods[path], method)
}

func (rt *router) allowed(path string) string {
	ms := append([]string(nil), rt.methods[path]...)
	for _, m := range ms {
		if m == http.MethodGet {
			ms = append(ms, http.MethodHead)
		}
	}
	sort.Strings(ms)
	return strings.Join(ms, ", ")
}

func (rt *router) adapt(route string, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setRoute(r, route)
		if err := h(w, r); err != nil {
			writeError(w, r, rt.log, err)
		}
	})
}

// ServeHTTP implements http.Handler.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) { rt.mux.ServeHTTP(w, r) }

// strictQuery refuses, before h runs, a query parameter that h does not
// take (UNKNOWN_PARAMETER, naming it) and one given twice: a misspelt or
// foreign option (?bg_color=red) must not be ignored silently, nor one
// of two values be picked by guess.
func strictQuery(h handlerFunc, params []string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if r.URL.RawQuery == "" {
			return h(w, r)
		}
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return showroom.Errorf(showroom.EInvalidParameter, "the query string cannot be parsed")
		}
		var unknown []string
		for name, values := range q {
			switch {
			case !slices.Contains(params, name):
				unknown = append(unknown, strconv.Quote(name))
			case len(values) > 1:
				return showroom.Errorf(showroom.EInvalidParameter, "query parameter %q is given %d times; give it once", name, len(values))
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown)
			takes := "no query parameters"
			if len(params) > 0 {
				takes = "only " + strings.Join(params, ", ")
			}
			return showroom.Errorf(showroom.EUnknownParameter, "unknown query parameter %s: %s %s takes %s",
				strings.Join(unknown, ", "), r.Method, r.URL.Path, takes)
		}
		return h(w, r)
	}
}
