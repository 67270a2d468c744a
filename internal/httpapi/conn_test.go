package httpapi_test

// What a client can hold with its connections: bodies announced and never
// sent, bodies trickled, and many connections from one address (issue 25
// item 4).

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// exchange sends head (request line and headers, without the blank line)
// and body on conn and reads one answer.
func exchange(t *testing.T, conn net.Conn, br *bufio.Reader, head, body string) (*http.Response, []byte) {
	t.Helper()
	if _, err := io.WriteString(conn, head+"\r\n\r\n"+body); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s: no answer: %v", strings.SplitN(head, "\r\n", 2)[0], err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}

// closedWithin reports whether the server closes conn within d.
func closedWithin(conn net.Conn, br *bufio.Reader, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := br.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// TestUnreadBodyDoesNotHoldConnection: a request that announces a body and
// never sends it, to a route that does not read it, is answered at once and
// its connection closed within Drain, not held for the body's whole time
// (it used to be held for --body-timeout, 5 minutes, on a 404, a 401 or
// /healthz alike). A body that does arrive is drained and its connection
// kept.
func TestUnreadBodyDoesNotHoldConnection(t *testing.T) {
	limits := httpapi.BodyLimits{Idle: time.Minute, Total: time.Minute, Drain: 500 * time.Millisecond}
	e := newEnvBody(t, auth.DefaultConfig(), library.DefaultConfig(), limits)
	for _, tc := range []struct {
		name, head string
		status     int
		code       string
	}{
		{"404", "POST /v1/nothing/here HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000", 404, showroom.ENotFound},
		{"401", "POST /v1/configuration/mine HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000", 401, showroom.EUnauthorized},
		{"healthz", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000", 200, ""},
		{"chunked 404", "POST /v1/nothing/here HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked", 404, showroom.ENotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			br := bufio.NewReader(conn)
			start := time.Now()
			conn.SetDeadline(start.Add(10 * time.Second))
			res, body := exchange(t, conn, br, tc.head, "")
			if tc.code != "" {
				e.wantRawError(tc.name, res, body, tc.status, tc.code)
			} else if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, body)
			}
			if !closedWithin(conn, br, 3*time.Second) {
				t.Fatalf("connection still open %v after the request; the body's limits are %v", time.Since(start).Round(time.Millisecond), limits.Total)
			}
		})
	}

	// The body arrives right after the headers: it is drained and the
	// connection serves the next request.
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	res, body := exchange(t, conn, br, "POST /v1/nothing/here HTTP/1.1\r\nHost: x\r\nContent-Length: 5", "hello")
	e.wantRawError("404 with its body", res, body, 404, showroom.ENotFound)
	res, body = exchange(t, conn, br, "GET /healthz HTTP/1.1\r\nHost: x", "")
	if res.StatusCode != 200 {
		t.Fatalf("next request on the connection: %d %s", res.StatusCode, body)
	}
}

