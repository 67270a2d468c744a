package showroom

import (
	"context"
	"encoding/json"
	"strings"
	"time"
)

// Configuration types: what kind of photo a configuration is meant for.
const (
	ConfigExterior = "EXTERIOR"
	ConfigInterior = "INTERIOR"
	ConfigDetail   = "DETAIL"
)

// ConfigurationTypes lists every configuration type; EXTERIOR is the default.
var ConfigurationTypes = []string{ConfigExterior, ConfigInterior, ConfigDetail}

// ReservedPrefixes begin the names of predefined configurations; no company
// may save a configuration under such a name.
var ReservedPrefixes = []string{"default_", "free_"}

// ReservedName reports whether name begins with a reserved prefix. It is
// checked before ValidName, because a reserved name such as default_white
// would otherwise fail the character rule first and get the wrong error.
func ReservedName(name string) bool {
	for _, p := range ReservedPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Configuration is a named, ordered list of processors that a company (or
// the system, for predefined ones) saved.
type Configuration struct {
	CompanyID int64
	Company   string // the owning company's name; "system" for predefined ones
	Name      string
	Type      string // one of ConfigurationTypes
	// Processors is the JSON array of processor objects, as accepted (after
	// validation against the pipeline's catalog).
	Processors json.RawMessage
	Cost       int
	UI         UIConfiguration
	// ContentRefs names the company's content the processors use; such
	// content cannot be deleted while the configuration exists.
	ContentRefs []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CreatedBy   string
	UpdatedBy   string
}

// UIConfiguration is a configuration's presentation data, with the
// contract's field names.
type UIConfiguration struct {
	Thumbnail         string                     `json:"thumbnail"`
	NameDescriptions  map[string]NameDescription `json:"nameDescriptions"`
	ThumbnailFullPath string                     `json:"thumbnailFullPath"`
}

// NameDescription is a configuration's name and description in one language.
type NameDescription struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// ConfigurationStore keeps companies' configurations (predefined ones live
// in code). Another company's configuration is reported exactly like a
// missing one (EConfigNotFound).
type ConfigurationStore interface {
	// PutConfiguration creates c or overwrites the company's configuration of
	// the same name, keeping its CreatedAt and CreatedBy (written back into
	// c). It reports whether c was created. Every name in c.ContentRefs must
	// be the company's content, else EContentNotFound and nothing is saved.
	PutConfiguration(ctx context.Context, c *Configuration) (created bool, err error)
	FindConfiguration(ctx context.Context, companyID int64, name string) (*Configuration, error)
	// ListConfigurations returns the company's configurations sorted by name.
	ListConfigurations(ctx context.Context, companyID int64) ([]*Configuration, error)
	DeleteConfiguration(ctx context.Context, companyID int64, name string) error
}
