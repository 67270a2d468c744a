package showroom_test

import (
	"net/netip"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

// TestPublicAddress: public addresses pass, every kind webhooks are kept
// from is refused, IPv4 written as IPv6 included.
func TestPublicAddress(t *testing.T) {
	for _, s := range []string{"8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "::ffff:1.1.1.1",
		"64:ff9b::8.8.8.8", "2002:808:808::1"} {
		if err := showroom.PublicAddress(netip.MustParseAddr(s)); err != nil {
			t.Errorf("%s refused: %v", s, err)
		}
	}
	for _, s := range []string{"127.0.0.1", "127.1.2.3", "::1", "10.1.1.1", "172.16.0.1", "192.168.0.1", "fd00::1",
		"169.254.169.254", "fe80::1", "224.0.0.251", "ff02::1", "0.0.0.0", "::", "0.1.2.3", "100.64.0.1",
		"198.18.0.1", "255.255.255.255", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "2001:db8::1",
		// NAT64 and 6to4 addresses carrying a non-public IPv4 address:
		// a translator on the path connects to that address.
		"64:ff9b::127.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b::169.254.169.254", "64:ff9b::100.64.0.1", "2002:a00:1::1",
		// IPv6 outside global unicast: IPv4-compatible, site-local,
		// IPv4-translated; and Teredo, IPv6 documentation (3fff::/20).
		"::127.0.0.1", "::10.0.0.1", "fec0::1", "::ffff:0:7f00:1", "5f00::1", "2001::1", "3fff::1"} {
		if err := showroom.PublicAddress(netip.MustParseAddr(s)); err == nil {
			t.Errorf("%s accepted", s)
		}
	}
}

// TestCheckCallbackURL: what is accepted, and that private literals pass
// when allowed.
func TestCheckCallbackURL(t *testing.T) {
	for _, u := range []string{"https://hooks.example.com/a?token=x&y=1", "http://hooks.example.com:8080/", "https://8.8.8.8/x", "http://localhost:9/"} {
		if err := showroom.CheckCallbackURL(u, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	if err := showroom.CheckCallbackURL("http://127.0.0.1:8080/hook", true); err != nil {
		t.Errorf("a loopback URL refused though allowed: %v", err)
	}
	if err := showroom.CheckCallbackURL("http://127.0.0.1:8080/hook", false); showroom.ErrorCode(err) != showroom.EInvalidCallbackURL {
		t.Errorf("a loopback URL: %v", err)
	}
}
