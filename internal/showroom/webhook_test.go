package showroom_test

import (
	"net/netip"
	"strings"
	"testing"
	"time"

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
	for _, u := range []string{"https://hooks.example.com/a?token=x&y=1", "http://hooks.example.com:8080/", "https://8.8.8.8/x", "http://localhostz:9/", "http://localhost.example.com/"} {
		if err := showroom.CheckCallbackURL(u, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	for _, u := range []string{"https://123.example.com/", "https://example.com./", "https://[2001:4860::8888]/", "https://0xcafe.example/"} {
		if err := showroom.CheckCallbackURL(u, false); err != nil {
			t.Errorf("%s refused: %v", u, err)
		}
	}
	// IPv4 written otherwise than as four decimal numbers: addresses to
	// the C resolver and to browsers, names to Go. Refused at the
	// request, allowed or not.
	for _, u := range []string{"http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://0x7F000001/",
		"http://10.0.0.1./", "http://169.254.169.254.:80/", "http://01.02.03.04/", "http://8.8.8.08/"} {
		for _, allow := range []bool{false, true} {
			if err := showroom.CheckCallbackURL(u, allow); showroom.ErrorCode(err) != showroom.EInvalidCallbackURL {
				t.Errorf("%s (allowPrivate %v): %v, want INVALID_CALLBACK_URL", u, allow, err)
			}
		}
	}
	if err := showroom.CheckCallbackURL("http://127.0.0.1:8080/hook", true); err != nil {
		t.Errorf("a loopback URL refused though allowed: %v", err)
	}
	// Refused: a loopback address, and localhost, which is one under any
	// resolver (it was accepted, and every delivery then failed); the
	// message names the setting that allows them.
	for _, u := range []string{"http://127.0.0.1:8080/hook", "http://localhost:9/", "http://LocalHost./", "https://api.localhost/hook"} {
		err := showroom.CheckCallbackURL(u, false)
		if showroom.ErrorCode(err) != showroom.EInvalidCallbackURL || !strings.Contains(err.Error(), "--webhook-allow-private") {
			t.Errorf("%s: %v, want INVALID_CALLBACK_URL naming --webhook-allow-private", u, err)
		}
		if err := showroom.CheckCallbackURL(u, true); err != nil {
			t.Errorf("%s refused though private addresses are allowed: %v", u, err)
		}
	}
}

// TestVerifyWebhook: the receivers' check accepts what SignWebhook signs,
// under either secret during a rotation, and refuses another secret, a
// changed body, a changed timestamp and one over five minutes away.
func TestVerifyWebhook(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"j1"}`)
	sig := showroom.SignWebhook(body, now, "whsec_new", "whsec_old")
	for _, secret := range []string{"whsec_new", "whsec_old"} {
		if err := showroom.VerifyWebhook(sig, body, secret, now.Add(4*time.Minute)); err != nil {
			t.Errorf("signed with %s: %v", secret, err)
		}
	}
	for name, c := range map[string]struct {
		header, secret string
		body           []byte
		now            time.Time
	}{
		"another secret":     {sig, "whsec_other", body, now},
		"a changed body":     {sig, "whsec_new", []byte(`{"id":"j2"}`), now},
		"a changed time":     {"t=1800000001" + sig[len("t=1800000000"):], "whsec_new", body, now},
		"six minutes later":  {sig, "whsec_new", body, now.Add(6 * time.Minute)},
		"six minutes before": {sig, "whsec_new", body, now.Add(-6 * time.Minute)},
		"no timestamp":       {sig[len("t=1800000000,"):], "whsec_new", body, now},
		"empty":              {"", "whsec_new", body, now},
	} {
		if err := showroom.VerifyWebhook(c.header, c.body, c.secret, c.now); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
