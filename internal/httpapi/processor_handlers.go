package httpapi

import (
	"net/http"

	"github.com/showroom/showroom/internal/pipeline"
)

// processorRecord is a processor of the catalog as GET /v1/processors shows
// it; lists are never null.
type processorRecord struct {
	pipeline.Processor
	Requires []string         `json:"requires"`
	Params   []pipeline.Param `json:"parameters"`
}

// processors answers the catalog: the same data the validator checks
// configurations against.
func (h *libraryHandlers) processors(w http.ResponseWriter, r *http.Request) error {
	cat := pipeline.Catalog()
	out := make([]processorRecord, len(cat))
	for i, p := range cat {
		out[i] = processorRecord{Processor: p, Requires: append([]string{}, p.Requires...), Params: append([]pipeline.Param{}, p.Params...)}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
