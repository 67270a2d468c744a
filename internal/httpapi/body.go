package httpapi

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// BodyLimits bound how long a request body may take to arrive: a client
// that sends nothing for Idle, sends slower than MinRate once MinRateAfter
// has passed, or has not sent the whole body after Total, gets 408
// REQUEST_TIMEOUT. Without them an upload trickling a byte every few
// seconds would hold its connection, and what the handler holds while
// reading, for as long as the client likes.
type BodyLimits struct {
	Idle  time.Duration
	Total time.Duration
	// MinRate is the least average rate, in bytes a second of the time
	// the server spent waiting for them, at which a body being read must
	// arrive once MinRateAfter of waiting has passed; negative: no
	// minimum.
	MinRate      int64
	MinRateAfter time.Duration
	// Drain is how long the server waits, once the handler answers, for
	// the rest of a body the handler did not read (net/http reads it to
	// reuse the connection, before it writes the answer). A body still
	// not in by then closes the connection after the answer: a request
	// announcing a body it never sends to a route that reads none (a 404,
	// a 401, /healthz) must not hold a connection for Total.
	Drain time.Duration
}

// DefaultBodyLimits allow a 25 MiB photo over a 1 Mbit/s uplink (about
// 3.5 minutes), a pause of half a minute, and any body that keeps up
// 4 KiB/s (32 kbit/s, slower than any mobile uplink) after its first ten
// seconds; a body sent whole with its request is read well within the
// second Drain allows.
func DefaultBodyLimits() BodyLimits {
	return BodyLimits{Idle: 30 * time.Second, Total: 5 * time.Minute, MinRate: 4 << 10, MinRateAfter: 10 * time.Second, Drain: time.Second}
}

// withDefaults fills the limits left zero with DefaultBodyLimits' values.
func (l BodyLimits) withDefaults() BodyLimits {
	def := DefaultBodyLimits()
	if l.Idle <= 0 {
		l.Idle = def.Idle
	}
	if l.Total <= 0 {
		l.Total = def.Total
	}
	if l.MinRate == 0 {
		l.MinRate = def.MinRate
	}
	if l.MinRateAfter <= 0 {
		l.MinRateAfter = def.MinRateAfter
	}
	if l.Drain <= 0 {
		l.Drain = def.Drain
	}
	return l
}

// errBodyTimeout is what a body read returns once a BodyLimits deadline
// has passed.
var errBodyTimeout = errors.New("httpapi: the request body did not arrive in time")

// timedBody is a request body read under BodyLimits. Each read sets the
// connection's read deadline to the soonest of the idle deadline, the
// total deadline and the time by which the bytes read so far stop keeping
// up the minimum rate over the time spent waiting for them; at the body's
// end the deadline is cleared, so the
// server's background read, which watches for the client going away while
// a long request runs, never times out on it.
type timedBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	limits BodyLimits
	end    time.Time
	read   int64         // bytes read so far
	waited time.Duration // in Read, for the client
	// ended is set at EOF or a timeout; read by answered, on the
	// handler's goroutine, while a proxy's transport may be reading.
	ended atomic.Bool
}

func newTimedBody(w http.ResponseWriter, body io.ReadCloser, l BodyLimits) *timedBody {
	now := time.Now()
	b := &timedBody{ReadCloser: body, rc: http.NewResponseController(w), limits: l, end: now.Add(l.Total)}
	// Bounds the server's own read of a body the handler leaves unread,
	// until the handler answers and answered shortens it.
	b.rc.SetReadDeadline(b.end)
	return b
}

// deadline is when the next read must have returned.
func (b *timedBody) deadline(now time.Time) time.Time {
	d := now.Add(b.limits.Idle)
	if b.end.Before(d) {
		d = b.end
	}
	if b.limits.MinRate > 0 {
		// The n bytes read so far pay for MinRateAfter + n/MinRate of
		// waiting for the client; only the time spent in Read counts, so
		// that a handler which reads late (after a wait for its turn)
		// finds the bytes sent meanwhile in the socket's buffers, not a
		// deadline already past.
		allowed := b.limits.MinRateAfter + time.Duration(float64(b.read)/float64(b.limits.MinRate)*float64(time.Second))
		if owed := now.Add(allowed - b.waited); owed.Before(d) {
			d = owed
		}
	}
	return d
}

func (b *timedBody) Read(p []byte) (int, error) {
	if b.ended.Load() {
		return b.ReadCloser.Read(p)
	}
	// An error means the connection cannot take deadlines (a test's
	// recorder); the body is then read without them.
	now := time.Now()
	b.rc.SetReadDeadline(b.deadline(now))
	n, err := b.ReadCloser.Read(p)
	b.read += int64(n)
	b.waited += time.Since(now)
	switch {
	case err == io.EOF:
		b.ended.Store(true)
		b.rc.SetReadDeadline(time.Time{})
	case isTimeout(err):
		b.ended.Store(true)
		return n, errBodyTimeout
	}
	return n, err
}

// answered is called when the handler starts its answer, and again when it
// returns: what is left of an unread body then has Drain to arrive (the
// server reads it before writing the answer), and else the connection is
// closed after the answer. A handler that reads on sets its own deadlines.
func (b *timedBody) answered() {
	if b.ended.Load() {
		return
	}
	d := time.Now().Add(b.limits.Drain)
	if b.end.Before(d) {
		d = b.end
	}
	b.rc.SetReadDeadline(d)
}

func isTimeout(err error) bool {
	var ne net.Error
	return err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout())
}

// bodyError turns a failure to read a request body of at most limit bytes
// into the client's error: 413 over the limit, 408 too slow; any other
// error is returned as it is.
func bodyError(err error, limit int64) error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return errTooLarge(limit)
	case errors.Is(err, errBodyTimeout):
		return showroom.Errorf(showroom.ERequestTimeout, "the request body did not arrive in time; send it without long pauses")
	}
	return err
}
