package river

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/riverqueue/river"
	"github.com/showroom/showroom/internal/showroom"
)

// WebhookConfig configures the delivery of finished jobs to their callback
// URLs.
type WebhookConfig struct {
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

// DefaultWebhookConfig tries a delivery 8 times over about an hour
// (30 s, 1, 2, 4, 8, 16 and 32 min apart), 10 s each.
func DefaultWebhookConfig() WebhookConfig {
	return WebhookConfig{Workers: 4, MaxAttempts: 8, Timeout: 10 * time.Second, Backoff: 30 * time.Second}
}

// Validate reports a configuration that cannot work.
func (c WebhookConfig) Validate() error {
	switch {
	case c.Workers < 1:
		return errors.New("webhooks: workers must be at least 1")
	case c.MaxAttempts < 1 || c.MaxAttempts >= riverAttempts:
		return fmt.Errorf("webhooks: max attempts must be from 1 to %d", riverAttempts-1)
	case c.Timeout <= 0 || c.Backoff <= 0:
		return errors.New("webhooks: the timeout and the backoff must be positive")
	}
	return nil
}

// backoff is the wait after attempt n (1 for the first) failed.
func (c WebhookConfig) backoff(n int) time.Duration {
	return c.Backoff << min(max(n-1, 0), 20)
}

// Webhooks is what deliveries need besides the queue's job store.
type Webhooks struct {
	// Store holds the companies' signing secrets and records deliveries.
	Store showroom.WebhookStore
	// Render is the job record as the API shows it, the body delivered.
	Render func(*showroom.Job) ([]byte, error)
}

// EnableWebhooks lets this process deliver webhooks; call it before Start.
// Without it, deliveries wait (and are retried) for a process that can.
func (q *Queue) EnableWebhooks(w Webhooks) { q.hooks = &w }

// deliverWorker POSTs a finished job's record to its callback URL.
type deliverWorker struct {
	river.WorkerDefaults[deliverArgs]
	q *Queue
}

// NextRetry doubles the wait after each failed attempt.
func (w *deliverWorker) NextRetry(rj *river.Job[deliverArgs]) time.Time {
	return time.Now().Add(w.q.cfg.Webhooks.backoff(rj.Attempt))
}

// Timeout leaves room for the attempt's own timeout, which ends it first.
func (w *deliverWorker) Timeout(*river.Job[deliverArgs]) time.Duration {
	return 2 * w.q.cfg.Webhooks.Timeout
}

func (w *deliverWorker) Work(ctx context.Context, rj *river.Job[deliverArgs]) error {
	q := w.q
	if q.hooks == nil {
		return errors.New("webhooks are not enabled in this process")
	}
	j, err := q.store.FindJob(ctx, 0, rj.Args.JobID)
	if showroom.ErrorCode(err) == showroom.EJobNotFound {
		return river.JobCancel(err) // removed by retention
	} else if err != nil {
		return err
	}
	if j.Delivery == nil || j.Delivery.Status != showroom.DeliveryPending {
		return nil // delivered or given up by an earlier attempt
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	d := showroom.WebhookDelivery{Status: showroom.DeliveryPending, Attempts: rj.Attempt, LastAttemptAt: now}
	final := rj.Attempt >= q.cfg.Webhooks.MaxAttempts
	hook, err := q.hooks.Store.FindWebhook(ctx, j.CompanyID)
	switch {
	case showroom.ErrorCode(err) == showroom.EWebhookNotFound:
		err, final = errors.New("the company's webhook was deleted: no secret signs the delivery"), true
	case err != nil:
		return err
	default:
		var body []byte
		if body, err = q.hooks.Render(j); err != nil {
			return fmt.Errorf("webhook body: %w", err)
		}
		d.LastStatusCode, err = q.sender.send(ctx, j, body, hook.Secrets(now), now)
	}
	switch {
	case err == nil:
		d.Status = showroom.DeliveryDelivered
	case final:
		d.Status, d.LastError = showroom.DeliveryFailed, err.Error()
	default:
		d.LastError = err.Error()
	}
	if rerr := q.hooks.Store.RecordWebhookDelivery(context.WithoutCancel(ctx), j.ID, d); rerr != nil {
		return errors.Join(err, rerr)
	}
	switch {
	case err == nil:
		return nil
	case final:
		q.log.WarnContext(ctx, "webhook not delivered; giving up", "job", j.ID, "attempts", rj.Attempt, "err", err, "cause", causeOf(err))
		return river.JobCancel(err)
	}
	q.log.InfoContext(ctx, "webhook not delivered; will retry", "job", j.ID, "attempt", rj.Attempt, "err", err, "cause", causeOf(err))
	return err
}

// sender POSTs deliveries. It dials only public addresses unless allowed
// otherwise, follows no redirect and uses no proxy: a proxy would be
// dialled in the receiver's place, and a redirect would take the request
// to an address nobody checked.
type sender struct {
	client  *http.Client
	timeout time.Duration
}

func newSender(cfg WebhookConfig) *sender {
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
	return &sender{timeout: cfg.Timeout, client: &http.Client{
		Transport:     transport,
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
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
func (s *sender) send(ctx context.Context, j *showroom.Job, body []byte, secrets []string, t time.Time) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.CallbackURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("the callback URL: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Showroom-Webhook/1")
	req.Header.Set("Showroom-Event", "job."+string(j.Status))
	req.Header.Set("Showroom-Job-Id", j.ID)
	req.Header.Set(showroom.SignatureHeader, showroom.SignWebhook(body, t, secrets...))
	res, err := s.client.Do(req)
	if err != nil {
		return 0, publicError(err, s.timeout)
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, maxAnswer))
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, fmt.Errorf("the receiver answered %d %s", res.StatusCode, http.StatusText(res.StatusCode))
	}
	return res.StatusCode, nil
}
