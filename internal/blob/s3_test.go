package blob_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/blob/blobtest"
	"github.com/showroom/showroom/internal/showroom"
)

func TestS3(t *testing.T) {
	srv := blobtest.StartS3(t)
	blobtest.Run(t, srv.NewStore)
}

func TestParseS3URL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		want blob.S3Config
	}{
		{"s3://photos", blob.S3Config{Bucket: "photos"}},
		{"s3://photos?region=eu-central-1", blob.S3Config{Bucket: "photos", Region: "eu-central-1"}},
		{"s3://photos?endpoint=http://127.0.0.1:7070&region=us-east-1",
			blob.S3Config{Bucket: "photos", Endpoint: "http://127.0.0.1:7070", Region: "us-east-1", PathStyle: true}},
		{"s3://photos/showroom/prod/?endpoint=https://s3.example.com&use_path_style=false",
			blob.S3Config{Bucket: "photos", Prefix: "showroom/prod", Endpoint: "https://s3.example.com"}},
		{"s3://photos?use_path_style=true", blob.S3Config{Bucket: "photos", PathStyle: true}},
	} {
		got, err := blob.ParseS3URL(tc.url)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseS3URL(%q) = %+v, %v; want %+v", tc.url, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ url, problem string }{
		{"s3://", "bucket name"},
		{"s3://Photos", "bucket name"},
		{"s3://ab", "bucket name"},
		{"s3://my_bucket", "bucket name"},
		{"file:///srv/blobs", "not an s3:// URL"},
		{"photos", "not an s3:// URL"},
		{"s3://photos\x7f", "invalid control character"},
		{"s3://key:secret@photos", "credentials"},
		{"s3://photos#x", "fragments"},
		{"s3://photos/a/../b", "prefix"},
		{"s3://photos/a//b", "prefix"},
		{"s3://photos?endpoint=127.0.0.1:7070", "not an http or https URL"},
		{"s3://photos?endpoint=ftp://host", "not an http or https URL"},
		{"s3://photos?endpoint=http://", "not an http or https URL"},
		{"s3://photos?use_path_style=yes", "use_path_style"},
		{"s3://photos?regoin=us-east-1", `unknown parameter "regoin"`},
	} {
		_, err := blob.ParseS3URL(tc.url)
		if err == nil || !strings.Contains(err.Error(), tc.problem) {
			t.Errorf("ParseS3URL(%q): err = %v, want one about %q", tc.url, err, tc.problem)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseS3URL(%q): the error shows the secret: %v", tc.url, err)
		}
	}
}

// NewS3 fails at start on what would otherwise fail every upload.
func TestNewS3Refuses(t *testing.T) {
	srv := blobtest.StartS3(t)
	bucket := srv.NewBucket(t)
	ctx := t.Context()

	bad := srv.Config(bucket)
	bad.Bucket = "no-such-bucket"
	if _, err := blob.NewS3(ctx, bad); err == nil || !strings.Contains(err.Error(), "there is no bucket no-such-bucket at "+srv.Endpoint) {
		t.Errorf("NewS3 of a missing bucket: err = %v", err)
	}
	bad = srv.Config(bucket)
	bad.Credentials = credentials.NewStaticCredentialsProvider(blobtest.AccessKey, "wrong secret", "")
	if _, err := blob.NewS3(ctx, bad); err == nil || !strings.Contains(err.Error(), "access denied") {
		t.Errorf("NewS3 with a wrong secret: err = %v", err)
	}
	// A server that answers neither yes nor no.
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "teapot", http.StatusTeapot)
	}))
	defer down.Close()
	bad = srv.Config(bucket)
	bad.Endpoint = down.URL
	if _, err := blob.NewS3(ctx, bad); err == nil || !strings.Contains(err.Error(), "418") {
		t.Errorf("NewS3 on a server answering 418: err = %v", err)
	}
	bad = srv.Config(bucket)
	bad.Prefix = "../up"
	if _, err := blob.NewS3(ctx, bad); err == nil {
		t.Error("NewS3 with an invalid prefix succeeded")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := blob.NewS3(cctx, srv.Config(bucket)); !errors.Is(err, context.Canceled) {
		t.Errorf("NewS3 with a cancelled context: err = %v, want context.Canceled", err)
	}
}

