package showroom

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Webhook is how a company hears that its asynchronous jobs finished:
// Showroom POSTs the job record to the job's callback URL, signed with the
// company's secret. The secret is the company's, not the URL's, so that
// per-request callback URLs are signed too.
type Webhook struct {
	CompanyID int64
	// URL is the company's default callback URL for asynchronous jobs
	// that name none; "" for none.
	URL string
	// Secret signs deliveries. It is stored as issued: HMAC needs it.
	Secret          string
	SecretCreatedAt time.Time
	// PreviousSecret, after a rotation, signs deliveries beside Secret
	// until PreviousExpiresAt, so that a receiver can switch over
	// without losing one.
	PreviousSecret    string
	PreviousExpiresAt time.Time
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// WebhookSecretGrace is how long a rotated-out secret keeps signing
// deliveries beside the new one.
const WebhookSecretGrace = 24 * time.Hour

// Secrets returns the secrets that sign a delivery sent at t: the current
// one, and the previous one during its grace period.
func (w *Webhook) Secrets(t time.Time) []string {
	if w.PreviousSecret != "" && t.Before(w.PreviousExpiresAt) {
		return []string{w.Secret, w.PreviousSecret}
	}
	return []string{w.Secret}
}

// NewWebhookSecret returns a fresh random signing secret.
func NewWebhookSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "whsec_" + base64.RawURLEncoding.EncodeToString(b)
}

// SignatureHeader is the header a delivery's signature travels in.
const SignatureHeader = "Showroom-Signature"

// SignWebhook returns the signature header's value for body sent at t:
// "t=<unix seconds>,v1=<hex>" with one v1 per secret, each the
// HMAC-SHA256, keyed with the secret's bytes, of the timestamp, a dot and
// the body. The timestamp is signed so that a captured delivery cannot be
// replayed later than the receiver's tolerance.
func SignWebhook(body []byte, t time.Time, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		mac := hmac.New(sha256.New, []byte(s))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		b.WriteString(",v1=" + hex.EncodeToString(mac.Sum(nil)))
	}
	return b.String()
}

// VerifyWebhook is a receiver's check of a delivery: it returns nil when
// header (the SignatureHeader) signs body with secret, some v1 being the
// HMAC of the timestamp and body, compared in constant time, and the
// timestamp lies within five minutes of now, so that a captured delivery
// cannot be replayed later. Showroom itself never calls it: it is the
// check docs/api.md gives receivers, word for word (the docs test keeps
// them equal), and the one the tests check deliveries with.
func VerifyWebhook(header string, body []byte, secret string, now time.Time) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(part, "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || now.Sub(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return errors.New("missing or stale timestamp")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	for _, s := range sigs {
		if got, err := hex.DecodeString(s); err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return errors.New("no valid signature")
}

// DeliveryStatus is where a job's webhook delivery is.
type DeliveryStatus string

// A delivery is pending from the job's admission until it is delivered (a
// 2xx answer) or has failed for good (its attempts ran out).
const (
	DeliveryPending   DeliveryStatus = "pending"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
)

// WebhookDelivery is the state of a job's webhook delivery, as its last
// attempt left it.
type WebhookDelivery struct {
	Status   DeliveryStatus
	Attempts int
	// LastStatusCode is the HTTP status of the last answer; 0 when there
	// was none (refused address, timeout, connection error).
	LastStatusCode int
	LastError      string // "" after a 2xx answer
	LastAttemptAt  time.Time
}

// WebhookStore keeps companies' webhooks. A company has at most one.
type WebhookStore interface {
	// FindWebhook returns the company's webhook; EWebhookNotFound if it has
	// none.
	FindWebhook(ctx context.Context, companyID int64) (*Webhook, error)
	// PutWebhook sets the company's default URL to w.URL as of
	// w.UpdatedAt. A company without a webhook gets one with w.Secret; one
	// with a webhook keeps its secrets. It reports whether it created the
	// webhook and writes the stored record back into w.
	PutWebhook(ctx context.Context, w *Webhook) (created bool, err error)
	// RotateWebhookSecret makes secret the company's current secret as of
	// at; the one it replaces keeps signing until at+WebhookSecretGrace. A
	// company without a webhook gets one, without a URL (created).
	RotateWebhookSecret(ctx context.Context, companyID int64, secret string, at time.Time) (w *Webhook, created bool, err error)
	// DeleteWebhook removes the company's URL and secrets; EWebhookNotFound
	// if it has none. Deliveries not yet made then fail: nothing signs them.
	DeleteWebhook(ctx context.Context, companyID int64) error
	// RecordWebhookDelivery records an attempt to deliver job id's webhook.
	// It records only over a pending delivery and an attempt no later than
	// d's: an attempt that ends after another finished the delivery, or
	// after a later one was recorded (a delivery handed out again while
	// its first worker went on), leaves the record as it is, so that a
	// delivered job is not shown failed, nor made pending and sent again.
	// EJobNotFound if job id has no callback.
	RecordWebhookDelivery(ctx context.Context, id string, d WebhookDelivery) error
}

// MaxCallbackURL bounds a callback URL's length: more is no address a
// receiver needs, and it is stored on every job.
const MaxCallbackURL = 2048

