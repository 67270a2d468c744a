package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// S3Config says where an S3 store keeps its blobs.
type S3Config struct {
	// Bucket holds the blobs; it must exist (NewS3 checks).
	Bucket string
	// Prefix, if set, is put before every key with a slash, so that
	// several services or installations can share one bucket.
	Prefix string
	// Endpoint is the base URL of an S3-compatible server, such as
	// http://127.0.0.1:7070; empty for AWS itself.
	Endpoint string
	// Region signs the requests. Empty: AWS_REGION or the shared config's,
	// else us-east-1, which S3-compatible servers accept.
	Region string
	// PathStyle puts the bucket in the URL's path (endpoint/bucket/key)
	// instead of its host name (bucket.endpoint/key): most S3-compatible
	// servers answer only the first, as they have no DNS name per bucket.
	PathStyle bool
	// Credentials sign the requests; nil means the standard AWS chain:
	// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, the shared config and
	// credentials files (AWS_PROFILE), then the instance's role.
	Credentials aws.CredentialsProvider
}

// The bucket names S3 accepts: path-style and virtual-hosted addressing
// both work with them.
var bucketRE = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// Validate reports the first setting that cannot work.
func (c S3Config) Validate() error {
	if !bucketRE.MatchString(c.Bucket) {
		return fmt.Errorf("s3 blob store: %q is not a bucket name (3-63 lower-case letters, digits, '.' and '-')", c.Bucket)
	}
	if c.Prefix != "" && !ValidKey(c.Prefix) {
		return fmt.Errorf("s3 blob store: prefix %q is not slash-separated letters, digits, '-', '_' and '.'", c.Prefix)
	}
	if c.Endpoint != "" {
		u, err := url.Parse(c.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("s3 blob store: endpoint %q is not an http or https URL", c.Endpoint)
		}
	}
	return nil
}

// ParseS3URL reads a blob URL of the form
//
//	s3://bucket[/prefix][?endpoint=URL][&region=R][&use_path_style=true|false]
//
// With an endpoint, path-style addressing is the default (S3-compatible
// servers); without one, AWS's virtual-hosted style. Unknown parameters are
// errors, so that a misspelt one is not silently ignored.
func ParseS3URL(raw string) (S3Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return S3Config{}, fmt.Errorf("s3 blob store: %w", err)
	}
	if u.Scheme != "s3" {
		return S3Config{}, fmt.Errorf("s3 blob store: %q is not an s3:// URL", raw)
	}
	if u.User != nil || u.Fragment != "" {
		return S3Config{}, fmt.Errorf("s3 blob store: %q: credentials and fragments do not belong in the URL", u.Redacted())
	}
	c := S3Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	q := u.Query()
	c.Endpoint, c.Region = q.Get("endpoint"), q.Get("region")
	c.PathStyle = c.Endpoint != ""
	if v := q.Get("use_path_style"); v != "" {
		if c.PathStyle, err = strconv.ParseBool(v); err != nil {
			return S3Config{}, fmt.Errorf("s3 blob store: use_path_style=%q is not true or false", v)
		}
	}
	for name := range q {
		switch name {
		case "endpoint", "region", "use_path_style":
		default:
			return S3Config{}, fmt.Errorf("s3 blob store: unknown parameter %q (endpoint, region, use_path_style)", name)
		}
	}
	return c, c.Validate()
}

// How long a request waits on a server that is down, so that a client
// learns of an outage (503, ErrUnavailable) in seconds, not after the
// SDK's default 30 s connect timeout times its attempts and up to 20 s
// between them. A server refusing connections fails at once, three times
// within half a second; one that drops them takes three dial timeouts;
// one that takes the request and never answers, three header timeouts.
// Healthy S3 connects in milliseconds and answers a PutObject of tens of
// megabytes within a second of its last byte.
const (
	s3DialTimeout   = time.Second
	s3HeaderTimeout = 5 * time.Second
	s3Attempts      = 3
	s3MaxBackoff    = 250 * time.Millisecond
)

// S3 is a Store in an S3 bucket, on AWS or an S3-compatible server.
type S3 struct {
	client *s3.Client
	bucket string
	prefix string
}

var _ Store = (*S3)(nil)

// NewS3 returns a Store in the bucket cfg names. It asks for the bucket
// once, so that a wrong endpoint, bucket or credentials fail at start
// rather than at the first upload.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var opts []func(*config.LoadOptions) error
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.Credentials != nil {
		opts = append(opts, config.WithCredentialsProvider(cfg.Credentials))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("s3 blob store: %w", err)
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
		o.UsePathStyle = cfg.PathStyle
		o.HTTPClient = awshttp.NewBuildableClient().
			WithDialerOptions(func(d *net.Dialer) { d.Timeout = s3DialTimeout }).
			WithTransportOptions(func(t *http.Transport) {
				t.TLSHandshakeTimeout = s3DialTimeout
				t.ResponseHeaderTimeout = s3HeaderTimeout
			})
		o.Retryer = retry.NewStandard(func(r *retry.StandardOptions) {
			r.MaxAttempts = s3Attempts
			r.MaxBackoff = s3MaxBackoff
		})
	})
	if _, err := client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(cfg.Bucket)}); err != nil {
		return nil, bucketError(cfg, err)
	}
	return &S3{client: client, bucket: cfg.Bucket, prefix: cfg.Prefix}, nil
}

