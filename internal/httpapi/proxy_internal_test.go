package httpapi

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

// TestAuthClientBehindProxies: a login is counted against the address a
// trusted proxy forwards, never against one the client wrote itself, and
// without trusted proxies X-Forwarded-For is ignored.
func TestAuthClientBehindProxies(t *testing.T) {
	trusted, err := ParseProxies("127.0.0.1, 10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, remote string
		xff          []string
		trusted      []netip.Prefix
		want         string
	}{
		{"no proxies trusted", "127.0.0.1:5000", []string{"203.0.113.7"}, nil, "127.0.0.1"},
		{"untrusted caller", "198.51.100.1:5000", []string{"203.0.113.7"}, trusted, "198.51.100.1"},
		{"trusted proxy", "127.0.0.1:5000", []string{"203.0.113.7"}, trusted, "203.0.113.7"},
		{"client's own entry not believed", "127.0.0.1:5000", []string{"192.0.2.1, 203.0.113.7"}, trusted, "203.0.113.7"},
		{"two trusted hops", "127.0.0.1:5000", []string{"203.0.113.7", "10.1.2.3"}, trusted, "203.0.113.7"},
		{"nothing forwarded", "127.0.0.1:5000", nil, trusted, "127.0.0.1"},
		{"garbled entry", "127.0.0.1:5000", []string{"203.0.113.7, not-an-ip"}, trusted, "127.0.0.1"},
		{"only trusted hops", "127.0.0.1:5000", []string{"10.0.0.9"}, trusted, "10.0.0.9"},
		{"IPv4 in IPv6", "[::ffff:127.0.0.1]:5000", []string{"::ffff:203.0.113.7"}, trusted, "203.0.113.7"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &AuthServer{trusted: c.trusted}
			r := httptest.NewRequest("POST", "/login", nil)
			r.RemoteAddr = c.remote
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := s.client(r); got != c.want {
				t.Errorf("client = %q, want %q", got, c.want)
			}
		})
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.1/8/1"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted", bad)
		}
	}
}
