// Package webhook delivers finished jobs to their callback URLs: the signed
// POST of the job's record, the HTTP client that dials public addresses
// only, the wait between attempts and what a failed attempt tells the
// company. The queue (internal/river) runs each delivery as a job of its
// own and calls Deliverer.Deliver for every attempt.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// Config configures the delivery of finished jobs to their callback URLs.
type Config struct {
	// Workers is how many deliveries run at once in this process, apart
	// from the processing workers.
	Workers int
	// MaxAttempts bounds the attempts of one delivery.
	MaxAttempts int
	// Timeout bounds one attempt: connecting, TLS and the answer.
	Timeout time.Duration
	// Backoff is the wait before the second attempt; each later one waits
	// twice the one before.
	Backoff time.Duration
	// AllowPrivate lets deliveries go to loopback, link-local, private and
	// other non-public addresses (showroom.PublicAddress): for tests and
	// for receivers on the operator's own network.
	AllowPrivate bool
}

// DefaultConfig tries a delivery 8 times over about an hour (30 s, 1, 2,
// 4, 8, 16 and 32 min apart), 10 s each.
func DefaultConfig() Config {
	return Config{Workers: 4, MaxAttempts: 8, Timeout: 10 * time.Second, Backoff: 30 * time.Second}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.Workers < 1:
		return errors.New("webhooks: workers must be at least 1")
	case c.MaxAttempts < 1:
		return errors.New("webhooks: max attempts must be at least 1")
	case c.Timeout <= 0 || c.Backoff <= 0:
		return errors.New("webhooks: the timeout and the backoff must be positive")
	}
	return nil
}

// RetryDelay is the wait after attempt n (1 for the first) failed.
func (c Config) RetryDelay(n int) time.Duration {
	return c.Backoff << min(max(n-1, 0), 20)
}

// Jobs finds the job a delivery is of.
type Jobs interface {
	// FindJob finds job id; companyID 0 finds it whatever its company.
	FindJob(ctx context.Context, companyID int64, id string) (*showroom.Job, error)
}

// Deps are what deliveries read and record.
type Deps struct {
	Jobs Jobs
	// Store holds the companies' signing secrets and records deliveries.
	Store showroom.WebhookStore
	// Render is the job record as the API shows it, the body delivered.
	Render func(*showroom.Job) ([]byte, error)
}

// Deliverer makes delivery attempts. Safe for concurrent use.
type Deliverer struct {
	cfg    Config
	deps   Deps
	log    *slog.Logger
	client *http.Client
}

