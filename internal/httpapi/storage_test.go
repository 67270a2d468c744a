package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

// faultyStore is a blob store that fails every call with err while err is
// set: the error the blob package gives for an outage.
type faultyStore struct {
	blob.Store
	err atomic.Pointer[showroom.Error]
}

func (f *faultyStore) fault() error {
	if e := f.err.Load(); e != nil {
		return e
	}
	return nil
}

func (f *faultyStore) Put(ctx context.Context, key string, r io.Reader) error {
	if err := f.fault(); err != nil {
		return err
	}
	return f.Store.Put(ctx, key, r)
}

func (f *faultyStore) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	if err := f.fault(); err != nil {
		return nil, err
	}
	return f.Store.Get(ctx, key)
}

func (f *faultyStore) Size(ctx context.Context, key string) (int64, error) {
	if err := f.fault(); err != nil {
		return 0, err
	}
	return f.Store.Size(ctx, key)
}

// TestStoreUnavailable: while the file store cannot be used, S3 away or
// the disk full, uploads, downloads and processing requests get 503
// SERVICE_UNAVAILABLE with Retry-After and the message saying which, not
// 500; content that does not exist is still 404.
func TestStoreUnavailable(t *testing.T) {
	// The errors blob.S3 and blob.Local give (internal/blob's tests make
	// them from a dead server and a real ENOSPC).
	outages := []struct {
		name  string
		err   *showroom.Error
		retry string
	}{
		{"S3 unreachable", &showroom.Error{Code: showroom.EUnavailable, RetryAfter: 10 * time.Second,
			Message: "the file store is unavailable; try again shortly",
			Cause:   fmt.Errorf("%w: dial tcp 10.0.0.9:9000: connect: connection refused", blob.ErrUnavailable)}, "10"},
		{"disk full", &showroom.Error{Code: showroom.EUnavailable, RetryAfter: time.Minute,
			Message: "the server is out of storage space; try again later",
			Cause:   fmt.Errorf("%w: write: %w", blob.ErrUnavailable, syscall.ENOSPC)}, "60"},
	}
	for _, o := range outages {
		t.Run(o.name, func(t *testing.T) {
			var store *faultyStore
			e := newEnvStore(t, auth.DefaultConfig(), library.DefaultConfig(), httpapi.BodyLimits{},
				func(s blob.Store) blob.Store { store = &faultyStore{Store: s}; return store },
				func(t testing.TB, db *sqlite.DB, _ *blob.Local, lib *library.Service, api *httpapi.APIServer) {
					q, err := river.New(runnerConfig(), db.RiverDriver(), db, store,
						func(context.Context, *showroom.Job, []byte) (*river.Output, error) {
							return nil, showroom.Errorf(showroom.EInternal, "the run is not reached")
						}, slog.New(slog.NewTextHandler(io.Discard, nil)), river.Observer{})
					if err != nil {
						t.Fatal(err)
					}
					if err := q.Start(context.Background()); err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() {
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						q.Stop(ctx)
					})
					api.EnableProcessing(&httpapi.Processing{Queue: q, Jobs: db, Configs: lib,
						MaxPhotoBytes: 25 << 20, MaxPixels: 60_000_000, Limiter: db, Webhooks: db})
				})
			e.addUser("acme", "alice")
			alice := e.bearer("alice")
			img := pngBytes(t, 64, 48)
			e.upload(alice, "stored", "BACKGROUND_SIMPLE", img, "image/png").wantStatus(201)

			store.err.Store(o.err)
			for _, r := range []struct {
				name string
				do   func() *response
			}{
				{"upload", func() *response { return e.upload(alice, "other", "BACKGROUND_SIMPLE", img, "image/png") }},
				{"download", func() *response { return e.do("GET", "/v1/content/stored", nil, alice) }},
				{"process", func() *response {
					return e.do("POST", "/v1/process/single/default_white", bytes.NewReader(img), alice)
				}},
				{"process async", func() *response {
					return e.do("POST", "/v1/process/single/default_white?async=true", bytes.NewReader(img), alice)
				}},
			} {
				res := r.do()
				body := res.wantError(503, showroom.EUnavailable)
				if body["message"] != o.err.Message {
					t.Errorf("%s: message %q, want %q", r.name, body["message"], o.err.Message)
				}
				if got := res.header.Get("Retry-After"); got != o.retry {
					t.Errorf("%s: Retry-After %q, want %s", r.name, got, o.retry)
				}
			}
			e.do("GET", "/v1/content/nosuch", nil, alice).wantError(404, showroom.EContentNotFound)
		})
	}
}
