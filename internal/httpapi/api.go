// Package httpapi is Showroom's HTTP interface: the auth service's routes,
// the processing API under /v1/, and the one place that writes the
// contract's error body. Handlers decode, call a service and encode; rules
// live in the domain and pipeline packages.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/showroom"
)

// TokenVerifier checks an access token for a system.
type TokenVerifier interface {
	VerifyAccess(ctx context.Context, raw, system string) (*showroom.Principal, error)
}

// Database is what the API reads of the database itself: whether it
// answers (readiness) and the company an access token names, which the
// API resolves once a request (authed) for every layer below to use.
type Database interface {
	Pinger
	FindCompany(ctx context.Context, name string) (*showroom.Company, error)
}

// APIConfig configures the processing API.
type APIConfig struct {
	// System is the name tokens must carry as their audience.
	System string
	// PublicURL is the API's absolute address as clients reach it (e.g.
	// https://showroom.example.com), for the FULLPATH: links in records.
	// Empty means: from each request's scheme and Host header.
	PublicURL string
}

// APIServer serves everything under /v1/ of the contract.
type APIServer struct {
	cfg      APIConfig
	verifier TokenVerifier
	db       Database
	log      *slog.Logger
	rt       *router
	// Readiness is what /readyz checks: the database, and what the caller
	// adds (the blob store, the model).
	*Readiness
}

// NewAPIServer returns the API's routes; wrap it with Handler.
func NewAPIServer(cfg APIConfig, verifier TokenVerifier, db Database, log *slog.Logger) *APIServer {
	if cfg.System == "" {
		cfg.System = showroom.DefaultSystem
	}
	s := &APIServer{cfg: cfg, verifier: verifier, db: db, log: log, rt: newRouter(log), Readiness: NewReadiness(db, log)}
	s.rt.gate = s.Readiness.Gate
	s.rt.handleProbe("GET", "/healthz", healthz)
	s.rt.handleProbe("GET", "/readyz", s.Readiness.serve)
	s.rt.handle("GET", "/v1/me", s.verified(s.me))
	s.rt.handle("GET", "/openapi.yaml", serveOpenAPI)
	return s
}

// Combined serves the auth service under /auth and the API at the root: the
// one-port layout of 'showroom serve'.
func Combined(authServer, api http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/auth/", http.StripPrefix("/auth", authServer))
	// Else the mux redirects /auth to /auth/; the API answers it 404.
	mux.Handle("/auth", api)
	mux.Handle("/", api)
	return mux
}

// ServeHTTP implements http.Handler.
func (s *APIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.rt.ServeHTTP(w, r) }

// verified wraps h so that it runs only for a valid access token, with the
// principal in the request's context (showroom.PrincipalFromContext): for
// answers about the caller or the service, which read no company's data.
func (s *APIServer) verified(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.verify(r)
		if err != nil {
			return err
		}
		return h(w, r.WithContext(showroom.NewContextWithPrincipal(r.Context(), p)))
	}
}

// authed is verified with the token's company resolved, once, into the
// request's context too (showroom.CompanyFromContext): the handlers, the
// library and the queue below key by its ID and look up nothing by name.
func (s *APIServer) authed(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.verify(r)
		if err != nil {
			return err
		}
		c, err := s.db.FindCompany(r.Context(), p.Company)
		if showroom.ErrorCode(err) == showroom.ENotFound {
			// The token is genuine but its company is gone.
			return &showroom.Error{Code: showroom.EInvalidToken, Message: "the token's company no longer exists", Cause: err}
		} else if err != nil {
			return err
		}
		ctx := showroom.NewContextWithCompany(showroom.NewContextWithPrincipal(r.Context(), p), c)
		return h(w, r.WithContext(ctx))
	}
}

// verify checks the request's access token and tells the access log whom
// it speaks for.
func (s *APIServer) verify(r *http.Request) (*showroom.Principal, error) {
	if len(r.Header.Values("Authorization")) > 1 {
		// Which one counts would be the first reader's guess, and a
		// proxy in front may guess otherwise: neither does.
		return nil, showroom.Errorf(showroom.EInvalidToken, "the request has more than one Authorization header")
	}
	raw, ok := tokenFrom(r)
	if !ok {
		return nil, showroom.Errorf(showroom.EUnauthorized, "an access token is required in the Authorization header")
	}
	p, err := s.verifier.VerifyAccess(r.Context(), raw, s.cfg.System)
	if err != nil {
		return nil, err
	}
	noteCaller(r.Context(), p.Company, p.Username)
	return p, nil
}

// me answers who the token speaks for: a way for a user to check a token.
func (s *APIServer) me(w http.ResponseWriter, r *http.Request) error {
	p := showroom.PrincipalFromContext(r.Context())
	writeJSON(w, http.StatusOK, map[string]string{"username": p.Username, "company": p.Company, "system": p.System})
	return nil
}

func tokenFrom(r *http.Request) (string, bool) {
	return auth.TokenFromHeader(r.Header.Get("Authorization"))
}
