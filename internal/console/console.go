// Package console is Showroom's web console: the static pages a dealer's
// staff use in a browser to manage content and configurations, process
// photos one at a time or by the folder, and find and download results in
// the history, in English or German (static/strings.json). The files are
// embedded in the binary; the pages talk only to
// the service that serves them, through the same auth endpoints and /v1 API
// as any other client, so the console has no privileges of its own.
package console

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/showroom"
)

//go:embed static
var static embed.FS

// Prefix is the path the console's scripts, styles and pictures are served
// under; the page itself is served at "/".
const Prefix = "/console/"

// contentSecurityPolicy lets the pages load and reach nothing but their own
// origin. blob: images are the photos, results and thumbnails the scripts
// fetch with the access token and show from memory.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; " +
	"connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

// Config configures the console.
type Config struct {
	// System is the name the console logs in to: the API's --system, the
	// audience its tokens must carry.
	System string
}

// Handler serves the console: the page at "/" and its files under Prefix.
type Handler struct {
	index []byte
	fsys  fs.FS
	files http.Handler
}

// New returns the console's handler.
func New(cfg Config) (*Handler, error) {
	tmpl, err := template.ParseFS(static, "static/index.html")
	if err != nil {
		return nil, err
	}
	var index bytes.Buffer
	if err := tmpl.Execute(&index, cfg); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	return &Handler{index: index.Bytes(), fsys: sub, files: http.StripPrefix(Prefix, http.FileServerFS(sub))}, nil
}

// ServeHTTP implements http.Handler for "/" and the paths under Prefix.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("X-Frame-Options", "DENY")
	// The files change with the binary, which sets no modification time on
	// them: revalidate rather than keep a stale script.
	hd.Set("Cache-Control", "no-cache")
	if r.URL.Path == "/" {
		hd.Set("Content-Type", "text/html; charset=utf-8")
		w.Write(h.index)
		return
	}
	if !h.isFile(r.URL.Path) {
		// The contract's 404, as for any other path, rather than the file
		// server's plain text or its redirects (a folder to its slash,
		// index.html to its folder).
		hd.Del("Cache-Control")
		httpapi.WriteError(w, r, quiet, showroom.Errorf(showroom.ENotFound, "no such resource: %s", r.URL.Path))
		return
	}
	h.files.ServeHTTP(w, r)
}

// quiet is the logger of the console's 404s, which log nothing.
var quiet = slog.New(slog.DiscardHandler)

// isFile reports whether p names one of the console's files. The template,
// unfilled, and the folders are not.
func (h *Handler) isFile(p string) bool {
	name, ok := strings.CutPrefix(p, Prefix)
	if !ok || !fs.ValidPath(name) || name == "index.html" {
		return false
	}
	fi, err := fs.Stat(h.fsys, name)
	return err == nil && !fi.IsDir()
}

// authTimeout bounds the wait for the auth service's answer. A login waits
// up to a second for a password check slot and takes a fraction of one to
// check; an auth service silent for this long is down, not busy.
const authTimeout = 30 * time.Second

// AuthProxy forwards requests to the auth service at authURL, for
// 'showroom api', which runs apart from it: mounted under /auth (as
// httpapi.Combined does), the console reaches login, refresh and logout on
// its own origin as with 'showroom serve', and the auth service needs no
// CORS. The client's address goes on in X-Forwarded-For; an auth service
// started with --trusted-proxies naming the API's address counts failed
// logins against it, otherwise against the API's own address. An auth
// service that cannot be reached, or does not answer in time, gets the
// client the contract's 503 and the log the reason, which names the
// internal address.
func AuthProxy(authURL *url.URL, log *slog.Logger) http.Handler {
	return newAuthProxy(authURL, log, authTimeout)
}

func newAuthProxy(authURL *url.URL, log *slog.Logger, timeout time.Duration) http.Handler {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.ResponseHeaderTimeout = timeout
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(authURL)
			r.SetXForwarded()
		},
		Transport: transport,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			httpapi.WriteError(w, r, log, &showroom.Error{Code: showroom.EUnavailable,
				Message: "the auth service cannot be reached; try again in a moment", Cause: err})
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The path goes on as the client wrote it: a dot segment or a slash
		// written %2e or %2F, which this server's mux does not clean, would
		// step out of authURL's path at a server or gateway that decodes
		// them. The auth service's own paths need neither.
		if r.URL.RawPath != "" || path.Clean(r.URL.Path) != r.URL.Path {
			httpapi.WriteError(w, r, log, showroom.Errorf(showroom.ENotFound, "there is nothing at this path"))
			return
		}
		proxy.ServeHTTP(w, r)
	})
}
