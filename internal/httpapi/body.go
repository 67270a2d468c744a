package httpapi

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// BodyLimits bound how long a request body may take to arrive: a client
// that sends nothing for Idle, or has not sent the whole body after Total,
// gets 408 REQUEST_TIMEOUT. Without them an upload trickling a byte every
// few seconds would hold its connection, and what the handler holds while
// reading, for as long as the client likes.
type BodyLimits struct {
	Idle  time.Duration
	Total time.Duration
}

// DefaultBodyLimits allow a 25 MiB photo over a 1 Mbit/s uplink (about
// 3.5 minutes) and a pause of half a minute.
func DefaultBodyLimits() BodyLimits {
	return BodyLimits{Idle: 30 * time.Second, Total: 5 * time.Minute}
}

// errBodyTimeout is what a body read returns once a BodyLimits deadline
// has passed.
var errBodyTimeout = errors.New("httpapi: the request body did not arrive in time")

// timedBody is a request body read under BodyLimits. Each read sets the
// connection's read deadline to the sooner of the idle and the total
// deadline; at the body's end the deadline is cleared, so the server's
// background read, which watches for the client going away while a long
// request runs, never times out on it.
type timedBody struct {
	io.ReadCloser
	rc    *http.ResponseController
	idle  time.Duration
	end   time.Time
	ended bool
}

func newTimedBody(w http.ResponseWriter, body io.ReadCloser, l BodyLimits) *timedBody {
	b := &timedBody{ReadCloser: body, rc: http.NewResponseController(w), idle: l.Idle, end: time.Now().Add(l.Total)}
	// Bounds the server's own read of a body the handler leaves unread,
	// which it drains after the answer to reuse the connection.
	b.rc.SetReadDeadline(b.end)
	return b
}

func (b *timedBody) Read(p []byte) (int, error) {
	if b.ended {
		return b.ReadCloser.Read(p)
	}
	deadline := time.Now().Add(b.idle)
	if deadline.After(b.end) {
		deadline = b.end
	}
	// An error means the connection cannot take deadlines (a test's
	// recorder); the body is then read without them.
	b.rc.SetReadDeadline(deadline)
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		b.ended = true
		b.rc.SetReadDeadline(time.Time{})
	case isTimeout(err):
		b.ended = true
		return n, errBodyTimeout
	}
	return n, err
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
