package library

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// builtinContent is content that ships with the system, kept in memory.
type builtinContent struct {
	rec   showroom.Content
	bytes []byte
}

func newBuiltin(name, typ string, w, h int, b []byte, at time.Time) *builtinContent {
	sum := sha256.Sum256(b)
	return &builtinContent{bytes: b, rec: showroom.Content{Company: catalog.SystemCompany, Name: name, Type: typ,
		MediaType: artMediaType, Width: w, Height: h, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:]),
		CreatedAt: at, UpdatedAt: at, CreatedBy: catalog.SystemCompany, UpdatedBy: catalog.SystemCompany}}
}

// contentNameError checks a content name from a path: built-in names are
// reserved (403), anything but 1-64 ASCII letters and digits is 422.
func (s *Service) contentNameError(name string) error {
	if _, ok := s.builtin[name]; ok {
		return showroom.Errorf(showroom.EReservedName, "%q is built-in content; choose another name", name)
	}
	if !showroom.ValidName(name) {
		return showroom.Errorf(showroom.EInvalidName,
			"content names are 1 to 64 ASCII letters and digits, without spaces, punctuation or national letters")
	}
	return nil
}

// Upload stores an image under name for the principal's company, or
// replaces the company's content of that name (created tells which). The
// blob is written first, under a fresh key, and the record after it: a
// record never points at a missing blob, and an upload that fails leaves
// the previous content as it was.
func (s *Service) Upload(ctx context.Context, name, contentType string, body []byte) (c *showroom.Content, created bool, err error) {
	if err := s.contentNameError(name); err != nil {
		return nil, false, err
	}
	typ, ok := showroom.ParseContentType(contentType)
	if !ok {
		return nil, false, showroom.Errorf(showroom.EInvalidName, "unknown content type %q; use one of %s",
			contentType, strings.Join(showroom.ContentTypes, ", "))
	}
	if int64(len(body)) > s.cfg.MaxUploadBytes {
		return nil, false, showroom.Errorf(showroom.EPayloadTooLarge, "the request body is larger than %d bytes", s.cfg.MaxUploadBytes)
	}
	info, err := s.inspect(ctx, body, typ)
	if err != nil {
		return nil, false, err
	}
	co, user, err := caller(ctx)
	if err != nil {
		return nil, false, err
	}
	sum := sha256.Sum256(body)
	key := blob.NewKey(fmt.Sprintf("content/%d", co.ID))
	if err := s.deps.Blobs.Put(ctx, key, bytes.NewReader(body)); err != nil {
		return nil, false, err
	}
	now := s.now().UTC()
	c = &showroom.Content{CompanyID: co.ID, Company: co.Name, Name: name, Type: typ, MediaType: info.mediaType,
		Width: info.width, Height: info.height, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]),
		BlobKey: key, CreatedAt: now, UpdatedAt: now, CreatedBy: user, UpdatedBy: user}
	old, err := s.deps.Content.PutContent(ctx, c)
	if err != nil {
		// Context-free: the blob must go even if the client went away.
		s.deps.Blobs.Delete(context.WithoutCancel(ctx), key)
		return nil, false, err
	}
	if old != nil {
		// An orphaned blob, should this fail, wastes space but breaks nothing.
		s.deps.Blobs.Delete(context.WithoutCancel(ctx), old.BlobKey)
	}
	return c, old == nil, nil
}

// ListContent returns the company's content and the built-in content,
// sorted by name.
func (s *Service) ListContent(ctx context.Context) ([]*showroom.Content, error) {
	co, err := company(ctx)
	if err != nil {
		return nil, err
	}
	own, err := s.deps.Content.ListContent(ctx, co.ID)
	if err != nil {
		return nil, err
	}
	for _, b := range s.builtin {
		rec := b.rec
		own = append(own, &rec)
	}
	slices.SortFunc(own, func(a, b *showroom.Content) int { return strings.Compare(a.Name, b.Name) })
	return own, nil
}

