package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// The client generator and the runtime its code imports, pinned: the test
// fetches them through the module proxy once, then from the module cache.
const (
	oapiCodegen        = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	oapiRuntime        = "github.com/oapi-codegen/runtime"
	oapiRuntimeVersion = "v1.9.0"
)

// TestGeneratedClient generates a Go client from the OpenAPI document the
// server serves, with oapi-codegen, builds it with the program in
// testdata/clientcheck, and has that program log in, upload a background,
// save a configuration that uses it (typed, through the generated unions),
// process a photo and read its job back on a live server with the real
// engine. A document a generator cannot turn into a client that compiles
// and works fails here.
func TestGeneratedClient(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short: runs the client generator and the Go toolchain")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no go command to generate and build the client with")
	}
	e := newEnvWith(t, library.DefaultConfig(), withProcessing(t, runnerConfig()))
	e.addUser("acme", "alice")

	dir := t.TempDir()
	driver, err := os.ReadFile("testdata/clientcheck/main.go")
	if err != nil {
		t.Fatal(err)
	}
	served := e.do("GET", "/openapi.yaml", nil, nil).wantStatus(200).body
	writeFiles(t, dir, map[string][]byte{
		"openapi.yaml": served,
		"main.go":      driver,
		"go.mod":       []byte("module clientcheck\n\ngo 1.25\n\nrequire " + oapiRuntime + " " + oapiRuntimeVersion + "\n"),
		"photo.jpg":    encodeJPEG(t, drawncar.New(480, 300, 0).Photo),
		"backdrop.png": encodePNG(t, gradient(640, 400)),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	goRun := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	goRun("run", oapiCodegen, "-generate", "types,client", "-package", "main", "-o", "client.gen.go", "openapi.yaml")
	goRun("mod", "tidy")
	goRun("vet", ".")
	goRun("build", "-o", "clientcheck", ".")

	cmd := exec.CommandContext(ctx, filepath.Join(dir, "clientcheck"), "-server", e.url, "-username", "alice",
		"-password", testPassword, "-photo", filepath.Join(dir, "photo.jpg"), "-background", filepath.Join(dir, "backdrop.png"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the generated client's run failed: %v\n%s", err, stderr.String())
	}
	var got struct {
		Me                string   `json:"me"`
		ContentName       string   `json:"contentName"`
		ContentWidth      int      `json:"contentWidth"`
		Processors        int      `json:"configurationProcessors"`
		Cost              int      `json:"configurationCost"`
		ResultType        string   `json:"resultType"`
		Result            []byte   `json:"result"`
		JobID             string   `json:"jobId"`
		JobStatus         string   `json:"jobStatus"`
		JobFormat         *string  `json:"jobFormat"`
		JobWarnings       []string `json:"jobWarnings"`
		WarningsHeader    string   `json:"warningsHeader"`
		MissingConfigCode string   `json:"missingConfigurationCode"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("clientcheck printed %q: %v", out, err)
	}
	if got.Me != "acme/alice" || got.ContentName != "clientBackdrop" || got.ContentWidth != 640 ||
		got.Processors != 2 || got.Cost != 1 || got.JobStatus != "succeeded" || got.MissingConfigCode != showroom.EConfigNotFound {
		t.Errorf("the generated client saw %+v", got)
	}
	if got.JobFormat == nil || *got.JobFormat != "png" {
		t.Errorf("the job's format through the client: %v, want png", got.JobFormat)
	}
	// Which warnings the model's answer on the drawn car earns is not
	// the point: the client reads them typed, and the header agrees.
	if got.JobWarnings == nil || strings.Join(got.JobWarnings, ",") != got.WarningsHeader {
		t.Errorf("the job's warnings through the client %q, the result's header %q: want the same codes", got.JobWarnings, got.WarningsHeader)
	}
	if got.ResultType != "image/png" {
		t.Errorf("result type %q, want image/png", got.ResultType)
	}
	if img, err := png.Decode(bytes.NewReader(got.Result)); err != nil {
		t.Errorf("the result through the client is not a PNG: %v", err)
	} else if w := img.Bounds().Dx(); w != 320 {
		t.Errorf("result %d pixels wide; the configuration's outputWidth is 320", w)
	}
	// What the client made is on the server.
	auth := map[string]string{"Authorization": "Bearer " + e.login("alice").AccessToken}
	var config struct {
		Cost           int `json:"cost"`
		Configurations []struct {
			ProcessorName string `json:"processorName"`
			Background    string `json:"background"`
		} `json:"configurations"`
	}
	e.do("GET", "/v1/configuration/clientStudio", nil, auth).wantStatus(200).decode(&config)
	if len(config.Configurations) != 2 || config.Configurations[1].Background != "clientBackdrop" {
		t.Errorf("the saved configuration: %+v", config)
	}
	e.do("GET", "/v1/process/jobs/"+got.JobID, nil, auth).wantStatus(200)
}

func writeFiles(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func encodeJPEG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// gradient is a plain backdrop: light at the bottom, darker towards the top.
func gradient(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		v := uint8(120 + 100*y/h)
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{v, v, v + 10, 255})
		}
	}
	return img
}
