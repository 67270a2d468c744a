package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// writeFiles writes name -> content into dir.
func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExpandPhotos: from a folder only photos are taken, by extension and
// by their bytes; masks, hidden files, other files and this configuration's
// results are skipped and counted. A file named on its own is taken unless
// it is a mask, hidden or a result.
func TestExpandPhotos(t *testing.T) {
	dir := t.TempDir()
	jpg, png := plainJPEG(t, 8, 8), tinyPNG(t, 8, 8)
	writeFiles(t, dir, map[string][]byte{
		"car.jpg":                 jpg,
		"van.PNG":                 png,
		"car.mask.png":            png,
		"van.windows.png":         png,
		".car.jpg":                jpg,
		"._van.jpg":               []byte("AppleDouble"),
		"notes.txt":               []byte("not a photo"),
		"fake.jpg":                []byte("<html>not a photo</html>"),
		"truck.default_white.jpg": jpg, // a result of an earlier run into this folder
		"truck.free_cutout.png":   png, // another configuration's result: a photo to this one
	})
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	writeFiles(t, filepath.Join(dir, "sub"), map[string][]byte{"deep.jpg": jpg})

	photos, skipped, err := expandPhotos([]string{dir}, "default_white")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range photos {
		names = append(names, filepath.Base(p))
	}
	if want := []string{"car.jpg", "truck.free_cutout.png", "van.PNG"}; !slices.Equal(names, want) {
		t.Errorf("photos %v, want %v", names, want)
	}
	if want := (skipCounts{masks: 2, hidden: 2, notPhotos: 2, results: 1}); skipped != want {
		t.Errorf("skipped %+v, want %+v", skipped, want)
	}
	if got, want := skipped.String(), "skipped 7: 2 masks, 2 hidden, 2 not photos, 1 result of this configuration"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := (skipCounts{masks: 2, hidden: 1}).String(); got != "skipped 3: 2 masks, 1 hidden" {
		t.Errorf("summary %q", got)
	}

	// Named on their own: a non-photo is taken (and will fail with its
	// reason), a mask or a hidden file is not.
	photos, skipped, err = expandPhotos([]string{filepath.Join(dir, "fake.jpg"), filepath.Join(dir, "car.mask.png"), filepath.Join(dir, ".car.jpg")}, "default_white")
	if err != nil || len(photos) != 1 || filepath.Base(photos[0]) != "fake.jpg" || skipped != (skipCounts{masks: 1, hidden: 1}) {
		t.Errorf("named files: %v %+v %v", photos, skipped, err)
	}

	// Two photos whose results would have one name.
	writeFiles(t, dir, map[string][]byte{"car.png": png})
	if _, _, err := expandPhotos([]string{dir}, "default_white"); err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), "same result file") {
		t.Errorf("car.jpg and car.png: %v", err)
	}
	if _, _, err := expandPhotos([]string{filepath.Join(dir, "nope")}, "default_white"); err == nil {
		t.Error("a missing file: no error")
	}
}

// TestResultNames: the result's name carries the configuration, so that a
// run with another configuration does not find this one's results.
func TestResultNames(t *testing.T) {
	out := t.TempDir()
	if got, want := resultPath(out, "photos/car.jpeg", "default_white", ".jpg"), filepath.Join(out, "car.default_white.jpg"); got != want {
		t.Errorf("result path %q, want %q", got, want)
	}
	writeFiles(t, out, map[string][]byte{"car.default_white.jpg": nil})
	for _, tc := range []struct {
		config, format string
		found          bool
	}{
		{"default_white", "", true},
		{"default_white", "jpeg", true},
		{"default_white", "png", false},
		{"free_cutout", "", false},
	} {
		if got := existingResult(out, "photos/car.jpg", tc.config, tc.format) != ""; got != tc.found {
			t.Errorf("%s %q: found %v, want %v", tc.config, tc.format, got, tc.found)
		}
	}
	if _, _, err := run(t, nil, "", "process", "--config", "../x", out); err == nil || exitCode(err) != 2 {
		t.Errorf("a configuration name with a path in it: %v", err)
	}
}

