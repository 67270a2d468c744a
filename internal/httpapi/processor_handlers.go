package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/showroom/showroom/internal/catalog"
)

// processorRecord is a processor of the catalog as GET /v1/processors shows
// it; lists are never null.
type processorRecord struct {
	catalog.Processor
	Requires []string        `json:"requires"`
	Params   []catalog.Param `json:"parameters"`
}

// processors answers the catalog: the same data the validator checks
// configurations against. The catalog does not change while the process
// runs, so its answer is encoded once.
func (h *libraryHandlers) processors(w http.ResponseWriter, r *http.Request) error {
	body := h.processorsJSON()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	return nil
}

// encodeProcessors encodes the catalog as GET /v1/processors answers it.
func encodeProcessors() []byte {
	cat := catalog.Catalog()
	out := make([]processorRecord, len(cat))
	for i, p := range cat {
		out[i] = processorRecord{Processor: p, Requires: append([]string{}, p.Requires...), Params: append([]catalog.Param{}, p.Params...)}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		panic(err) // static data
	}
	return b.Bytes()
}