// Content returns the record of the company's (or built-in) content.
func (s *Service) Content(ctx context.Context, name string) (*showroom.Content, error) {
	if b, ok := s.builtin[name]; ok {
		rec := b.rec
		return &rec, nil
	}
	co, err := company(ctx)
	if err != nil {
		return nil, err
	}
	return s.deps.Content.FindContent(ctx, co.ID, name)
}

// OpenContent returns the record and the bytes of the company's (or
// built-in) content; the caller closes the reader.
func (s *Service) OpenContent(ctx context.Context, name string) (*showroom.Content, io.ReadCloser, error) {
	if b, ok := s.builtin[name]; ok {
		rec := b.rec
		return &rec, io.NopCloser(bytes.NewReader(b.bytes)), nil
	}
	c, err := s.Content(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	rc, err := s.deps.Blobs.Get(ctx, c.BlobKey)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil, showroom.Internal(fmt.Errorf("content %s of company %d: blob %s is missing", name, c.CompanyID, c.BlobKey))
	} else if err != nil {
		return nil, nil, err
	}
	return c, rc, nil
}

// DeleteContent removes the company's content, unless a configuration of
// the company uses it (409 CONTENT_IN_USE). Built-in content cannot be
// deleted (403 RESERVED_NAME).
func (s *Service) DeleteContent(ctx context.Context, name string) error {
	if _, ok := s.builtin[name]; ok {
		return showroom.Errorf(showroom.EReservedName, "%q is built-in content and cannot be deleted", name)
	}
	co, err := company(ctx)
	if err != nil {
		return err
	}
	c, err := s.deps.Content.DeleteContent(ctx, co.ID, name)
	if err != nil {
		return err
	}
	// The record is gone first, so no reader finds a record without bytes.
	s.deps.Blobs.Delete(context.WithoutCancel(ctx), c.BlobKey)
	return nil
}

// LoadContent decodes the company's (or built-in) content for the
// pipeline; it implements pipeline.ContentLoader. The company is the one
// in ctx, which the queue (or the CLI) put there for the run, as for every
// other call of the library: the pipeline names no company.
//
// Content that no longer decodes within the limits (uploaded before a
// check it would fail, or limits lowered since) is the client's to
// replace: INVALID_IMAGE naming it, which the queue does not retry.
func (s *Service) LoadContent(ctx context.Context, name string) (image.Image, error) {
	rec, rc, err := s.OpenContent(ctx, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	// Keyed by the bytes' digest and the type, which decides how they are
	// decoded.
	key := rec.SHA256 + "/" + rec.Type
	if img := s.decoded.get(key); img != nil {
		return img, nil
	}
	b, err := io.ReadAll(rc)
	if err != nil {
		return nil, err
	}
	img, err := s.decode(ctx, b, rec.Type)
	var e *showroom.Error
	if errors.As(err, &e) && (e.Code == showroom.EInvalidImage || e.Code == showroom.EPayloadTooLarge) {
		return nil, &showroom.Error{Code: showroom.EInvalidImage, Cause: err,
			Message: fmt.Sprintf("content %q cannot be used: %s; upload it again as a JPEG, PNG or WebP within the limits", name, e.Message)}
	} else if err != nil {
		return nil, err
	}
	s.decoded.put(key, img)
	return img, nil
}

// contentType is the validator's view of content: built-in first (its
// names are reserved, so no company has the same), then the company's.
func (s *Service) contentType(companyID int64) catalog.ContentLookup {
	return func(ctx context.Context, name string) (string, bool, error) {
		if b, ok := s.builtin[name]; ok {
			return b.rec.Type, true, nil
		}
		c, err := s.deps.Content.FindContent(ctx, companyID, name)
		if showroom.ErrorCode(err) == showroom.EContentNotFound {
			return "", false, nil
		} else if err != nil {
			return "", false, err
		}
		return c.Type, true, nil
	}
}
