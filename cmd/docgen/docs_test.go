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
