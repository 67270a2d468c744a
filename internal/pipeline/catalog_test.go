package pipeline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/showroom/showroom/internal/catalog"
)

// TestGalleryConfigurationsAreValid: the gallery's configurations, which
// hold the predefined ones, pass the catalog's validation.
func TestGalleryConfigurationsAreValid(t *testing.T) {
	for _, c := range GalleryConfigurations() {
		var elems []any
		if err := json.Unmarshal(c.Processors, &elems); err != nil {
			t.Fatal(err)
		}
		if ds, err := catalog.Validate(context.Background(), elems, nil); err != nil || ds != nil {
			t.Errorf("%s: %v %v", c.Name, ds, err)
		}
	}
}