// New returns a Deliverer. It dials only public addresses unless
// cfg.AllowPrivate, follows no redirect and uses no proxy: a proxy would be
// dialled in the receiver's place, and a redirect would take the request
// to an address nobody checked.
func New(cfg Config, deps Deps, log *slog.Logger) (*Deliverer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.Jobs == nil || deps.Store == nil || deps.Render == nil {
		return nil, errors.New("webhooks: the job store, the webhook store and the renderer are required")
	}
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowPrivate {
		dialer.Control = refuseNonPublic
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          16,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Deliverer{cfg: cfg, deps: deps, log: log, client: &http.Client{
		Transport:     transport,
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// Deliver makes attempt n (1 for the first) of the delivery of job id's
// record and records its outcome on the job. An error that Final reports
// ends the delivery (the job is gone, or the attempt was the last or can
// never succeed); any other error asks for a later attempt.
func (d *Deliverer) Deliver(ctx context.Context, id string, n int) error {
	j, err := d.deps.Jobs.FindJob(ctx, 0, id)
	if showroom.ErrorCode(err) == showroom.EJobNotFound {
		return finalError{err} // removed by retention
	} else if err != nil {
		return err
	}
	if j.Delivery == nil || j.Delivery.Status != showroom.DeliveryPending {
		return nil // delivered or given up by an earlier attempt
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	rec := showroom.WebhookDelivery{Status: showroom.DeliveryPending, Attempts: n, LastAttemptAt: now}
	final := n >= d.cfg.MaxAttempts
	hook, err := d.deps.Store.FindWebhook(ctx, j.CompanyID)
	switch {
	case showroom.ErrorCode(err) == showroom.EWebhookNotFound:
		err, final = errors.New("the company's webhook was deleted: no secret signs the delivery"), true
	case err != nil:
		return err
	default:
		var body []byte
		if body, err = d.deps.Render(j); err != nil {
			return fmt.Errorf("webhook body: %w", err)
		}
		rec.LastStatusCode, err = d.send(ctx, j, body, hook.Secrets(now), now)
	}
	switch {
	case err == nil:
		rec.Status = showroom.DeliveryDelivered
	case final:
		rec.Status, rec.LastError = showroom.DeliveryFailed, err.Error()
	default:
		rec.LastError = err.Error()
	}
	if rerr := d.deps.Store.RecordWebhookDelivery(context.WithoutCancel(ctx), j.ID, rec); rerr != nil {
		return errors.Join(err, rerr)
	}
	switch {
	case err == nil:
		return nil
	case final:
		d.log.WarnContext(ctx, "webhook not delivered; giving up", "job", j.ID, "attempts", n, "err", err, "cause", causeOf(err))
		return finalError{err}
	}
	d.log.InfoContext(ctx, "webhook not delivered; will retry", "job", j.ID, "attempt", n, "err", err, "cause", causeOf(err))
	return err
}

// finalError is an attempt's error after which no other is made.
type finalError struct{ error }

func (e finalError) Unwrap() error { return e.error }

// Final reports whether err, from Deliver, ends the delivery.
func Final(err error) bool {
	var f finalError
	return errors.As(err, &f)
}

// refuseNonPublic is the dialer's Control: it runs on the address about to
// be connected to, after the name was resolved, so that a name which
// resolves, or is rebound between two lookups, to a private address is
// refused too.
func refuseNonPublic(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return notPublicError{fmt.Errorf("webhook address %q: %w", address, err)}
	}
	if err := showroom.PublicAddress(ap.Addr()); err != nil {
		return notPublicError{err}
	}
	return nil
}

// notPublicError is refuseNonPublic's refusal, told apart from other dial
// errors by publicError.
type notPublicError struct{ error }

func (e notPublicError) Unwrap() error { return e.error }

// attemptError is a failed attempt as the company sees it, in its job's
// callback.lastError: what went wrong, without the address a name resolved
// to or the server's resolver's address, which Go's net errors print and
// which are the operator's business, not the company's. The cause, with
// them, goes to the log.
type attemptError struct {
	public string
	cause  error
}

func (e *attemptError) Error() string { return e.public }
func (e *attemptError) Unwrap() error { return e.cause }

// causeOf is what the log says of an attempt's failure beyond what the
// company is shown.
func causeOf(err error) string {
	var ae *attemptError
	if errors.As(err, &ae) && ae.cause != nil {
		return ae.cause.Error()
	}
	return ""
}

// publicError turns a failure to reach the receiver into an attemptError.
func publicError(err error, timeout time.Duration) error {
	timedOut := false
	// The URL is the company's and may carry a token in its query: neither
	// the company's message nor the log's cause names it.
	var ue *url.Error
	if errors.As(err, &ue) {
		timedOut, err = ue.Timeout(), ue.Err
	}
	var np notPublicError
	var dns *net.DNSError
	var op *net.OpError
	var errno syscall.Errno
	switch {
	case errors.As(err, &np):
		return &attemptError{"the callback URL's host is not a public address; webhooks are sent to public addresses only", err}
	case errors.As(err, &dns):
		return &attemptError{"the callback URL's host could not be resolved", err}
	case timedOut:
		return &attemptError{fmt.Sprintf("no answer within %v", timeout), err}
	case errors.As(err, &op) && op.Op == "dial" && errors.As(err, &errno):
		return &attemptError{"could not connect to the callback URL's host: " + errno.Error(), err}
	case errors.As(err, &op) && op.Op == "dial":
		return &attemptError{"could not connect to the callback URL's host", err}
	case errors.As(err, &op):
		// A read or write on a connection made: its message names both
		// ends' addresses.
		return &attemptError{"the connection to the callback URL's host failed: " + op.Err.Error(), err}
	}
	return err
}

// maxAnswer is how much of a receiver's answer is read (and dropped), so
// that the connection can be reused; an answer's body means nothing.
const maxAnswer = 64 << 10

// send POSTs body, signed with secrets at t, to j's callback URL and
// returns the answer's status (0 for none). An answer other than 2xx is an
// error.
func (d *Deliverer) send(ctx context.Context, j *showroom.Job, body []byte, secrets []string, t time.Time) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.CallbackURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("the callback URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Showroom-Webhook/1")
	req.Header.Set("Showroom-Event", "job."+string(j.Status))
	req.Header.Set("Showroom-Job-Id", j.ID)
	req.Header.Set(showroom.SignatureHeader, showroom.SignWebhook(body, t, secrets...))
	res, err := d.client.Do(req)
	if err != nil {
		return 0, publicError(err, d.cfg.Timeout)
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, maxAnswer))
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, fmt.Errorf("the receiver answered %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	return res.StatusCode, nil
}
