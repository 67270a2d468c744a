// Command docgen writes docs/processors.md and its pictures from the
// processor catalog, rendered on the drawn car: go generate
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
	md, pictures, err := ProcessorDocs()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	dir := filepath.Join(*out, "processors")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for name, b := range pictures {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "docgen:", err)
			os.Exit(1)
		}
	}
	if err := os.WriteFile(filepath.Join(*out, "processors.md"), md, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
}
