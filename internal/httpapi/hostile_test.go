package httpapi_test

// Hostile requests through HTTP: bodies that trickle, JSON built to hurt
// the parser, headers that lie or repeat. Each must get the contract's error
// body and leave the server serving. (Hostile images are in
// hostile_decode_test.go.)

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
)

// rawRequest sends head (the request line and headers, without the blank
// line ending them) and then body in pieces, pause after each, on a
// connection of its own, and reads the answer.
func (e *env) rawRequest(head string, pieces []string, pause time.Duration) (*http.Response, []byte) {
	e.t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, head+"\r\n\r\n"); err != nil {
		e.t.Fatal(err)
	}
	// The pieces are written while the answer is read: a server that
	// answers early stops reading, and a write to it may then fail.
	go func() {
		for _, p := range pieces {
			if _, err := io.WriteString(conn, p); err != nil {
				return
			}
			time.Sleep(pause)
		}
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		e.t.Fatalf("%s: no answer: %v", strings.SplitN(head, "\r\n", 2)[0], err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// wantRawError checks a raw answer as response.wantError does.
func (e *env) wantRawError(what string, res *http.Response, body []byte, status int, code string) {
	e.t.Helper()
	r := &response{t: e.t, req: what, status: res.StatusCode, header: res.Header, body: body}
	r.wantError(status, code)
}

// bytesPieces splits b into n pieces, the last one holding the rest.
func bytesPieces(b []byte, n int) []string {
	var out []string
	size := len(b) / n
	for i := 0; i < n-1; i++ {
		out = append(out, string(b[i*size:(i+1)*size]))
	}
	return append(out, string(b[(n-1)*size:]))
}

// TestBodyTimeouts: a body that stops, or trickles past the total time,
// is answered 408 REQUEST_TIMEOUT on every route that reads a body (issue
// 12 defect 8: it used to hold its connection for as long as the client
// liked), while a steady body, and a long run after the body is in, are
// not cut short.
func TestBodyTimeouts(t *testing.T) {
	// Wide enough that a loaded machine does not trip them on a steady body.
	limits := httpapi.BodyLimits{Idle: time.Second, Total: 2500 * time.Millisecond}
	e := newEnvBody(t, auth.DefaultConfig(), library.DefaultConfig(), limits,
		withRunner(runnerConfig(), func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
			// Longer than both body limits: the run starts after the body
			// is in, and must not be cancelled by its deadlines.
			select {
			case <-time.After(3 * time.Second):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &river.Output{Image: photo, MediaType: "image/png"}, nil
		}))
	e.addUser("acme", "alice")
	token := e.login("alice").AccessToken
	photo := pngBytes(t, 64, 48)
	login := `{"username":"alice","password":"` + testPassword + `","system":"showroom"}`

	for _, tc := range []struct {
		name   string
		head   string
		pieces []string
		pause  time.Duration
	}{
		{"login body stops",
			fmt.Sprintf("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d", len(login)),
			[]string{login[:10]}, time.Hour},
		{"login body trickles past the total",
			fmt.Sprintf("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d", len(login)),
			strings.Split(login, ""), 200 * time.Millisecond},
		{"chunked body stops",
			"POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked",
			[]string{"5\r\n{\"use\r\n"}, time.Hour},
		{"upload stops",
			fmt.Sprintf("POST /v1/content/upload/bg/background HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: image/png\r\nContent-Length: %d", token, len(photo)),
			[]string{string(photo[:100])}, time.Hour},
		{"configuration trickles",
			fmt.Sprintf("POST /v1/configuration/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: 400", token),
			strings.Split(strings.Repeat(" ", 400), ""), 250 * time.Millisecond},
		{"photo stops",
			fmt.Sprintf("POST /v1/process/single/free_cutout HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: image/png\r\nContent-Length: %d", token, len(photo)),
			[]string{string(photo[:20])}, time.Hour},
		{"photo stops after its header",
			fmt.Sprintf("POST /v1/process/single/free_cutout?async=true HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: image/png\r\nContent-Length: %d", token, len(photo)),
			[]string{string(photo[:len(photo)-10])}, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, body := e.rawRequest(tc.head, tc.pieces, tc.pause)
			e.wantRawError(tc.name, res, body, 408, showroom.ERequestTimeout)
			if d := time.Since(start); d > limits.Total+time.Second {
				t.Errorf("answered after %v; the total limit is %v", d, limits.Total)
			}
		})
	}

	// A body that keeps coming, a piece every 100 ms, is read whole.
	res, body := e.rawRequest(fmt.Sprintf("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d", len(login)),
		bytesPieces([]byte(login), 8), 100*time.Millisecond)
	if res.StatusCode != 200 {
		t.Errorf("steady login body: %d %s", res.StatusCode, body)
	}
	// A run that lasts longer than both limits, after the body is in, is
	// not cut short by them.
	auth := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "image/png"}
	e.do("POST", "/v1/process/single/free_cutout", bytes.NewReader(photo), auth).wantStatus(200)
}

