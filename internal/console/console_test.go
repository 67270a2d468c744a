package console

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/catalog"
)

func get(t *testing.T, h http.Handler, path string) (*http.Response, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	res := rec.Result()
	body, _ := io.ReadAll(res.Body)
	return res, string(body)
}

// TestHandler: the page names the system it logs in to, every answer
// carries the same-origin policy, the files have their types, and neither
// the template nor a folder listing is served.
func TestHandler(t *testing.T) {
	h, err := New(Config{System: "dealers"})
	if err != nil {
		t.Fatal(err)
	}
	res, body := get(t, h, "/")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!strings.Contains(body, `<meta name="showroom-system" content="dealers">`) || !strings.Contains(body, `src="/console/app.js"`) {
		t.Errorf("GET /: %d %s\n%s", res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "style=") {
		t.Error("the page has inline script or style, which its policy forbids")
	}
	for _, c := range []struct{ path, ctype string }{
		{"/console/app.js", "text/javascript; charset=utf-8"},
		{"/console/api.js", "text/javascript; charset=utf-8"},
		{"/console/style.css", "text/css; charset=utf-8"},
		{"/console/icon.svg", "image/svg+xml"},
		{"/console/strings.json", "application/json"},
	} {
		res, body := get(t, h, c.path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != c.ctype || body == "" {
			t.Errorf("GET %s: %d %q, %d bytes", c.path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
	}
	for _, path := range []string{"/", "/console/app.js", "/console/nothing.js"} {
		res, _ := get(t, h, path)
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "connect-src 'self'") ||
			!strings.Contains(csp, "script-src 'self';") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: Content-Security-Policy %q", path, csp)
		}
	}
	// Not files: the contract's 404 body, as any other unknown path gets
	// (a folder's listing or redirect, the file server's plain text, and
	// the unfilled template are not served).
	for _, path := range []string{"/console/", "/console/index.html", "/console/nothing.js", "/console/static/", "/console/static",
		"/console/app.js/", "/console/%2e%2e/console/app.js", "/console/a/../app.js"} {
		res, body := get(t, h, path)
		var eb struct {
			Status    int    `json:"status"`
			ErrorCode string `json:"errorCode"`
			Message   string `json:"message"`
		}
		if res.StatusCode != 404 || res.Header.Get("Content-Type") != "application/json" ||
			json.Unmarshal([]byte(body), &eb) != nil || eb.Status != 404 || eb.ErrorCode != "NOT_FOUND" || eb.Message == "" {
			t.Errorf("GET %s: %d %q %s, want 404 with the contract's NOT_FOUND body", path, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}

// TestAuthProxy: a request under the proxy reaches the auth service with
// its path, method and body.
func TestAuthProxy(t *testing.T) {
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"method":"`+r.Method+`","path":"`+r.URL.Path+`","body":`+string(b)+`}`)
	}))
	defer auth.Close()
	u, _ := url.Parse(auth.URL)
	front := httptest.NewServer(http.StripPrefix("/auth", AuthProxy(u, slog.New(slog.DiscardHandler))))
	defer front.Close()
	res, err := http.Post(front.URL+"/auth/login", "application/json", strings.NewReader(`{"username":"a"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || string(body) != `{"method":"POST","path":"/login","body":{"username":"a"}}` {
		t.Errorf("through the proxy: %d %s", res.StatusCode, body)
	}
}

// TestAuthProxyRefuses: the proxy answers the contract's errors itself, and
// says nothing of the auth service's address, when that service is down or
// silent, and when a path would step out of the auth service's path (a dot
// segment or a slash the mux does not clean, written %2e or %2F).
func TestAuthProxyRefuses(t *testing.T) {
	var (
		mu      sync.Mutex
		reached []string
	)
	release := make(chan struct{})
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/auth-svc/slow" {
			<-release
			return
		}
		mu.Lock()
		reached = append(reached, r.URL.EscapedPath())
		mu.Unlock()
	}))
	defer auth.Close()
	defer close(release)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL, _ := url.Parse(down.URL)
	down.Close()
	up, _ := url.Parse(auth.URL + "/auth-svc")
	var logged bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logged, nil))
	for _, c := range []struct {
		name   string
		to     *url.URL
		path   string
		status int
		code   string
	}{
		{"down", downURL, "/auth/login", 503, "SERVICE_UNAVAILABLE"},
		{"silent", up, "/auth/slow", 503, "SERVICE_UNAVAILABLE"},
		{"dot segment", up, "/auth/%2e%2e/admin", 404, "NOT_FOUND"},
		{"encoded slash", up, "/auth/..%2Fadmin", 404, "NOT_FOUND"},
		{"encoded dots and slash", up, "/auth/x%2F%2e%2e%2F%2e%2e%2Fadmin", 404, "NOT_FOUND"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.Handle("/auth/", http.StripPrefix("/auth", newAuthProxy(c.to, log, 200*time.Millisecond)))
			front := httptest.NewServer(mux)
			defer front.Close()
			req, _ := http.NewRequest("POST", front.URL, strings.NewReader(`{}`))
			req.URL.Opaque = c.path // as written, not cleaned by the client
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			raw, _ := io.ReadAll(res.Body)
			var body struct {
				Status    int
				ErrorCode string
			}
			if res.StatusCode != c.status || json.Unmarshal(raw, &body) != nil || body.ErrorCode != c.code || body.Status != c.status {
				t.Errorf("POST %s: %d %s, want %d %s", c.path, res.StatusCode, raw, c.status, c.code)
			}
			for _, u := range []*url.URL{downURL, up} {
				if strings.Contains(string(raw), u.Host) {
					t.Errorf("POST %s: the answer names the auth service's address: %s", c.path, raw)
				}
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) != 0 {
		t.Errorf("the auth service was asked for %q", reached)
	}
	if !strings.Contains(logged.String(), downURL.Host) {
		t.Errorf("the log does not say which address could not be reached:\n%s", logged.String())
	}
}

// strings is static/strings.json: the console's words by language.
type stringsFile map[string]struct {
	UI         map[string]any `json:"ui"`
	Processors map[string]struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  map[string]struct {
			Name string `json:"name"`
			Hint string `json:"hint"`
		} `json:"parameters"`
	} `json:"processors"`
	Options  map[string]string `json:"options"`
	Errors   map[string]string `json:"errors"`
	Warnings map[string]string `json:"warnings"`
	Problems map[string]string `json:"problems"`
}

