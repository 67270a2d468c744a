package blobtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/syncbuf"
)

// VersitygwEnv names the variable that gives the versitygw binary's path;
// the Makefile sets it to the copy it installs. Without it, tests look on
// PATH.
const VersitygwEnv = "SHOWROOM_VERSITYGW"

// The test server's fixed credentials and region.
const (
	AccessKey = "showroom-test"
	SecretKey = "showroom-test-secret"
	Region    = "us-east-1"
)

// S3Server is a versitygw process serving a temporary folder over S3 on a
// loopback port, for one test.
type S3Server struct {
	// Endpoint is the server's base URL, e.g. http://127.0.0.1:40123.
	Endpoint string
	client   *s3.Client
}

// StartS3 starts versitygw for the rest of t and stops it when t ends. It
// skips t when no binary is found, so that 'go test' works without make;
// when VersitygwEnv names a binary that is not there, t fails instead,
// since whoever set it (make test) meant the tests to run.
func StartS3(t testing.TB) *S3Server {
	t.Helper()
	bin := os.Getenv(VersitygwEnv)
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("versitygw"); err != nil {
			t.Skipf("skipping the S3 tests: no versitygw on PATH and %s unset ('make test' installs it and sets it)", VersitygwEnv)
		}
	} else if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v", VersitygwEnv, bin, err)
	}
	dir := t.TempDir()
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	addr := freeAddr(t)
	// Metadata goes to a sidecar folder, not to extended attributes, which
	// the temporary folder's file system may not have. The environment is
	// empty so that no VGW_* or ROOT_* variable of the caller's changes the
	// server.
	cmd := exec.Command(bin, "--port", addr, "--access", AccessKey, "--secret", SecretKey,
		"--region", Region, "--quiet", "posix", "--sidecar", meta, data)
	cmd.Env = []string{}
	var out syncbuf.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	s := &S3Server{Endpoint: "http://" + addr}
	waitServing(t, s.Endpoint, exited, &out)
	s.client = s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.Endpoint),
		UsePathStyle: true,
		Credentials:  Credentials(),
	})
	return s
}

// Credentials returns the test server's credentials.
func Credentials() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, "")
}

// NewBucket creates an empty bucket with a fresh name and returns the name.
func (s *S3Server) NewBucket(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "test-" + hex.EncodeToString(b[:])
	if _, err := s.client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return name
}

// Config returns the settings of a store in bucket on this server.
func (s *S3Server) Config(bucket string) blob.S3Config {
	return blob.S3Config{Bucket: bucket, Endpoint: s.Endpoint, Region: Region, PathStyle: true, Credentials: Credentials()}
}

// NewStore returns a store in a fresh bucket: a newStore for Run.
func (s *S3Server) NewStore(t *testing.T) blob.Store {
	t.Helper()
	st, err := blob.NewS3(t.Context(), s.Config(s.NewBucket(t)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Client returns a client of the server, for tests that look at a bucket
// past the Store.
func (s *S3Server) Client() *s3.Client { return s.client }

// Keys lists the keys in bucket, for tests that check what a service
// stored.
func (s *S3Server) Keys(t testing.TB, bucket string) []string {
	t.Helper()
	var keys []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: &bucket})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("list %s: %v", bucket, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys
}

// freeAddr returns a loopback address no one listens on now. Another
// process could take it before versitygw does; waitServing then fails
// with versitygw's own complaint.
func freeAddr(t testing.TB) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitServing returns once the server answers HTTP (any status: a request
// without credentials gets 403), and fails t if it exits or stays silent.
func waitServing(t testing.TB, endpoint string, exited <-chan struct{}, out *syncbuf.Buffer) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("versitygw exited at start:\n%s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw not serving on %s after 20 s: %v\n%s", endpoint, err, out.String())
		}
	}
}
