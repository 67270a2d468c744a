package library

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/showroom"
)

// configNameError checks a configuration name from a path. Reserved
// prefixes come first: default_white breaks the character rule too, and
// must be told that it is reserved, not that it is malformed.
func configNameError(name string) error {
	if showroom.ReservedName(name) {
		return showroom.Errorf(showroom.EReservedName,
			"names beginning with %s are reserved for predefined configurations", strings.Join(showroom.ReservedPrefixes, " or "))
	}
	if !showroom.ValidName(name) {
		return showroom.Errorf(showroom.EInvalidName,
			"configuration names are 1 to 64 ASCII letters and digits, without spaces, punctuation or national letters")
	}
	return nil
}

// readOnlyFields are fields of a configuration record that a body may
// carry, so that a record from GET can be posted back after editing; they
// are ignored.
var readOnlyFields = []string{"company", "name", "cost", "createdDate", "lastModifiedDate", "createdBy", "lastModifiedBy"}

var langRE = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// Limits of presentation data.
const (
	maxNameLen        = 100
	maxDescriptionLen = 1000
	maxLanguages      = 50
)

// SaveConfiguration validates body (a JSON array of processor objects, or
// an object with configurations, configurationType and uiConfiguration) and
// saves it under name for the principal's company, overwriting a
// configuration of that name (created tells which). An array body keeps an
// overwritten configuration's type and presentation data.
func (s *Service) SaveConfiguration(ctx context.Context, name string, body []byte) (*showroom.Configuration, bool, error) {
	if err := configNameError(name); err != nil {
		return nil, false, err
	}
	doc, err := decodeBody(body)
	if err != nil {
		return nil, false, err
	}
	co, user, err := caller(ctx)
	if err != nil {
		return nil, false, err
	}
	old, err := s.deps.Configurations.FindConfiguration(ctx, co.ID, name)
	if err != nil && showroom.ErrorCode(err) != showroom.EConfigNotFound {
		return nil, false, err
	}

	var details []showroom.Detail
	add := func(ptr, problem string) { details = append(details, showroom.Detail{Pointer: ptr, Problem: problem}) }
	lookup := s.contentType(co.ID)
	cfg := &showroom.Configuration{CompanyID: co.ID, Company: co.Name, Name: name, Type: showroom.ConfigExterior,
		UI: showroom.UIConfiguration{NameDescriptions: map[string]showroom.NameDescription{}}}
	if old != nil {
		cfg.Type, cfg.UI = old.Type, old.UI
	}
	var rawSteps json.RawMessage
	prefix := ""
	switch v := doc.(type) {
	case []any:
		rawSteps = bytes.TrimSpace(body)
		ds, err := catalog.Validate(ctx, v, lookup)
		if err != nil {
			return nil, false, err
		}
		details = append(details, ds...)
	case map[string]any:
		prefix = "/configurations"
		var fields map[string]json.RawMessage
		json.Unmarshal(body, &fields) // decodeBody proved it is an object
		for _, k := range sortedKeys(v) {
			switch {
			case k == "configurations", k == "configurationType", k == "uiConfiguration", slices.Contains(readOnlyFields, k):
			default:
				add("/"+escapePointer(k), "unknown field")
			}
		}
		steps, ok := v["configurations"].([]any)
		if !ok {
			add("/configurations", "is required: an array of processor objects")
		} else {
			rawSteps = fields["configurations"]
			ds, err := catalog.Validate(ctx, steps, lookup)
			if err != nil {
				return nil, false, err
			}
			for _, d := range ds {
				add(prefix+d.Pointer, d.Problem)
			}
		}
		if t, present := v["configurationType"]; present {
			if ts, ok := t.(string); ok && slices.Contains(showroom.ConfigurationTypes, ts) {
				cfg.Type = ts
			} else {
				add("/configurationType", "must be one of "+strings.Join(showroom.ConfigurationTypes, ", "))
			}
		}
		if ui, present := v["uiConfiguration"]; present {
			uc, ds, err := s.checkUI(ctx, ui, lookup)
			if err != nil {
				return nil, false, err
			}
			details = append(details, ds...)
			cfg.UI = uc
		}
	default:
		return nil, false, &showroom.Error{Code: showroom.EInvalidConfig,
			Message: "the body must be a JSON array of processor objects, or an object with a configurations array",
			Details: []showroom.Detail{{Pointer: "", Problem: "must be an array or an object"}}}
	}
	if len(details) > 0 {
		return nil, false, &showroom.Error{Code: showroom.EInvalidConfig, Message: invalidMessage(details), Details: details}
	}

	var compact bytes.Buffer
	if err := json.Compact(&compact, rawSteps); err != nil {
		return nil, false, showroom.Internal(err)
	}
	cfg.Processors = compact.Bytes()
	parsed, err := catalog.Parse(cfg.Processors)
	if err != nil {
		return nil, false, showroom.Internal(err)
	}
	cfg.Cost = parsed.Cost()
	for _, n := range parsed.ContentRefs() {
		if _, builtin := s.builtin[n]; !builtin {
			cfg.ContentRefs = append(cfg.ContentRefs, n)
		}
	}
	if t := cfg.UI.Thumbnail; t != "" && !slices.Contains(cfg.ContentRefs, t) {
		cfg.ContentRefs = append(cfg.ContentRefs, t)
	}
	now := s.now().UTC()
	cfg.CreatedAt, cfg.UpdatedAt, cfg.CreatedBy, cfg.UpdatedBy = now, now, user, user
	created, err := s.deps.Configurations.PutConfiguration(ctx, cfg)
	if showroom.ErrorCode(err) == showroom.EContentNotFound {
		// Deleted since it was validated: say so as a validation error.
		var e *showroom.Error
		errors.As(err, &e)
		return nil, false, &showroom.Error{Code: showroom.EInvalidConfig, Message: e.Message,
			Details: []showroom.Detail{{Pointer: prefix, Problem: e.Message}}}
	} else if err != nil {
		return nil, false, err
	}
	return cfg, created, nil
}