// The standard AWS environment supplies the region and credentials when
// the configuration does not.
func TestNewS3FromEnvironment(t *testing.T) {
	srv := blobtest.StartS3(t)
	bucket := srv.NewBucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", blobtest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", blobtest.SecretKey)
	t.Setenv("AWS_REGION", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	cfg, err := blob.ParseS3URL("s3://" + bucket + "?endpoint=" + srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	s, err := blob.NewS3(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), "a/b", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
}

// With a prefix, the blobs lie under it in the bucket and the keys the
// store answers to stay the same.
func TestS3Prefix(t *testing.T) {
	srv := blobtest.StartS3(t)
	bucket := srv.NewBucket(t)
	cfg := srv.Config(bucket)
	cfg.Prefix = "showroom/test"
	s, err := blob.NewS3(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(t.Context(), "content/1/a", strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	if got := srv.Keys(t, bucket); !slices.Equal(got, []string{"showroom/test/content/1/a"}) {
		t.Errorf("bucket holds %q, want the key under the prefix", got)
	}
	rc, err := s.Get(t.Context(), "content/1/a")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if b, err := io.ReadAll(rc); err != nil || string(b) != "hello" {
		t.Errorf("Get = %q, %v", b, err)
	}
}

// A bucket removed under a running store is an error, never a missing
// blob (which would make the service answer 404 for content that exists).
func TestS3BucketGone(t *testing.T) {
	srv := blobtest.StartS3(t)
	bucket := srv.NewBucket(t)
	s, err := blob.NewS3(t.Context(), srv.Config(bucket))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client().DeleteBucket(t.Context(), &s3.DeleteBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.Put(ctx, "a/b", strings.NewReader("x")); err == nil {
		t.Error("Put into a deleted bucket succeeded")
	}
	if err := s.Put(ctx, "a/b", onlyReader{strings.NewReader("x")}); err == nil {
		t.Error("Put of an unknown length into a deleted bucket succeeded")
	}
	if _, err := s.Get(ctx, "a/b"); err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Get from a deleted bucket: err = %v, want an error other than ErrNotFound", err)
	}
	if err := s.Delete(ctx, "a/b"); err == nil {
		t.Error("Delete from a deleted bucket succeeded")
	}
	// HEAD has no body to say which is missing: Size cannot tell.
	if _, err := s.Size(ctx, "a/b"); err == nil {
		t.Error("Size in a deleted bucket succeeded")
	}
	if err := s.Reachable(ctx); err == nil || !strings.Contains(err.Error(), bucket) {
		t.Errorf("Reachable with the bucket deleted: %v, want an error naming the bucket", err)
	}
}

// A Put of unknown length copies the bytes to a temporary file first and
// removes it after, whether the upload worked or not; with no temporary
// folder to be had, it fails and stores nothing.
func TestS3TempFiles(t *testing.T) {
	srv := blobtest.StartS3(t)
	s := srv.NewStore(t)
	ctx := t.Context()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if err := s.Put(ctx, "a/b", onlyReader{strings.NewReader("x")}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Put(cctx, "a/c", onlyReader{strings.NewReader("x")}); err == nil {
		t.Error("Put with a cancelled context succeeded")
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}

	t.Setenv("TMPDIR", filepath.Join(tmp, "nonexistent"))
	if err := s.Put(ctx, "a/d", onlyReader{strings.NewReader("x")}); err == nil {
		t.Error("Put without a temporary folder succeeded")
	}
	if _, err := s.Size(ctx, "a/d"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Size after a failed Put: err = %v, want ErrNotFound", err)
	}
}

type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// make test must run the S3 tests, not skip them: it installs versitygw
// before the tests and tells them where under the name they read.
func TestMakefileInstallsVersitygw(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"export " + blobtest.VersitygwEnv + " ?= $(VERSITYGW)\n", "\ntest: deps models versitygw\n"} {
		if !strings.Contains(string(mk), line) {
			t.Errorf("the Makefile lacks %q", line)
		}
	}
}

// TestS3Outage: while the server is away, answering 5xx or refusing
// connections, every operation fails within two seconds with
// ErrUnavailable, a SERVICE_UNAVAILABLE error the API answers 503 with
// Retry-After; a missing object on a server that answers stays
// ErrNotFound.
func TestS3Outage(t *testing.T) {
	srv := blobtest.StartS3(t)
	bucket := srv.NewBucket(t)
	target, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	// The proxy keeps the Host header the request was signed with.
	proxy := httputil.NewSingleHostReverseProxy(target)
	var failing atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	cfg := srv.Config(bucket)
	cfg.Endpoint = front.URL
	ctx := t.Context()
	s, err := blob.NewS3(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, "a/b", strings.NewReader("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "a/missing"); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get of a missing object: %v, want ErrNotFound", err)
	}

	ops := map[string]func() error{
		"Put":                   func() error { return s.Put(ctx, "a/c", strings.NewReader("x")) },
		"Put of unknown length": func() error { return s.Put(ctx, "a/c", onlyReader{strings.NewReader("x")}) },
		"Get": func() error {
			rc, err := s.Get(ctx, "a/b")
			if err == nil {
				rc.Close()
			}
			return err
		},
		"Size":   func() error { _, err := s.Size(ctx, "a/b"); return err },
		"Delete": func() error { return s.Delete(ctx, "a/b") },
	}
	for _, outage := range []struct {
		name  string
		start func()
	}{
		{"5xx", func() { failing.Store(true) }},
		{"connection refused", front.Close},
	} {
		outage.start()
		for name, op := range ops {
			start := time.Now()
			err := op()
			took := time.Since(start)
			var e *showroom.Error
			if !errors.Is(err, blob.ErrUnavailable) || !errors.As(err, &e) || e.Code != showroom.EUnavailable || e.RetryAfter <= 0 {
				t.Errorf("%s, %s: %v, want ErrUnavailable, SERVICE_UNAVAILABLE with a Retry-After", outage.name, name, err)
			}
			if took > 2*time.Second {
				t.Errorf("%s, %s: took %v, want under 2s", outage.name, name, took)
			}
		}
	}
}
