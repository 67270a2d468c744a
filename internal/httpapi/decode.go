package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/showroom/showroom/internal/showroom"
)

// readBody reads the whole body, refusing one over limit bytes with 413.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge(limit)
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if err := bodyError(err, limit); showroom.ErrorCode(err) != showroom.EInternal {
			return nil, err
		}
		return nil, &showroom.Error{Code: showroom.EInvalidBody, Message: "could not read the request body", Cause: err}
	}
	return b, nil
}

func errTooLarge(limit int64) error {
	return showroom.Errorf(showroom.EPayloadTooLarge, "the request body is larger than %s", formatBytes(limit))
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// requireJSON refuses a request whose Content-Type is set to something other
// than JSON. A missing Content-Type is taken as JSON.
func requireJSON(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return showroom.Errorf(showroom.EUnsupportedMedia, "the request body must be application/json, not %q", ct)
}

// decodeJSON reads a JSON body of at most limit bytes into v. The whole body
// must be one JSON value.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	b, err := readBody(w, r, limit)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return &showroom.Error{Code: showroom.EInvalidBody, Message: "the request body is not valid JSON", Cause: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return showroom.Errorf(showroom.EInvalidBody, "the request body holds more than one JSON value")
	}
	return nil
}

// stringFields decodes a JSON object body and returns the named fields,
// each of which must be a non-empty string; otherwise the error is
// INVALID_BODY with message.
func stringFields(w http.ResponseWriter, r *http.Request, limit int64, message string, names ...string) (map[string]string, error) {
	var raw map[string]json.RawMessage
	if err := decodeJSON(w, r, limit, &raw); err != nil {
		if showroom.ErrorCode(err) == showroom.EInvalidBody {
			return nil, showroom.Errorf(showroom.EInvalidBody, "%s", message)
		}
		return nil, err
	}
	out := make(map[string]string, len(names))
	var details []showroom.Detail
	for _, n := range names {
		var s string
		v, ok := raw[n]
		switch {
		case !ok:
			details = append(details, showroom.Detail{Pointer: "/" + n, Problem: "is required"})
		case json.Unmarshal(v, &s) != nil:
			details = append(details, showroom.Detail{Pointer: "/" + n, Problem: "must be a string"})
		case s == "":
			details = append(details, showroom.Detail{Pointer: "/" + n, Problem: "must not be empty"})
		default:
			out[n] = s
		}
	}
	if raw == nil {
		details = nil // not an object at all
	}
	if raw == nil || len(details) > 0 {
		return nil, &showroom.Error{Code: showroom.EInvalidBody, Message: message, Details: details}
	}
	return out, nil
}
