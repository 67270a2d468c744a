package console

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
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
	for _, path := range []string{"/console/", "/console/index.html", "/console/nothing.js"} {
		if res, _ := get(t, h, path); res.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
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
	front := httptest.NewServer(http.StripPrefix("/auth", AuthProxy(u)))
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