// TestHostileJSON: JSON built to hurt a parser gets 400 or 413 with the
// contract's body, quickly, on every route that takes JSON.
func TestHostileJSON(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	auth := map[string]string{"Authorization": "Bearer " + e.login("alice").AccessToken}
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) // 200 KB, under the configuration limit
	deepObject := strings.Repeat(`{"a":`, 40_000) + "1" + strings.Repeat("}", 40_000)
	huge := `{"username":"` + strings.Repeat("a", 1<<20) + `"}`
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"deeply nested array, login", "POST", "/auth/login", deep[:60_000] + deep[len(deep)-60_000:], 413, showroom.EPayloadTooLarge},
		{"deeply nested array, configuration", "POST", "/v1/configuration/deep", deep, 400, showroom.EInvalidBody},
		{"deeply nested object, configuration", "POST", "/v1/configuration/deep", deepObject, 400, showroom.EInvalidBody},
		{"huge string, login", "POST", "/auth/login", huge, 413, showroom.EPayloadTooLarge},
		{"huge configuration", "POST", "/v1/configuration/huge", `[` + strings.Repeat(`{"name":"DetectCarMaskProcessor"},`, 10_000) + `]`, 413, showroom.EPayloadTooLarge},
		{"invalid UTF-8 in the password", "POST", "/auth/login", "{\"username\":\"alice\",\"password\":\"\xff\xfe\",\"system\":\"showroom\"}", 403, showroom.EInvalidCredentials},
		{"invalid UTF-8 in a processor name", "POST", "/v1/configuration/bad", "[{\"name\":\"Detect\xffCar\"}]", 422, showroom.EInvalidConfig},
		{"a number past float64", "POST", "/v1/configuration/bad", `[{"name":"SemiTransparentWindowsProcessor","windowTransparency":1e400}]`, 422, showroom.EInvalidConfig},
		{"NUL in a field", "POST", "/auth/login", "{\"username\":\"ali\\u0000ce\",\"password\":\"x\",\"system\":\"showroom\"}", 403, showroom.EInvalidCredentials},
		{"two values", "POST", "/auth/refresh", `{"refresh_token":"a"}{"refresh_token":"b"}`, 400, showroom.EInvalidBody},
		{"duplicate keys", "POST", "/v1/configuration/dup", `[{"name":"DetectCarMaskProcessor","name":"Nope"}]`, 422, showroom.EInvalidConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"Content-Type": "application/json"}
			if strings.HasPrefix(tc.path, "/v1/") {
				h["Authorization"] = auth["Authorization"]
			}
			start := time.Now()
			e.do(tc.method, tc.path, strings.NewReader(tc.body), h).wantError(tc.status, tc.code)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	e.do("GET", "/v1/me", nil, auth).wantStatus(200)
}

// TestHostileHeaders: repeated, oversized and lying headers.
func TestHostileHeaders(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	e.addUser("other", "olga")
	alice := e.login("alice").AccessToken
	olga := e.login("olga").AccessToken

	// Two Authorization headers: which one counts is ambiguous, so neither
	// does, whatever they hold.
	for _, pair := range [][2]string{{alice, olga}, {alice, alice}, {"garbage", alice}} {
		res, body := e.rawRequest(fmt.Sprintf("GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nAuthorization: Bearer %s\r\nConnection: close", pair[0], pair[1]), nil, 0)
		e.wantRawError("two Authorization headers", res, body, 401, showroom.EInvalidToken)
	}
	for _, tc := range []struct {
		name, header string
		status       int
		code         string
	}{
		{"another scheme", "Basic " + alice, 401, showroom.EUnauthorized},
		{"two tokens", "Bearer " + alice + " " + olga, 401, showroom.EInvalidToken},
		{"a huge token", "Bearer " + strings.Repeat("a", 32<<10), 401, showroom.EInvalidToken},
		{"invalid UTF-8", "Bearer \xff\xfe.\xff.\xff", 401, showroom.EInvalidToken},
		{"lower-case scheme", "bearer " + alice, 200, ""},
	} {
		res := e.do("GET", "/v1/me", nil, map[string]string{"Authorization": tc.header})
		if tc.status == 200 {
			res.wantStatus(200)
			continue
		}
		res.wantError(tc.status, tc.code)
	}
	// A Content-Length that claims more than the limit is refused before
	// anything is read.
	res, body := e.rawRequest("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 99999999999", []string{"{"}, 0)
	e.wantRawError("huge Content-Length", res, body, 413, showroom.EPayloadTooLarge)
	// Headers over the server's limit are refused by net/http itself (431),
	// which the contract leaves to the transport: the server stays up.
	e.do("GET", "/v1/me", nil, map[string]string{"Authorization": "Bearer " + alice}).wantStatus(200)
}
