package httpapi

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/showroom"
)

// Library keeps each company's content and configurations by the rules of
// the contract: what the content and configuration endpoints ask of it.
type Library interface {
	// Config returns the upload limits.
	Config() library.Config
	// The rest act for the company and the caller in ctx
	// (showroom.CompanyFromContext, showroom.PrincipalFromContext).
	Upload(ctx context.Context, name, contentType string, body []byte) (c *showroom.Content, created bool, err error)
	ListContent(ctx context.Context) ([]*showroom.Content, error)
	OpenContent(ctx context.Context, name string) (*showroom.Content, io.ReadCloser, error)
	DeleteContent(ctx context.Context, name string) error
	SaveConfiguration(ctx context.Context, name string, body []byte) (*showroom.Configuration, bool, error)
	ListConfigurations(ctx context.Context) ([]*showroom.Configuration, error)
	Configuration(ctx context.Context, name string) (*showroom.Configuration, error)
	DeleteConfiguration(ctx context.Context, name string) error
	// Thumbnail returns a predefined configuration's thumbnail by its file
	// name.
	Thumbnail(name string) ([]byte, bool)
}

// libraryHandlers serve content, configurations, the processor catalog and
// the predefined configurations' thumbnails.
type libraryHandlers struct {
	lib            Library
	publicURL      string
	processorsJSON func() []byte
	// buffers recycles writeConfigurations' buffers: growing a fresh one
	// to a list's size cost more than the checking it saves.
	buffers sync.Pool
}

// EnableLibrary adds the content, configuration, processor catalog and
// predefined-thumbnail endpoints to the API.
func (s *APIServer) EnableLibrary(lib Library) {
	h := &libraryHandlers{lib: lib, publicURL: strings.TrimSuffix(s.cfg.PublicURL, "/"),
		processorsJSON: sync.OnceValue(encodeProcessors), buffers: sync.Pool{New: func() any { return new(bytes.Buffer) }}}
	s.rt.handle("POST", "/v1/content/upload/{contentName}/{contentType}", s.authed(h.upload))
	s.rt.handle("GET", "/v1/content/{$}", s.authed(h.listContent))
	s.rt.handle("GET", "/v1/content/{contentName}", s.authed(h.getContent))
	s.rt.handle("DELETE", "/v1/content/{contentName}", s.authed(h.deleteContent))
	s.rt.handle("GET", "/v1/configuration/{$}", s.authed(h.listConfigurations))
	s.rt.handle("GET", "/v1/configuration/{configurationName}", s.authed(h.getConfiguration))
	s.rt.handle("POST", "/v1/configuration/{configurationName}", s.authed(h.saveConfiguration))
	s.rt.handle("DELETE", "/v1/configuration/{configurationName}", s.authed(h.deleteConfiguration))
	s.rt.handle("GET", "/v1/processors", s.verified(h.processors))
	s.rt.handle("GET", "/v1/predefined/thumbnails/{file}", h.thumbnail)
}

// baseURL is the absolute URL of the API's root, for the FULLPATH: links:
// the configured public URL, else the request's own scheme and host.
func (h *libraryHandlers) baseURL(r *http.Request) string {
	if h.publicURL != "" {
		return h.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// contentRecord is a content record as the API shows it.
type contentRecord struct {
	Company          string `json:"company"`
	ContentName      string `json:"contentName"`
	ContentType      string `json:"contentType"`
	MediaType        string `json:"mediaType"`
	Width            int    `json:"width"`
	Height           int    `json:"height"`
	Size             int64  `json:"size"`
	CreatedDate      int64  `json:"createdDate"`
	LastModifiedDate int64  `json:"lastModifiedDate"`
	CreatedBy        string `json:"createdBy"`
	LastModifiedBy   string `json:"lastModifiedBy"`
	FullPath         string `json:"fullPath"`
}

func (h *libraryHandlers) contentRecord(r *http.Request, c *showroom.Content) contentRecord {
	return contentRecord{
		Company: c.Company, ContentName: c.Name, ContentType: c.Type, MediaType: c.MediaType,
		Width: c.Width, Height: c.Height, Size: c.Size,
		CreatedDate: c.CreatedAt.UnixMilli(), LastModifiedDate: c.UpdatedAt.UnixMilli(),
		CreatedBy: c.CreatedBy, LastModifiedBy: c.UpdatedBy,
		FullPath: "FULLPATH:" + h.baseURL(r) + "/v1/content/" + url.PathEscape(c.Name),
	}
}

func (h *libraryHandlers) upload(w http.ResponseWriter, r *http.Request) error {
	// The Content-Type header is not consulted: the bytes say what they are.
	body, err := readBody(w, r, h.lib.Config().MaxUploadBytes)
	if err != nil {
		return err
	}
	c, created, err := h.lib.Upload(r.Context(), r.PathValue("contentName"), r.PathValue("contentType"), body)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/content/"+url.PathEscape(c.Name))
	}
	writeJSON(w, status, h.contentRecord(r, c))
	return nil
}

func (h *libraryHandlers) listContent(w http.ResponseWriter, r *http.Request) error {
	list, err := h.lib.ListContent(r.Context())
	if err != nil {
		return err
	}
	out := make([]contentRecord, len(list))
	for i, c := range list {
		out[i] = h.contentRecord(r, c)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *libraryHandlers) getContent(w http.ResponseWriter, r *http.Request) error {
	c, rc, err := h.lib.OpenContent(r.Context(), r.PathValue("contentName"))
	if err != nil {
		return err
	}
	defer rc.Close()
	etag := `"` + c.SHA256 + `"`
	hd := w.Header()
	hd.Set("ETag", etag)
	// Content can be replaced under the same name: caches must ask again.
	hd.Set("Cache-Control", "private, no-cache")
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	hd.Set("Content-Type", c.MediaType)
	hd.Set("Content-Length", strconv.FormatInt(c.Size, 10))
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, rc)
	}
	return nil
}

// etagMatches implements If-None-Match's weak comparison.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

func (h *libraryHandlers) deleteContent(w http.ResponseWriter, r *http.Request) error {
	if err := h.lib.DeleteContent(r.Context(), r.PathValue("contentName")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