// TestRate: the rate counts finished photos over the time since the first
// started, and is not shown from under a second.
func TestRate(t *testing.T) {
	for _, tc := range []struct {
		n, total int
		elapsed  time.Duration
		want     string
	}{
		{0, 10, time.Minute, ""},
		{1, 10, time.Millisecond, ""}, // a photo that failed at once
		{5, 10, 900 * time.Millisecond, ""},
		{2, 10, time.Second, "2.0 photos/s, about 4s left"},
		{30, 100, 2 * time.Second, "15 photos/s, about 5s left"},
		{3, 10, 6 * time.Second, "2.0 s/photo, about 14s left"},
		{1, 1, 3500 * time.Millisecond, "3.5 s/photo"},
	} {
		if got := rate(tc.n, tc.total, tc.elapsed); got != tc.want {
			t.Errorf("rate(%d, %d, %s) = %q, want %q", tc.n, tc.total, tc.elapsed, got, tc.want)
		}
	}
}

// TestProcessFolder runs a folder through the model: only the photo is
// processed, the rest said in the summary; the result is named after the
// configuration, so that another configuration's run processes the photo
// again while the same one's does not.
func TestProcessFolder(t *testing.T) {
	requireModel(t, "u2netp")
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	writeFiles(t, dir, map[string][]byte{
		"car.jpg":      drawnCarJPEG(t),
		"car.mask.png": tinyPNG(t, 8, 8),
		".car.jpg":     drawnCarJPEG(t),
		"notes.txt":    []byte("shot on a Tuesday"),
	})
	env := map[string]string{"SHOWROOM_MODEL": "u2netp", "SHOWROOM_DATA_DIR": t.TempDir()}
	stdout, stderr, err := run(t, env, "", "process", "--config", "free_cutout", "--out", out, dir)
	if err != nil {
		t.Fatalf("%v\n%s\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stderr, "loading the model (u2netp)…") || !strings.Contains(stderr, "model loaded in") {
		t.Errorf("no loading line: stderr %q", stderr)
	}
	for _, want := range []string{"[1/1] " + filepath.Join(dir, "car.jpg") + " ok", "1 done, 0 already done", "skipped 3: 1 mask, 1 hidden, 1 not a photo"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "car.free_cutout.png")); err != nil {
		t.Errorf("result: %v", err)
	}

	stdout, _, err = run(t, env, "", "process", "--config", "free_cutout", "--out", out, dir)
	if err != nil || !strings.Contains(stdout, "0 done, 1 already done") {
		t.Errorf("the same configuration again: %v\n%s", err, stdout)
	}
	stdout, _, err = run(t, env, "", "process", "--config", "default_white", "--out", out, dir)
	if err != nil || !strings.Contains(stdout, "1 done, 0 already done") {
		t.Errorf("another configuration: %v\n%s", err, stdout)
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"car.default_white.jpg", "car.free_cutout.png"}; !slices.Equal(names, want) {
		t.Errorf("results %v, want %v", names, want)
	}
}

// TestProcessWarnings: a photo whose result has warnings is listed as one
// to check, on its progress line and in the batch's summary; a clean one
// is only "ok".
func TestProcessWarnings(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeFiles(t, dir, map[string][]byte{"cut.jpg": []byte("cut"), "clean.jpg": []byte("clean")})
	run := func(ctx context.Context, photo []byte) (photoResult, error) {
		res := photoResult{image: []byte("result"), mediaType: "image/png"}
		if string(photo) == "cut" {
			res.warnings = []string{showroom.WarnCarCutByFrame, showroom.WarnTilted}
		}
		return res, nil
	}
	var stdout bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: io.Discard}
	o := processOptions{config: "default_white", out: out, jobs: 1}
	cut, clean := filepath.Join(dir, "cut.jpg"), filepath.Join(dir, "clean.jpg")
	if err := m.batch(context.Background(), o, []string{cut, clean}, skipCounts{}, run); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		cut + " ok (check: CAR_CUT_BY_FRAME, TILTED)",
		clean + " ok\n",
		"2 done, 0 already done",
		"  check: " + cut + ": CAR_CUT_BY_FRAME, TILTED\n",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "check: "+clean) {
		t.Errorf("the clean photo is listed to check:\n%s", stdout.String())
	}
}
