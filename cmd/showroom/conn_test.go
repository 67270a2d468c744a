package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// TestClientConnectionFlags: the program applies the connection limits on
// a real listener: a body announced and never sent to /healthz closes its
// connection within about a second (the drain), --max-client-conns caps one
// address, and --trusted-proxies are exempt.
func TestClientConnectionFlags(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir}
	// dial opens a connection and sends one request on it.
	dial := func(t *testing.T, base, req string) (net.Conn, *bufio.Reader, *http.Response) {
		t.Helper()
		conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(conn, req)
		br := bufio.NewReader(conn)
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("no answer: %v", err)
		}
		io.ReadAll(res.Body)
		return conn, br, res
	}
	const healthz = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

	base, _ := startServer(t, env, "auth", "--addr", "127.0.0.1:0", "--max-client-conns", "2", "--body-timeout", "1m")
	start := time.Now()
	conn, br, res := dial(t, base, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n")
	if res.StatusCode != 200 {
		t.Fatalf("healthz: %d", res.StatusCode)
	}
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a body never sent to /healthz: connection still open after %v (%v)", time.Since(start), err)
	}
	dial(t, base, healthz)
	dial(t, base, healthz)
	if _, _, res := dial(t, base, healthz); res.StatusCode != 503 {
		t.Fatalf("a third connection with --max-client-conns 2: %d, want 503", res.StatusCode)
	}

	// The auth service and the api (behind its load balancer) exempt
	// their trusted proxies.
	for _, role := range []string{"auth", "api"} {
		exempt, _ := startServer(t, env, role, "--addr", "127.0.0.1:0", "--max-client-conns", "1", "--trusted-proxies", "127.0.0.1")
		for range 3 {
			if _, _, res := dial(t, exempt, healthz); res.StatusCode != 200 {
				t.Fatalf("%s: a trusted proxy's connection: %d, want 200", role, res.StatusCode)
			}
		}
	}
}
