package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/showroom"
)

// maxAuthBody bounds login, refresh and logout bodies.
const maxAuthBody = 64 << 10

// Pinger is something whose health /readyz reports (the database).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Authenticator logs users in and out and issues their tokens: what the
// auth service's endpoints ask of it.
type Authenticator interface {
	Login(ctx context.Context, username, password, system, client string) (*auth.TokenResponse, error)
	Refresh(ctx context.Context, raw string) (*auth.TokenResponse, error)
	Logout(ctx context.Context, raw string) error
	// Keys returns the signing keys, whose public halves the JWKS serves.
	Keys() *auth.KeyRing
}

// AuthServer serves the auth service: login, refresh, logout, the JWKS and
// health, with routes at its root.
type AuthServer struct {
	svc Authenticator
	db  Pinger
	log *slog.Logger
	rt  *router
}

// NewAuthServer returns the auth service's routes; wrap it with Handler.
func NewAuthServer(svc Authenticator, db Pinger, log *slog.Logger) http.Handler {
	s := &AuthServer{svc: svc, db: db, log: log, rt: newRouter(log)}
	s.rt.handle("POST", "/login", s.login)
	s.rt.handle("POST", "/refresh", s.refresh)
	s.rt.handle("POST", "/logout", s.logout)
	s.rt.handle("GET", "/.well-known/jwks.json", s.jwks)
	s.rt.handle("GET", "/healthz", healthz)
	s.rt.handle("GET", "/readyz", readyz(db))
	return s.rt
}

func (s *AuthServer) login(w http.ResponseWriter, r *http.Request) error {
	f, err := stringFields(w, r, maxAuthBody, "all parameters username, password and system are required",
		"username", "password", "system")
	if err != nil {
		return err
	}
	tok, err := s.svc.Login(r.Context(), f["username"], f["password"], f["system"], clientAddr(r))
	if err != nil {
		s.logLoginFailure(r, f["username"], err)
		return err
	}
	noteCaller(r.Context(), "", f["username"])
	writeTokens(w, tok)
	return nil
}

// maxLoggedUsername bounds the username a log line repeats: what a client
// sends as one is as long as the body allows.
const maxLoggedUsername = 128

// logLoginFailure logs a refused login at WARN, where an operator watching
// for password guessing looks: the username tried and the client's address,
// never the password.
func (s *AuthServer) logLoginFailure(r *http.Request, username string, err error) {
	if len(username) > maxLoggedUsername {
		username = strings.ToValidUTF8(username[:maxLoggedUsername], "") + "…"
	}
	switch showroom.ErrorCode(err) {
	case showroom.EInvalidCredentials:
		s.log.WarnContext(r.Context(), "login failed", "username", username, "remote", clientAddr(r))
	case showroom.ETooManyRequests:
		var e *showroom.Error
		errors.As(err, &e)
		s.log.WarnContext(r.Context(), "login refused: too many failed logins", "username", username, "remote", clientAddr(r),
			"retry_after_s", int((e.RetryAfter+time.Second-1)/time.Second))
	}
}

func (s *AuthServer) refresh(w http.ResponseWriter, r *http.Request) error {
	f, err := stringFields(w, r, maxAuthBody, "parameter refresh_token is required", "refresh_token")
	if err != nil {
		return err
	}
	tok, err := s.svc.Refresh(r.Context(), f["refresh_token"])
	if err != nil {
		return err
	}
	writeTokens(w, tok)
	return nil
}

func (s *AuthServer) logout(w http.ResponseWriter, r *http.Request) error {
	f, err := stringFields(w, r, maxAuthBody, "parameter refresh_token is required", "refresh_token")
	if err != nil {
		return err
	}
	if err := s.svc.Logout(r.Context(), f["refresh_token"]); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func writeTokens(w http.ResponseWriter, tok *auth.TokenResponse) {
	// RFC 6749 section 5.1: token responses must not be cached.
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, tok)
}

func (s *AuthServer) jwks(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.svc.Keys().JWKS())
	return nil
}

func healthz(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	return nil
}

func readyz(db Pinger) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := db.Ping(r.Context()); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "database": "unreachable"})
			return nil
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	}
}