func invalidMessage(ds []showroom.Detail) string {
	if len(ds) == 1 {
		at := ds[0].Pointer
		if at == "" {
			at = "the body"
		}
		return fmt.Sprintf("the configuration is not valid: %s: %s", at, ds[0].Problem)
	}
	return fmt.Sprintf("the configuration is not valid: %d problems, see details", len(ds))
}

// decodeBody decodes a configuration body, keeping numbers exact.
func decodeBody(body []byte) (any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, showroom.Errorf(showroom.EInvalidBody, "the request body is empty; send a JSON array of processor objects")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &showroom.Error{Code: showroom.EInvalidBody, Message: "the request body is not valid JSON", Cause: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, showroom.Errorf(showroom.EInvalidBody, "the request body holds more than one JSON value")
	}
	return v, nil
}

// checkUI checks uiConfiguration: an optional THUMBNAIL content name and
// names and descriptions by language. thumbnailFullPath is made by the
// server and ignored here.
func (s *Service) checkUI(ctx context.Context, v any, lookup catalog.ContentLookup) (showroom.UIConfiguration, []showroom.Detail, error) {
	ui := showroom.UIConfiguration{NameDescriptions: map[string]showroom.NameDescription{}}
	var ds []showroom.Detail
	add := func(ptr, format string, args ...any) {
		ds = append(ds, showroom.Detail{Pointer: ptr, Problem: fmt.Sprintf(format, args...)})
	}
	obj, ok := v.(map[string]any)
	if !ok {
		add("/uiConfiguration", "must be an object")
		return ui, ds, nil
	}
	for _, k := range sortedKeys(obj) {
		ptr := "/uiConfiguration/" + escapePointer(k)
		switch k {
		case "thumbnailFullPath":
		case "thumbnail":
			t, ok := obj[k].(string)
			if !ok {
				add(ptr, "must be a string: the name of THUMBNAIL content")
				continue
			}
			if t == "" {
				continue
			}
			typ, found, err := lookup(ctx, t)
			if err != nil {
				return ui, nil, err
			}
			switch {
			case !showroom.ValidName(t):
				add(ptr, "must be a content name (1 to 64 letters and digits)")
			case !found:
				add(ptr, "no content named %q; upload it first", t)
			case typ != showroom.ContentThumbnail:
				add(ptr, "content %q is of type %s; THUMBNAIL needed", t, typ)
			default:
				ui.Thumbnail = t
			}
		case "nameDescriptions":
			langs, ok := obj[k].(map[string]any)
			if !ok {
				add(ptr, "must be an object from language code to {name, description}")
				continue
			}
			if len(langs) > maxLanguages {
				add(ptr, "at most %d languages", maxLanguages)
				continue
			}
			for _, lang := range sortedKeys(langs) {
				lp := ptr + "/" + escapePointer(lang)
				if !langRE.MatchString(lang) {
					add(lp, "must be keyed by a language code such as en, de or pt-BR")
					continue
				}
				nd, ok := langs[lang].(map[string]any)
				if !ok {
					add(lp, "must be an object with name and description")
					continue
				}
				var out showroom.NameDescription
				for _, f := range sortedKeys(nd) {
					str, isStr := nd[f].(string)
					switch {
					case f != "name" && f != "description":
						add(lp+"/"+escapePointer(f), "unknown field")
					case !isStr:
						add(lp+"/"+f, "must be a string")
					case f == "name" && utf8.RuneCountInString(str) > maxNameLen:
						add(lp+"/name", "at most %d characters", maxNameLen)
					case f == "description" && utf8.RuneCountInString(str) > maxDescriptionLen:
						add(lp+"/description", "at most %d characters", maxDescriptionLen)
					case f == "name":
						out.Name = str
					default:
						out.Description = str
					}
				}
				ui.NameDescriptions[lang] = out
			}
		default:
			add(ptr, "unknown field")
		}
	}
	return ui, ds, nil
}

// ListConfigurations returns the company's configurations and the
// predefined ones, sorted by name.
func (s *Service) ListConfigurations(ctx context.Context) ([]*showroom.Configuration, error) {
	co, err := company(ctx)
	if err != nil {
		return nil, err
	}
	own, err := s.deps.Configurations.ListConfigurations(ctx, co.ID)
	if err != nil {
		return nil, err
	}
	all := append(own, catalog.PredefinedConfigurations()...)
	slices.SortFunc(all, func(a, b *showroom.Configuration) int { return strings.Compare(a.Name, b.Name) })
	return all, nil
}

// Configuration returns a predefined configuration or the company's
// configuration of that name: what a processing run of that name uses.
func (s *Service) Configuration(ctx context.Context, name string) (*showroom.Configuration, error) {
	if c, ok := catalog.PredefinedConfiguration(name); ok {
		return c, nil
	}
	co, err := company(ctx)
	if err != nil {
		return nil, err
	}
	return s.deps.Configurations.FindConfiguration(ctx, co.ID, name)
}

// DeleteConfiguration removes the company's configuration. Predefined ones
// cannot be deleted (403 RESERVED_NAME).
func (s *Service) DeleteConfiguration(ctx context.Context, name string) error {
	if _, ok := catalog.PredefinedConfiguration(name); ok {
		return showroom.Errorf(showroom.EReservedName, "%q is a predefined configuration and cannot be changed or deleted", name)
	}
	co, err := company(ctx)
	if err != nil {
		return err
	}
	return s.deps.Configurations.DeleteConfiguration(ctx, co.ID, name)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// escapePointer escapes a key for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
