package pipeline

import (
	"testing"

	"github.com/showroom/showroom/internal/catalog"
)

// TestEveryProcessorBuilds: every processor of the catalog has a step that
// takes its typed parameters (the only parameters a step reads: the
// catalog's tests check that they are the declared ones).
func TestEveryProcessorBuilds(t *testing.T) {
	for _, proc := range catalog.Catalog() {
		s := catalog.Step{"processorName": proc.Name}
		for _, param := range proc.Params {
			if param.Required {
				s[param.Name] = "someContent"
			}
		}
		p, err := catalog.ParseStep(s)
		if err != nil {
			t.Fatalf("%s: %v", proc.Name, err)
		}
		if st, err := build(p); err != nil || st == nil {
			t.Errorf("%s: no step (%v)", proc.Name, err)
		}
	}
}
