package main

import (
	"bytes"
	"encoding/json"
	"image/jpeg"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob/blobtest"
	"github.com/showroom/showroom/internal/drawncar"
)

// TestServeS3Blobs runs 'showroom serve' with its blobs in an S3 bucket (a
// versitygw started for the test), as a scaled-out deployment keeps them:
// uploaded content, photos and results land in the bucket under the URL's
// prefix, come back through the API, and nothing goes to the data
// directory's blob folder.
func TestServeS3Blobs(t *testing.T) {
	s3 := blobtest.StartS3(t)
	requireModel(t, "u2netp")
	bucket := s3.NewBucket(t)
	// The credentials come from the standard AWS environment, as in
	// production; the SDK reads the process's own.
	t.Setenv("AWS_ACCESS_KEY_ID", blobtest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", blobtest.SecretKey)
	dir := t.TempDir()
	setupCompany(t, dir, 10)
	env := map[string]string{
		"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp",
		"SHOWROOM_BLOB_URL": "s3://" + bucket + "/showroom?endpoint=" + s3.Endpoint + "&region=" + blobtest.Region,
	}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0")
	a := login(t, base, "alice", "hunter2hunter2")

	background := plainJPEG(t, 320, 200)
	res, body := a.do("POST", "/v1/content/upload/studio/BACKGROUND_SIMPLE", background, map[string]string{"Content-Type": "image/jpeg"})
	if res.StatusCode != 201 {
		t.Fatalf("upload: %d %s", res.StatusCode, body)
	}
	if res, body := a.do("GET", "/v1/content/studio", nil, nil); res.StatusCode != 200 || !bytes.Equal(body, background) {
		t.Errorf("content read back: %d, %d bytes (want the %d uploaded)", res.StatusCode, len(body), len(background))
	}
	config := `[{"processorName": "DetectCarMaskProcessor"},
		{"processorName": "AddBackgroundAndCropProcessor", "background": "studio"}]`
	if res, body := a.do("POST", "/v1/configuration/myStudio", []byte(config), map[string]string{"Content-Type": "application/json"}); res.StatusCode != 201 {
		t.Fatalf("configuration: %d %s", res.StatusCode, body)
	}

	// The worker reads the photo and the background from the bucket and
	// writes the result there; the API reads the result back.
	res, body = a.do("POST", "/v1/process/single/myStudio?async=true", drawnCarJPEG(t), map[string]string{"Content-Type": "image/jpeg"})
	if res.StatusCode != 202 {
		t.Fatalf("async: %d %s", res.StatusCode, body)
	}
	var j jobView
	json.Unmarshal(body, &j)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if got := a.job(j.ID); got.Status == "succeeded" {
			break
		} else if got.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("job: %+v", got)
		}
	}
	res, result := a.do("GET", "/v1/process/jobs/"+j.ID+"/result", nil, nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" {
		t.Fatalf("result: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if _, err := jpeg.Decode(bytes.NewReader(result)); err != nil {
		t.Errorf("result is no JPEG: %v", err)
	}

	keys := s3.Keys(t, bucket)
	for _, want := range []string{"showroom/jobs/" + j.ID + "/input", "showroom/jobs/" + j.ID + "/result"} {
		if !slices.Contains(keys, want) {
			t.Errorf("bucket lacks %s; it holds %q", want, keys)
		}
	}
	if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasPrefix(k, "showroom/content/") }) {
		t.Errorf("bucket lacks the uploaded content; it holds %q", keys)
	}
	if local, _ := filepath.Glob(filepath.Join(dir, "blobs", "*")); len(local) > 0 {
		t.Errorf("blobs written to the data directory too: %q", local)
	}
}

// A blob URL naming a bucket that is not there stops a role at start, with
// the server's answer (TestCommandLineErrors has the malformed URLs).
func TestBlobURLErrors(t *testing.T) {
	s3 := blobtest.StartS3(t)
	t.Setenv("AWS_ACCESS_KEY_ID", blobtest.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", blobtest.SecretKey)
	dir := t.TempDir()
	photo := filepath.Join(dir, "car.jpg")
	if err := os.WriteFile(photo, drawnCarJPEG(t), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing bucket", []string{"worker", "--blob-url", "s3://no-such-bucket?endpoint=" + s3.Endpoint}, 1, "there is no bucket no-such-bucket"},
		{"process, missing bucket", []string{"process", "--config", "x", "--company", "acme", "--blob-url", "s3://no-such-bucket?endpoint=" + s3.Endpoint, photo}, 1, "there is no bucket no-such-bucket"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := run(t, map[string]string{"SHOWROOM_DATA_DIR": dir}, "", tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if got := exitCode(err); got != tc.code {
				t.Errorf("exit code %d, want %d (%v)", got, tc.code, err)
			}
			if !strings.Contains(err.Error()+stderr, tc.want) {
				t.Errorf("error %q / stderr %q lacks %q", err, stderr, tc.want)
			}
		})
	}
}

// requireModel skips t when the model's file is not there ('make models'
// fetches it).
func requireModel(t testing.TB, model string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(defaultModelDir(), model+".onnx")); err != nil {
		t.Skipf("skipping: no %s model in %s; run 'make models'", model, defaultModelDir())
	}
}

// drawnCarJPEG is a drawn side view of a car on a plain floor: a photo the
// model finds a car in, made by the test.
func drawnCarJPEG(t testing.TB) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, drawncar.New(480, 300, 0).Photo, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
