package main

import (
	"bytes"
	"os"
	"path/filepath"
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
