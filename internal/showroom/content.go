package showroom

import (
	"context"
	"time"
)

// Content types: what an uploaded image is for. Processors name the types
// they accept (a background processor wants ContentBackground).
const (
	ContentBackground = "BACKGROUND_SIMPLE"
	ContentThumbnail  = "THUMBNAIL"
	ContentPoster     = "POSTER"
)

// ContentTypes lists every content type, in the order the docs show them.
var ContentTypes = []string{ContentBackground, ContentThumbnail, ContentPoster}

// ParseContentType returns the canonical content type for s. The contract's
// own example uses BACKGROUND_SINGLE, so that is accepted as an alias of
// BACKGROUND_SIMPLE; the stored and returned type is always the canonical
// one.
func ParseContentType(s string) (string, bool) {
	switch s {
	case ContentBackground, ContentThumbnail, ContentPoster:
		return s, true
	case "BACKGROUND_SINGLE":
		return ContentBackground, true
	}
	return "", false
}

// Content is an image a company uploaded for processors to use, for example
// a background. The bytes live in a blob store under BlobKey; the record is
// written only after the blob is safely stored.
type Content struct {
	CompanyID int64
	Company   string // the company's name, filled in on reads
	Name      string
	Type      string // one of ContentTypes
	MediaType string // image/jpeg, image/png or image/webp, from the bytes
	Width     int
	Height    int
	Size      int64
	// SHA256 is the hex digest of the bytes; it is the ETag.
	SHA256    string
	BlobKey   string
	CreatedAt time.Time
	UpdatedAt time.Time
	CreatedBy string
	UpdatedBy string
}

// ContentStore keeps content records. Names are unique within a company;
// another company's content is reported exactly like missing content
// (EContentNotFound), so that nothing leaks across companies.
type ContentStore interface {
	// PutContent creates c, or replaces the company's content of the same
	// name, keeping its CreatedAt and CreatedBy (which it writes back into
	// c). It returns the replaced record, nil when c is new, so the caller
	// can delete the old blob.
	PutContent(ctx context.Context, c *Content) (old *Content, err error)
	FindContent(ctx context.Context, companyID int64, name string) (*Content, error)
	// ListContent returns the company's content sorted by name.
	ListContent(ctx context.Context, companyID int64) ([]*Content, error)
	// DeleteContent removes the record and returns it, so the caller can
	// delete its blob. Content a configuration of the company uses is not
	// deleted: EContentInUse.
	DeleteContent(ctx context.Context, companyID int64, name string) (*Content, error)
}
