package gallery

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/showroom/showroom/internal/pipeline"
)

// TestConfigurationsAreValid: every sheet of the gallery is a
// configuration the service would accept.
func TestConfigurationsAreValid(t *testing.T) {
	for _, c := range Configurations() {
		var elems []any
		if err := json.Unmarshal(c.Processors, &elems); err != nil {
			t.Fatal(err)
		}
		if ds, err := pipeline.Validate(context.Background(), elems, nil); err != nil || ds != nil {
			t.Errorf("%s: %v %v", c.Name, ds, err)
		}
	}
}
