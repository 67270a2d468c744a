package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	requestLogKey
)

// requestLog is what the access log line tells of a request beyond what the
// middleware sees itself, noted by the router, the token check, the job
// handlers and the error writer as the request is served. It lives in the
// context because handlers below http.StripPrefix see a copy of the
// request, whose Pattern the outer middleware never sees; one goroutine
// serves a request, so it needs no lock.
type requestLog struct {
	route     string // the matched pattern, never the path with its IDs
	company   string
	user      string
	jobID     string // the job created or read
	errorCode string // of the error body sent
}

func requestLogFrom(ctx context.Context) *requestLog {
	l, _ := ctx.Value(requestLogKey).(*requestLog)
	if l == nil {
		return &requestLog{} // outside Handler: noted, never logged
	}
	return l
}

// setRoute tells the access log and metrics which route served r.
func setRoute(r *http.Request, route string) { requestLogFrom(r.Context()).route = route }

// noteCaller tells the access log who the request is from.
func noteCaller(ctx context.Context, company, user string) {
	l := requestLogFrom(ctx)
	l.company, l.user = company, user
}

// noteJob tells the access log which job the request created or read.
func noteJob(ctx context.Context, id string) { requestLogFrom(ctx).jobID = id }

// attrs are the log line's attributes, those not known left out.
func (l *requestLog) attrs() []slog.Attr {
	var as []slog.Attr
	for _, a := range []struct{ key, value string }{
		{"company", l.company}, {"user", l.user}, {"job_id", l.jobID}, {"error_code", l.errorCode},
	} {
		if a.value != "" {
			as = append(as, slog.String(a.key, a.value))
		}
	}
	return as
}

var requestIDRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// RequestID returns the request's ID, for logs.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// LogHandler is a slog.Handler that adds the request ID of the context to
// every record, so every log line of a request can be found together.
type LogHandler struct{ slog.Handler }

// Handle implements slog.Handler.
func (h LogHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs implements slog.Handler.
func (h LogHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return LogHandler{h.Handler.WithAttrs(as)}
}

// WithGroup implements slog.Handler.
func (h LogHandler) WithGroup(name string) slog.Handler { return LogHandler{h.Handler.WithGroup(name)} }

// statusRecorder remembers the status written, for the access log, and
// tells the request's body when the answer starts.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	body   *timedBody // nil without a body
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
		s.answered()
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
		s.answered()
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += int64(n)
	return n, err
}

func (s *statusRecorder) answered() {
	if s.body != nil {
		s.body.answered()
	}
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Observer is told about every finished request (metrics). route is the
// matched pattern, such as "GET /v1/content/{contentName}".
type Observer func(route string, status int, d time.Duration)

// Handler adds a request ID, panic recovery, an access log line, baseline
// security headers and the body's time limits to h. observe may be nil; a
// zero limit takes DefaultBodyLimits' value.
func Handler(h http.Handler, log *slog.Logger, observe Observer, body BodyLimits) http.Handler {
	body = body.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-ID")
		if !requestIDRE.MatchString(id) {
			b := make([]byte, 8)
			rand.Read(b)
			id = hex.EncodeToString(b)
		}
		info := &requestLog{}
		ctx := context.WithValue(context.WithValue(r.Context(), requestIDKey, id), requestLogKey, info)
		r = r.WithContext(ctx)
		rec := &statusRecorder{ResponseWriter: w}
		if r.Body != nil && r.Body != http.NoBody {
			// On the copy only: the server looks at its own request's
			// body, by type, to decide whether to drain what the handler
			// left unread.
			rec.body = newTimedBody(w, r.Body, body)
			r.Body = rec.body
		}
		w.Header().Set("X-Request-ID", id)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.ErrorContext(ctx, "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if rec.status == 0 {
					writeError(rec, r, log, showroom.Internal(fmt.Errorf("panic: %v", v)))
				}
			}
			d := time.Since(start)
			// The route's pattern is logged, not the path (it holds IDs,
			// and its query string and the headers may carry tokens).
			attrs := append([]slog.Attr{slog.String("method", r.Method), slog.String("route", info.route),
				slog.Int("status", rec.status)}, info.attrs()...)
			attrs = append(attrs, slog.Int64("bytes", rec.bytes), slog.Int64("duration_ms", d.Milliseconds()),
				slog.String("remote", clientAddr(r)))
			log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
			if observe != nil {
				observe(info.route, rec.status, d)
			}
		}()
		if routed, ok := literalDots(r); ok {
			h.ServeHTTP(rec, routed)
		} else {
			setRoute(r, "unmatched")
			writeError(rec, r, log, showroom.Errorf(showroom.ENotFound, "no such resource: %s (it has an empty segment)", r.URL.Path))
		}
		// A handler that wrote nothing is answered by the server after
		// this returns; the unread body gets its Drain then too.
		rec.answered()
	})
}

// literalDots returns r with its path's "." and ".." segments escaped
// (%2E, %2E%2E), so that http.ServeMux routes them as they are instead of
// redirecting to the path without them: /v1/content/upload/../background
// names a content "..", an invalid name the handler answers 422
// INVALID_NAME, not a redirect (with an HTML body) that a client follows
// to another resource. False for a path with an empty segment (a//b),
// which the mux would redirect too: it names nothing.
func literalDots(r *http.Request) (*http.Request, bool) {
	p := r.URL.EscapedPath()
	if !strings.Contains(p, "/.") && !strings.Contains(p, "//") {
		return r, true
	}
	segs := strings.Split(p, "/")
	changed := false
	for i, s := range segs {
		switch {
		case s == ".":
			segs[i], changed = "%2E", true
		case s == "..":
			segs[i], changed = "%2E%2E", true
		case s == "" && i > 0 && i < len(segs)-1:
			return r, false
		}
	}
	if !changed {
		return r, true
	}
	r = r.WithContext(r.Context())
	u := *r.URL
	u.RawPath = strings.Join(segs, "/")
	r.URL = &u
	return r, true
}

// clientAddr is the caller's IP address, for limits and logs. Forwarded
// headers are not trusted: a proxy in front should be configured to pass
// the address in a way this service is told about.
func clientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