// CheckCallbackURL refuses a callback URL that cannot or must not be
// delivered to: not absolute http(s), with user info (credentials belong
// in the receiver's checks of the signature, not in a URL stored on every
// job), a fragment, over MaxCallbackURL, or, unless allowPrivate, a
// literal address that Showroom does not send to (PublicAddress) or
// localhost. Another host name is checked when it is dialled, each time,
// so that a name which later resolves to a private address is refused
// then.
func CheckCallbackURL(raw string, allowPrivate bool) error {
	bad := func(why string) error {
		return Errorf(EInvalidCallbackURL, "the callback URL %s", why)
	}
	if len(raw) > MaxCallbackURL {
		return bad(fmt.Sprintf("is %d characters long; at most %d are accepted", len(raw), MaxCallbackURL))
	}
	u, err := url.Parse(raw)
	switch {
	case raw == "":
		return bad("is empty")
	case err != nil:
		return bad("cannot be parsed")
	case u.Scheme != "https" && u.Scheme != "http":
		return bad("must be an absolute http or https URL")
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return bad("has no host")
	case u.User != nil:
		return bad("must not carry a user name or password")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return bad("must not have a fragment (#...)")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return bad("has an invalid port")
		}
	}
	a, err := netip.ParseAddr(u.Hostname())
	if err != nil && endsInNumber(u.Hostname()) {
		// 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 are 127.0.0.1 to
		// inet_aton (the C resolver) and to browsers, while Go reads them
		// as names: an address written so would pass the literal check
		// here and be judged only when dialled, if the resolver in use
		// reads it at all.
		return bad("has a numeric host that is not an IP address as written: give IPv4 as four decimal numbers (1.2.3.4)")
	}
	if allowPrivate {
		return nil
	}
	const allow = " unless the service runs with --webhook-allow-private (SHOWROOM_WEBHOOK_ALLOW_PRIVATE)"
	if err == nil {
		if err := PublicAddress(a); err != nil {
			return Errorf(EInvalidCallbackURL, "the callback URL's host %v%s", err, allow)
		}
	}
	if isLocalhost(u.Hostname()) {
		// Such a name always resolves to loopback (RFC 6761): every
		// delivery would fail at the dial, so it fails here, at once.
		return Errorf(EInvalidCallbackURL, "the callback URL's host %s names this machine (a loopback address), to which webhooks are not sent%s", u.Hostname(), allow)
	}
	return nil
}

// isLocalhost reports whether host is localhost or a name under it.
func isLocalhost(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// endsInNumber reports whether host's last label (a trailing dot aside)
// is a number, decimal or 0x hexadecimal: such a host is an IPv4 address
// to the WHATWG URL standard, never a DNS name (no top-level domain is
// numeric).
func endsInNumber(host string) bool {
	if strings.Contains(host, ":") {
		return false // IPv6
	}
	labels := strings.Split(strings.TrimSuffix(host, "."), ".")
	last := labels[len(labels)-1]
	if h, ok := strings.CutPrefix(strings.ToLower(last), "0x"); ok {
		return strings.Trim(h, "0123456789abcdef") == ""
	}
	return last != "" && strings.Trim(last, "0123456789") == ""
}

// nonPublic are the address ranges, beyond what netip classifies and
// outside IPv6's global unicast 2000::/3 (all refused), that are not on
// the public internet: shared address space (carrier-grade NAT), IETF
// protocol assignments, benchmarking, reserved and broadcast; IPv6's IETF
// protocol assignments (Teredo, benchmarking, ORCHID) and documentation
// prefixes.
var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("2001::/23"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("3fff::/20"),
}

// globalUnicast6 is the only IPv6 space assigned for public unicast: the
// rest (IPv4-compatible ::/96, site-local fec0::/10, discard 100::/64,
// NAT64's local-use prefix, SRv6 SIDs and whatever is unassigned) is not
// sent to.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// nat64 and sixToFour are IPv6 prefixes that carry an IPv4 address, which
// a translator or relay on the path connects to: 64:ff9b::10.0.0.1 reaches
// 10.0.0.1 through a NAT64 gateway. Such an address is judged by the IPv4
// address it carries.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// PublicAddress returns nil for an address webhooks may be sent to, and
// otherwise an error that says what kind of address it is: loopback,
// link-local, private, multicast, unspecified or another range not on the
// public internet. An IPv4 address written as IPv6, or carried in a NAT64
// or 6to4 address, is judged as IPv4.
func PublicAddress(a netip.Addr) error {
	a = a.Unmap()
	if v4, ok := carriedIPv4(a); ok {
		if kind := addressKind(v4); kind != "" {
			return fmt.Errorf("%s carries %s, %s, to which webhooks are not sent", a, v4, kind)
		}
		return nil
	}
	if kind := addressKind(a); kind != "" {
		return fmt.Errorf("%s is %s, to which webhooks are not sent", a, kind)
	}
	return nil
}

// carriedIPv4 returns the IPv4 address a NAT64 or 6to4 address carries.
func carriedIPv4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case !a.Is6():
	case nat64.Contains(a):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	}
	return netip.Addr{}, false
}

// addressKind says what kind of non-public address a is; "" for a public
// one.
func addressKind(a netip.Addr) string {
	switch {
	case !a.IsValid():
		return "not an address"
	case a.IsLoopback():
		return "a loopback address"
	case a.IsMulticast():
		return "a multicast address"
	case a.IsLinkLocalUnicast():
		return "a link-local address"
	case a.IsPrivate():
		return "a private address"
	case a.IsUnspecified():
		return "the unspecified address"
	case a.Is6() && !globalUnicast6.Contains(a):
		return "not a public address"
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return "not a public address"
		}
	}
	return ""
}
