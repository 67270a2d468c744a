package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessorDocsAreFresh fails when docs/processors.md, docs/framing.md
// or their pictures differ from what the catalog and the renderer produce
// now.
func TestProcessorDocsAreFresh(t *testing.T) {
	for _, doc := range []struct {
		name string
		gen  func() ([]byte, map[string][]byte, error)
	}{{"processors", ProcessorDocs}, {"framing", FramingDocs}} {
		md, pictures, err := doc.gen()
		if err != nil {
			t.Fatal(err)
		}
		const fix = "; run `go generate ./internal/pipeline` and commit docs/"
		got, err := os.ReadFile("../../docs/" + doc.name + ".md")
		if err != nil {
			t.Fatal(err.Error() + fix)
		}
		if !bytes.Equal(got, md) {
			t.Fatalf("docs/%s.md is stale%s", doc.name, fix)
		}
		for name, want := range pictures {
			got, err := os.ReadFile(filepath.Join("../../docs", doc.name, name))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("docs/%s/%s is stale%s", doc.name, name, fix)
			}
		}
	}
}

// TestGlassDocsAreFresh fails when the pictures of docs/glass-and-shadow.md
// drawn from the synthetic car (GlassDocs) are stale.
func TestGlassDocsAreFresh(t *testing.T) {
	pictures, err := GlassDocs()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range pictures {
		got, err := os.ReadFile(filepath.Join("../../docs/glass-and-shadow", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("docs/glass-and-shadow/%s is stale; run `go generate ./internal/pipeline` and commit docs/", name)
		}
	}
}

// TestDocsPicturesAreDrawn fails when docs/ holds a picture that no
// generator draws from a made-up car. The test photos' licences
// (../shared/testdata/*/SOURCES.md) forbid copying them, or pictures made
// from them, into the project or its docs, so every picture there comes
// from this command (processors, framing, glass), the console's browser
// test (docs/console*.png, photos the test draws) or vision's cleanup
// figures (docs/cleanup-*.png, drawn saliency maps).
func TestDocsPicturesAreDrawn(t *testing.T) {
	drawn := map[string]bool{
		// Drawn once from the synthetic car by the old glass renderer,
		// which can no longer draw it (docs/glass-and-shadow.md).
		"glass-and-shadow/tint-before.png": true,
	}
	for _, doc := range []struct {
		dir string
		gen func() ([]byte, map[string][]byte, error)
	}{{"processors", ProcessorDocs}, {"framing", FramingDocs}} {
		_, pictures, err := doc.gen()
		if err != nil {
			t.Fatal(err)
		}
		for name := range pictures {
			drawn[doc.dir+"/"+name] = true
		}
	}
	glass, err := GlassDocs()
	if err != nil {
		t.Fatal(err)
	}
	for name := range glass {
		drawn["glass-and-shadow/"+name] = true
	}
	err = filepath.WalkDir("../../docs", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("../../docs", path)
		rel = filepath.ToSlash(rel)
		switch ext := strings.ToLower(filepath.Ext(rel)); {
		case ext != ".png" && ext != ".jpg" && ext != ".jpeg" && ext != ".webp":
		case drawn[rel]:
		case !strings.Contains(rel, "/") && (strings.HasPrefix(rel, "console") || strings.HasPrefix(rel, "cleanup-")):
		default:
			t.Errorf("docs/%s is drawn by no generator; a picture made from a test photo must not be shipped (their licences forbid it)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