// bucketError says what an operator can do about a failed look at the
// bucket: the SDK's own text for the usual two is a line of request IDs.
func bucketError(cfg S3Config, err error) error {
	where := "AWS"
	if cfg.Endpoint != "" {
		where = cfg.Endpoint
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusNotFound:
			return fmt.Errorf("s3 blob store: there is no bucket %s at %s", cfg.Bucket, where)
		case http.StatusForbidden:
			return fmt.Errorf("s3 blob store: bucket %s at %s: access denied to these credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE)", cfg.Bucket, where)
		}
	}
	return fmt.Errorf("s3 blob store: bucket %s at %s: %w", cfg.Bucket, where, err)
}

func (s *S3) object(key string) (*string, error) {
	if !ValidKey(key) {
		return nil, fmt.Errorf("blob store: invalid key %q", key)
	}
	if s.prefix != "" {
		key = s.prefix + "/" + key
	}
	return aws.String(key), nil
}

// Put implements Store with one PutObject, which S3 makes visible whole or
// not at all. A reader that can seek (bytes.Reader, os.File) is sent as
// it is: the SDK learns its length and rewinds it to retry. Any other is
// first copied to a temporary file, because a PutObject needs the length
// up front and a retry needs the bytes again. The upload manager would
// stream such a reader as a multipart upload instead, but it holds several
// 5 MiB parts in memory for each upload and leaves orphaned parts, billed
// until a lifecycle rule removes them, when the process dies mid-way;
// blobs here are at most tens of megabytes, which a local disk copies
// faster than the network sends them.
func (s *S3) Put(ctx context.Context, key string, r io.Reader) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	body, ok := r.(io.ReadSeeker)
	if !ok {
		f, err := spool(ctx, r)
		if err != nil {
			return full(fmt.Errorf("blob store: put %s: %w", key, err))
		}
		defer func() {
			f.Close()
			os.Remove(f.Name())
		}()
		body = f
	}
	if _, err := s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: obj, Body: body}); err != nil {
		return outage(ctx, fmt.Errorf("blob store: put %s: %w", key, err))
	}
	return nil
}

// spool copies r to a temporary file and rewinds it; the caller closes and
// removes the file.
func spool(ctx context.Context, r io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "showroom-blob-*")
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(f, ctxReader{ctx, r})
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// Get implements Store. The blob streams from S3 as the caller reads it,
// for as long as ctx lasts.
func (s *S3) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: obj})
	if isNotFound(err) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, outage(ctx, fmt.Errorf("blob store: get %s: %w", key, err))
	}
	return s3Body{ctx, out.Body}, nil
}

// Size implements Store with a HeadObject. S3 answers a HEAD without a
// body, so a bucket that has gone looks like a missing blob here; Get and
// Put tell the two apart.
func (s *S3) Size(ctx context.Context, key string) (int64, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: obj})
	if isNotFound(err) {
		return 0, ErrNotFound
	} else if err != nil {
		return 0, outage(ctx, fmt.Errorf("blob store: size %s: %w", key, err))
	}
	return aws.ToInt64(out.ContentLength), nil
}

// Delete implements Store. S3 answers a delete of a missing object with
// success already; a server that says NoSuchKey instead is taken at its word.
func (s *S3) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	_, err = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: obj})
	if err != nil && !isNotFound(err) {
		return outage(ctx, fmt.Errorf("blob store: delete %s: %w", key, err))
	}
	return nil
}

// Reachable implements Store with a HeadBucket, the request NewS3 checks
// the bucket with: it reads nothing and costs one round trip.
func (s *S3) Reachable(ctx context.Context) error {
	if _, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &s.bucket}); err != nil {
		return fmt.Errorf("blob store: bucket %s: %w", s.bucket, err)
	}
	return nil
}

// outage returns err as ErrUnavailable when it says the server is away
// for now: no answer at all (refused, reset, timed out, not resolved) or
// a 5xx (InternalError, SlowDown, ServiceUnavailable), after the SDK's
// retries. A 4xx stays as it is: a missing bucket or refused credentials
// is the configuration's fault, not a passing one. So does the end of
// ctx: the caller gave up.
func outage(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return err
	}
	// The SDK wraps a request that got no answer in a ResponseError too,
	// of status 0.
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() > 0 && re.HTTPStatusCode() < 500 {
		return err
	}
	return unavailable(err)
}

// s3Body is a GetObject's body: a connection lost while it is read is an
// outage too.
type s3Body struct {
	ctx context.Context
	io.ReadCloser
}

func (b s3Body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = outage(b.ctx, err)
	}
	return n, err
}

// isNotFound reports whether err says the object is missing: NoSuchKey
// from GET, NotFound from HEAD (which has no body to name the cause). A
// missing bucket is NoSuchBucket, an error of its own, not a missing blob.
func isNotFound(err error) bool {
	var noKey *types.NoSuchKey
	var notFound *types.NotFound
	return errors.As(err, &noKey) || errors.As(err, &notFound)
}