// TestBodyMinimumRate: a body that keeps coming, but slower than MinRate
// once MinRateAfter has passed, is cut off with 408 (a byte every 5 s used
// to hold its connection for the whole --body-timeout); one at the rate is
// read whole.
func TestBodyMinimumRate(t *testing.T) {
	limits := httpapi.BodyLimits{Idle: time.Minute, Total: time.Minute, MinRate: 100, MinRateAfter: time.Second}
	e := newEnvBody(t, auth.DefaultConfig(), library.DefaultConfig(), limits)
	e.addUser("acme", "alice")
	token := e.login("alice").AccessToken
	login := `{"username":"alice","password":"` + testPassword + `","system":"showroom"}`
	config := minimal + strings.Repeat(" ", 400)

	for _, tc := range []struct {
		name   string
		head   string
		pieces []string
		pause  time.Duration
	}{
		{"login trickles",
			fmt.Sprintf("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d", len(login)),
			strings.Split(login, ""), 100 * time.Millisecond},
		{"configuration trickles",
			fmt.Sprintf("POST /v1/configuration/slow HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d", token, len(config)),
			strings.Split(config, ""), 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, body := e.rawRequest(tc.head, tc.pieces, tc.pause)
			e.wantRawError(tc.name, res, body, 408, showroom.ERequestTimeout)
			if d := time.Since(start); d > 4*time.Second {
				t.Errorf("answered after %v; at 10 bytes a second the body falls behind 100 after about 1.1 s", d)
			}
		})
	}
	// A handler that reads late, after MinRateAfter, finds a body sent at
	// once waiting for it: the time it did not wait is not the client's.
	late := httptest.NewServer(httpapi.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		if b, err := io.ReadAll(r.Body); err != nil || len(b) != 100_000 {
			http.Error(w, fmt.Sprintf("read %d bytes: %v", len(b), err), 500)
		}
	}), slog.New(slog.DiscardHandler), nil, httpapi.BodyLimits{MinRate: 1 << 20, MinRateAfter: time.Second}))
	defer late.Close()
	// More than the server's read buffer, so that reading it waits on
	// the connection.
	if res, err := http.Post(late.URL, "text/plain", strings.NewReader(strings.Repeat("x", 100_000))); err != nil {
		t.Error(err)
	} else if b, _ := io.ReadAll(res.Body); res.StatusCode != 200 {
		t.Errorf("a body read late: %s %s", res.Status, b)
	}
	// At 2000 bytes a second (20 every 10 ms), well above the minimum.
	res, body := e.rawRequest(fmt.Sprintf("POST /v1/configuration/steady HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d", token, len(config)),
		bytesPieces([]byte(config), len(config)/20), 10*time.Millisecond)
	if res.StatusCode != 201 {
		t.Errorf("steady configuration body: %d %s", res.StatusCode, body)
	}
}

// TestConnectionsPerClient: an address holding its most connections has the
// next answered 503 SERVICE_OVERLOADED and closed, without its request
// being read; once one of its connections closes it may open another, and
// an exempt address (a proxy in front) has no cap.
func TestConnectionsPerClient(t *testing.T) {
	logs := &logBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, nil))
	h := httpapi.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), log, nil, httpapi.BodyLimits{})
	serve := func(t *testing.T, exempt ...netip.Prefix) string {
		srv := httptest.NewUnstartedServer(h)
		srv.Listener = httpapi.LimitConnsPerClient(srv.Listener, 2, exempt, log)
		srv.Start()
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().String()
	}
	// open opens a connection and has one request answered on it.
	open := func(t *testing.T, addr string) (net.Conn, *http.Response, []byte) {
		t.Helper()
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		br := bufio.NewReader(conn)
		res, body := exchange(t, conn, br, "GET /healthz HTTP/1.1\r\nHost: x", "")
		return conn, res, body
	}

	t.Run("capped", func(t *testing.T) {
		addr := serve(t)
		first, res, _ := open(t, addr)
		if res.StatusCode != 200 {
			t.Fatalf("first connection: %d", res.StatusCode)
		}
		if _, res, _ := open(t, addr); res.StatusCode != 200 {
			t.Fatalf("second connection: %d", res.StatusCode)
		}
		// The third: its request is not even sent whole, and is answered.
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, "GET /heal")
		br := bufio.NewReader(conn)
		res, err = http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("third connection: no answer: %v", err)
		}
		body, _ := io.ReadAll(res.Body)
		r := &response{t: t, req: "third connection", status: res.StatusCode, header: res.Header, body: body}
		r.wantError(503, showroom.EServiceOverloaded)
		if res.Header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
		if !closedWithin(conn, br, 3*time.Second) {
			t.Error("the refused connection stays open")
		}
		if !strings.Contains(logs.String(), "connections refused") {
			t.Errorf("refusal not logged: %s", logs)
		}
		// One of the two closes: a new one is served (once the server has
		// seen the close).
		first.Close()
		deadline := time.Now().Add(5 * time.Second)
		for {
			_, res, _ := open(t, addr)
			if res.StatusCode == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after a connection closed, a new one still gets %d", res.StatusCode)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("exempt", func(t *testing.T) {
		addr := serve(t, netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"))
		for i := range 4 {
			if _, res, _ := open(t, addr); res.StatusCode != 200 {
				t.Fatalf("connection %d from an exempt address: %d", i+1, res.StatusCode)
			}
		}
	})
}
