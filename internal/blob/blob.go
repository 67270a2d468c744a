// Package blob keeps the bytes of uploaded content, photos and results
// behind a small Store interface, in a local folder (the embedded default)
// or an S3 bucket (for processes on many machines). Keys are made by the
// service, never taken from user input; a Put is atomic, so a reader sees
// the whole blob or none of it.
package blob

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// ErrNotFound is returned for a key that holds no blob.
var ErrNotFound = errors.New("blob not found")

// ErrUnavailable is wrapped by the error of an operation the store could
// not do for a while, though nothing is wrong with the request: an S3
// server that refuses connections, times out or answers 5xx, a disk that
// is full. Such an error is also a *showroom.Error with code EUnavailable
// and a Retry-After, which the API answers 503: the client may retry.
var ErrUnavailable = errors.New("blob store unavailable")

// How long a client is told to wait before it retries: an S3 outage is
// commonly over in seconds to minutes; a full disk waits for an operator.
const (
	retryUnreachable = 10 * time.Second
	retryFull        = 60 * time.Second
)

// unavailable wraps err, an outage of the store, as ErrUnavailable.
func unavailable(err error) error {
	return &showroom.Error{Code: showroom.EUnavailable, RetryAfter: retryUnreachable,
		Message: "the file store is unavailable; try again shortly", Cause: fmt.Errorf("%w: %w", ErrUnavailable, err)}
}

// full returns err as ErrUnavailable when it says the disk is full (or the
// user's quota is), and err itself otherwise. A write that found no room
// is no fault of the request: it can succeed once space is freed.
func full(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &showroom.Error{Code: showroom.EUnavailable, RetryAfter: retryFull,
			Message: "the server is out of storage space; try again later", Cause: fmt.Errorf("%w: %w", ErrUnavailable, err)}
	}
	return err
}

// Store keeps blobs by key. Keys are slash-separated paths of letters,
// digits, '-', '_' and '.' made by NewKey, never by users; an invalid key
// (see ValidKey) is an error of its own, never ErrNotFound. Every method
// fails with an error that wraps ctx.Err() when ctx is done before it
// starts. blobtest.Run checks an implementation against all of this.
type Store interface {
	// Put stores the bytes read from r under key, replacing any blob there.
	// Until Put returns nil, no reader sees a partial blob; on error nothing
	// is left behind. Readers that cannot seek are fine: their length need
	// not be known.
	Put(ctx context.Context, key string, r io.Reader) error
	// Get opens the blob; the caller closes it. ErrNotFound if absent.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Size returns the blob's length in bytes. ErrNotFound if absent.
	Size(ctx context.Context, key string) (int64, error)
	// Delete removes the blob; deleting a missing blob is not an error.
	Delete(ctx context.Context, key string) error
	// Reachable checks, cheaply and without writing, that the store can be
	// used: the folder is there, the bucket answers these credentials.
	// /readyz asks it at every probe.
	Reachable(ctx context.Context) error
}

var keyRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*$`)

// ValidKey reports whether key is a well-formed key: no empty, "." or ".."
// segments, so a key can never name a path outside the store.
func ValidKey(key string) bool {
	if !keyRE.MatchString(key) || len(key) > 512 {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// NewKey returns a fresh random key under prefix, e.g. content/7/3f9a...:
// a new blob never overwrites one a record still points at.
func NewKey(prefix string) string {
	var b [16]byte
	rand.Read(b[:])
	return path.Join(prefix, hex.EncodeToString(b[:]))
}
