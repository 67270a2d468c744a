package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/library"
)

// FuzzUpload sends the upload endpoint any name, content type and bytes.
// Every answer is one the endpoint documents, an error is the contract's
// body with the status it names, and what is accepted reads back byte for
// byte. The server never answers 500 and never stops.
func FuzzUpload(f *testing.F) {
	png := pngBytes(f, 16, 12)
	jpg := jpegBytes(f, 16, 12)
	for _, b := range [][]byte{png, jpg, png[:len(png)/2], jpg[:40], pngHeaderOnly(100_000, 100_000),
		pngHeaderOnly(0, 5), []byte("GIF89a"), []byte("RIFF\x00\x00\x00\x00WEBPVP8 "), nil,
		// Compressed text a decoder must not inflate; a JPEG's frame header
		// after a long comment, or missing.
		codectest.TextBombPNG(16, 12, 3, 1<<16, "zTXt"), codectest.TextBombPNG(16, 12, 3, 1<<16, "iTXt"),
		codectest.Commented(jpg, 70_000), codectest.WithoutFrame(jpg)} {
		f.Add("bg", "background", b)
	}
	f.Add("default_x", "background", png)
	f.Add("a b", "poster", png)
	f.Add("thumb", "thumbnail", png)
	f.Add("x", "video", png)
	e := newEnvWith(f, library.Config{MaxUploadBytes: 1 << 20, MaxPixels: 4_000_000, MaxDecodes: 2})
	e.addUser("acme", "alice")
	token := "Bearer " + e.login("alice").AccessToken
	documented := map[int]bool{200: true, 201: true, 400: true, 403: true, 404: true, 413: true, 415: true, 422: true}
	f.Fuzz(func(t *testing.T, name, ctype string, body []byte) {
		path := "/v1/content/upload/" + url.PathEscape(name) + "/" + url.PathEscape(ctype)
		status, answer := send(t, "POST", e.url+path, token, body)
		if !documented[status] {
			t.Fatalf("POST %s with %d bytes: %d, not a documented answer: %s", path, len(body), status, answer)
		}
		if status >= 400 {
			var eb struct {
				Status    int    `json:"status"`
				ErrorCode string `json:"errorCode"`
				Message   string `json:"message"`
			}
			if json.Unmarshal(answer, &eb) != nil || eb.Status != status || eb.ErrorCode == "" || eb.Message == "" {
				t.Fatalf("POST %s: %d with a body that is not the contract's error: %s", path, status, answer)
			}
			return
		}
		content := e.url + "/v1/content/" + url.PathEscape(name)
		if status, got := send(t, "GET", content, token, nil); status != 200 || !bytes.Equal(got, body) {
			t.Fatalf("accepted %d bytes as %q, read back %d: %d bytes", len(body), name, status, len(got))
		}
		if status, answer := send(t, "DELETE", content, token, nil); status != 204 {
			t.Fatalf("DELETE %s: %d %s", content, status, answer)
		}
	})
}

// noRedirects is a client that shows a redirect rather than following it:
// the API documents none, so one is an answer to catch.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// send makes one request and returns the status and the body.
func send(t *testing.T, method, url, token string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Skip("not a request net/http can send:", err)
	}
	req.Header.Set("Authorization", token)
	res, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}
