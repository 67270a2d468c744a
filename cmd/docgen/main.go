// Command docgen writes docs/processors.md and its pictures from the
// processor catalog, docs/framing.md and its pictures, and the pictures of
// docs/glass-and-shadow.md, rendered on the drawn cars: go generate
// ./internal/pipeline runs it.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	out := flag.String("out", "docs", "docs folder")
	flag.Parse()
	for _, doc := range []struct {
		name string
		gen  func() ([]byte, map[string][]byte, error)
	}{{"processors", ProcessorDocs}, {"framing", FramingDocs}, {"glass-and-shadow", glassPictures}} {
		md, pictures, err := doc.gen()
		if err == nil {
			err = writeDoc(*out, doc.name, md, pictures)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
	}
}

// glassPictures is GlassDocs as a page whose text is written by hand.
func glassPictures() ([]byte, map[string][]byte, error) {
	pictures, err := GlassDocs()
	return nil, pictures, err
}

// writeDoc writes NAME.md, unless md is nil, into dir and its pictures
// into dir/NAME/.
func writeDoc(dir, name string, md []byte, pictures map[string][]byte) error {
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		return err
	}
	for file, b := range pictures {
		if err := os.WriteFile(filepath.Join(dir, name, file), b, 0o644); err != nil {
			return err
		}
	}
	if md == nil {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, name+".md"), md, 0o644)
}