// TestStrings: English and German have the same texts, every text a
// script asks for is there, and every processor, parameter and choice of
// the catalog has a name in both, so the editor never shows an API name
// alone nor English in a German page.
func TestStrings(t *testing.T) {
	raw, err := static.ReadFile("static/strings.json")
	if err != nil {
		t.Fatal(err)
	}
	var all stringsFile
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	en, de := all["en"], all["de"]
	if len(all) != 2 || en.UI == nil || de.UI == nil {
		t.Fatalf("languages %v, want en and de", slices.Sorted(maps.Keys(all)))
	}
	for k, v := range en.UI {
		d, ok := de.UI[k]
		if !ok {
			t.Errorf("ui %q: no German", k)
			continue
		}
		if placeholders(v) != placeholders(d) {
			t.Errorf("ui %q: placeholders %q in English, %q in German", k, placeholders(v), placeholders(d))
		}
	}
	for k := range de.UI {
		if _, ok := en.UI[k]; !ok {
			t.Errorf("ui %q: German only", k)
		}
	}
	// The keys the scripts ask for: t('key') literally; t(`a.${x}`) for
	// the families the test lists with what x can be.
	families := map[string][]string{
		"content.title.": {"BACKGROUND_SIMPLE", "THUMBNAIL", "POSTER"}, "content.upload.": {"BACKGROUND_SIMPLE", "THUMBNAIL", "POSTER"},
		"content.use.": {"BACKGROUND_SIMPLE", "THUMBNAIL", "POSTER"}, "nav.": {"configurations", "content", "try", "history", "usage"},
		"status.": {"queued", "running", "succeeded", "failed"}, "timing.": {"decode", "render", "encode"},
		"type.": {"EXTERIOR", "INTERIOR", "DETAIL"},
	}
	literal := regexp.MustCompile(`\bt\('([^']+)'`)
	dynamic := regexp.MustCompile("\\bt\\(`([^`$]+)\\$\\{")
	scripts, _ := fs.Glob(static, "static/*.js")
	for _, name := range scripts {
		src, _ := static.ReadFile(name)
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			if _, ok := en.UI[m[1]]; !ok {
				t.Errorf("%s asks for %q, which strings.json lacks", name, m[1])
			}
		}
		for _, m := range dynamic.FindAllStringSubmatch(string(src), -1) {
			suffixes, ok := families[m[1]]
			if !ok {
				t.Errorf("%s asks for %q${...}, which this test does not know", name, m[1])
			}
			for _, s := range suffixes {
				if _, ok := en.UI[m[1]+s]; !ok {
					t.Errorf("strings.json lacks %q", m[1]+s)
				}
			}
		}
	}
	for _, p := range catalog.Catalog() {
		for _, lang := range []string{"en", "de"} {
			w, ok := all[lang].Processors[p.Name]
			if !ok || w.Name == "" || w.Description == "" {
				t.Errorf("%s: processor %s has no name or description", lang, p.Name)
				continue
			}
			for _, param := range p.Params {
				if w.Parameters[param.Name].Name == "" {
					t.Errorf("%s: parameter %s of %s has no name", lang, param.Name, p.Name)
				}
				for _, o := range param.Enum {
					if all[lang].Options[o] == "" {
						t.Errorf("%s: choice %q of %s.%s has no name", lang, o, p.Name, param.Name)
					}
				}
			}
		}
	}
}

// placeholders lists a text's {name} placeholders, in every form of it.
func placeholders(v any) string {
	var texts []string
	switch v := v.(type) {
	case string:
		texts = []string{v}
	case map[string]any:
		for _, f := range v {
			s, _ := f.(string)
			texts = append(texts, s)
		}
	}
	seen := map[string]bool{}
	for _, s := range texts {
		for _, m := range regexp.MustCompile(`\{\w+\}`).FindAllString(s, -1) {
			seen[m] = true
		}
	}
	return strings.Join(slices.Sorted(maps.Keys(seen)), ",")
}
