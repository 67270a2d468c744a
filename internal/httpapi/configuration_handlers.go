package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/showroom"
)

// maxConfigurationBody bounds a configuration body: 32 processors with
// their parameters and presentation data in several languages fit easily.
const maxConfigurationBody = 256 << 10

// configurationRecord is a configuration as the API shows it, with the
// contract's field names.
type configurationRecord struct {
	Company           string                   `json:"company"`
	Name              string                   `json:"name"`
	ConfigurationType string                   `json:"configurationType"`
	Configurations    json.RawMessage          `json:"-"` // see libraryHandlers.writeConfigurations
	Cost              int                      `json:"cost"`
	CreatedDate       int64                    `json:"createdDate"`
	LastModifiedDate  int64                    `json:"lastModifiedDate"`
	CreatedBy         string                   `json:"createdBy"`
	LastModifiedBy    string                   `json:"lastModifiedBy"`
	UIConfiguration   showroom.UIConfiguration `json:"uiConfiguration"`
}

func (h *libraryHandlers) configurationRecord(r *http.Request, c *showroom.Configuration) configurationRecord {
	ui := c.UI
	if ui.NameDescriptions == nil {
		ui.NameDescriptions = map[string]showroom.NameDescription{}
	}
	// Predefined thumbnails and the neutral one are served without a token;
	// a company's own thumbnail is its content.
	switch {
	case c.Company == catalog.SystemCompany:
		ui.ThumbnailFullPath = "FULLPATH:" + h.baseURL(r) + "/v1/predefined/thumbnails/" + url.PathEscape(ui.Thumbnail) + ".png"
	case ui.Thumbnail != "":
		ui.ThumbnailFullPath = "FULLPATH:" + h.baseURL(r) + "/v1/content/" + url.PathEscape(ui.Thumbnail)
	default:
		ui.ThumbnailFullPath = "FULLPATH:" + h.baseURL(r) + "/v1/predefined/thumbnails/" + catalog.CustomThumbnail + ".png"
	}
	return configurationRecord{
		Company: c.Company, Name: c.Name, ConfigurationType: c.Type, Configurations: c.Processors, Cost: c.Cost,
		CreatedDate: c.CreatedAt.UnixMilli(), LastModifiedDate: c.UpdatedAt.UnixMilli(),
		CreatedBy: c.CreatedBy, LastModifiedBy: c.UpdatedBy, UIConfiguration: ui,
	}
}

// maxPooledBuffer is the largest buffer kept for the next answer: a list of
// a few hundred configurations.
const maxPooledBuffer = 1 << 20

// writeConfigurations writes one record, or with list set an array of
// them, as JSON. Each record's processors are written as they are:
// encoding/json would check and compact every byte of them again, a sixth
// of a configuration list's CPU, though they were checked as JSON when the
// configuration was saved (the predefined ones are made by the pipeline).
func (h *libraryHandlers) writeConfigurations(w http.ResponseWriter, status int, list bool, records ...configurationRecord) {
	b := h.buffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxPooledBuffer {
			h.buffers.Put(b)
		}
	}()
	b.Reset()
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if list {
		b.WriteByte('[')
	}
	for i, rec := range records {
		if i > 0 {
			b.WriteByte(',')
		}
		enc.Encode(rec)
		b.Truncate(b.Len() - len("}\n")) // reopen the object
		b.WriteString(`,"configurations":`)
		if len(rec.Configurations) == 0 {
			b.WriteString("null")
		}
		b.Write(rec.Configurations)
		b.WriteByte('}')
	}
	if list {
		b.WriteByte(']')
	}
	b.WriteByte('\n')
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

func (h *libraryHandlers) listConfigurations(w http.ResponseWriter, r *http.Request) error {
	list, err := h.lib.ListConfigurations(r.Context())
	if err != nil {
		return err
	}
	out := make([]configurationRecord, len(list))
	for i, c := range list {
		out[i] = h.configurationRecord(r, c)
	}
	h.writeConfigurations(w, http.StatusOK, true, out...)
	return nil
}

func (h *libraryHandlers) getConfiguration(w http.ResponseWriter, r *http.Request) error {
	c, err := h.lib.Configuration(r.Context(), r.PathValue("configurationName"))
	if err != nil {
		return err
	}
	h.writeConfigurations(w, http.StatusOK, false, h.configurationRecord(r, c))
	return nil
}

func (h *libraryHandlers) saveConfiguration(w http.ResponseWriter, r *http.Request) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := readBody(w, r, maxConfigurationBody)
	if err != nil {
		return err
	}
	c, created, err := h.lib.SaveConfiguration(r.Context(), r.PathValue("configurationName"), body)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/configuration/"+url.PathEscape(c.Name))
	}
	h.writeConfigurations(w, status, false, h.configurationRecord(r, c))
	return nil
}

func (h *libraryHandlers) deleteConfiguration(w http.ResponseWriter, r *http.Request) error {
	if err := h.lib.DeleteConfiguration(r.Context(), r.PathValue("configurationName")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (h *libraryHandlers) thumbnail(w http.ResponseWriter, r *http.Request) error {
	name, ok := strings.CutSuffix(r.PathValue("file"), ".png")
	b, found := h.lib.Thumbnail(name)
	if !ok || !found {
		return showroom.Errorf(showroom.ENotFound, "no thumbnail %q", r.PathValue("file"))
	}
	w.Header().Set("Content-Type", codec.PNG.MediaType())
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write(b)
	return nil
}
