package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProcessorDocsAreFresh fails when docs/processors.md or its pictures
// differ from what the catalog and the renderer produce now.
func TestProcessorDocsAreFresh(t *testing.T) {
	md, pictures, err := ProcessorDocs()
	if err != nil {
		t.Fatal(err)
	}
	const fix = "; run `go generate ./internal/pipeline` and commit docs/"
	got, err := os.ReadFile("../../docs/processors.md")
	if err != nil {
		t.Fatal(err.Error() + fix)
	}
	if !bytes.Equal(got, md) {
		t.Fatal("docs/processors.md is stale" + fix)
	}
	for name, want := range pictures {
		got, err := os.ReadFile(filepath.Join("../../docs/processors", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("docs/processors/%s is stale%s", name, fix)
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
