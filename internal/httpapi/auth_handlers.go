package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/showroom"
)

// maxAuthBody bounds login, refresh and logout bodies.
const maxAuthBody = 64 << 10

// Pinger is the database, whose answer /readyz reports.
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
	log *slog.Logger
	rt  *router
	// trusted are the proxies whose X-Forwarded-For is believed (client).
	trusted []netip.Prefix
}

// NewAuthServer returns the auth service's routes; wrap it with Handler.
// Requests from the trusted proxies (such as 'showroom api', which forwards
// the web console's logins) are counted against the client address they
// forward, not their own.
func NewAuthServer(svc Authenticator, db Pinger, log *slog.Logger, trusted ...netip.Prefix) http.Handler {
	s := &AuthServer{svc: svc, log: log, rt: newRouter(log), trusted: trusted}
	ready := NewReadiness(db, log)
	s.rt.gate = ready.Gate
	s.rt.handle("POST", "/login", s.login)
	s.rt.handle("POST", "/refresh", s.refresh)
	s.rt.handle("POST", "/logout", s.logout)
	s.rt.handle("GET", "/.well-known/jwks.json", s.jwks)
	s.rt.handleProbe("GET", "/healthz", healthz)
	s.rt.handleProbe("GET", "/readyz", ready.serve)
	return s.rt
}

func (s *AuthServer) login(w http.ResponseWriter, r *http.Request) error {
	f, err := stringFields(w, r, maxAuthBody, "all parameters username, password and system are required",
		"username", "password", "system")
	if err != nil {
		return err
	}
	tok, err := s.svc.Login(r.Context(), f["username"], f["password"], f["system"], s.client(r))
	if err != nil {
		s.logLoginFailure(r, f["username"], err)
		return err
	}
	noteCaller(r.Context(), tok.Company, tok.Username)
	writeTokens(w, tok)
	return nil
}

// client is the address a login is counted against (the per-address limit)
// and logged with: the connection's, or, when that is a trusted proxy, the
// last address in X-Forwarded-For that is not one. Addresses before it were
// written by the client itself and are not believed.
func (s *AuthServer) client(r *http.Request) string {
	addr := clientAddr(r)
	if !s.isTrusted(addr) {
		return addr
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop := strings.TrimSpace(hops[i])
		ip, err := netip.ParseAddr(hop)
		if err != nil {
			return addr // garbled: the proxy's own address, as if none were forwarded
		}
		if !s.isTrusted(hop) {
			return ip.Unmap().String()
		}
		addr = hop
	}
	return addr
}

func (s *AuthServer) isTrusted(addr string) bool {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range s.trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseProxies reads a comma-separated list of addresses and CIDR prefixes
// (127.0.0.1, 10.0.0.0/8, ::1), for NewAuthServer.
func ParseProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(item)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: not an address or a prefix such as 10.0.0.0/8", item)
		}
		out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
	}
	return out, nil
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
		s.log.WarnContext(r.Context(), "login failed", "username", username, "remote", s.client(r))
	case showroom.ETooManyRequests:
		var e *showroom.Error
		errors.As(err, &e)
		s.log.WarnContext(r.Context(), "login refused: too many failed logins", "username", username, "remote", s.client(r),
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
	noteCaller(r.Context(), tok.Company, tok.Username)
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
