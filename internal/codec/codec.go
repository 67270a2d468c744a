// Package codec is Showroom's one owner of image IO: it tells JPEG, PNG and
// WebP apart by their bytes, reads and judges an image's header against the
// decode limits before a pixel is decoded, decodes into upright 8-bit sRGB,
// encodes results, keeps the pixel buffers photos and canvases reuse, and
// starts libvips. The image libraries' cgo bindings live here and nowhere
// else.
package codec

import (
	"bytes"
	"strings"
)

// Format is an image format Showroom reads and writes, by the name a
// request gives it (?format=jpeg).
type Format string

// The formats: the only ones Showroom decodes or encodes.
const (
	JPEG Format = "jpeg"
	PNG  Format = "png"
	WebP Format = "webp"
)

// formatInfo is what Showroom knows of a format: the one table of media
// types, file extensions and signatures.
type formatInfo struct {
	format    Format
	mediaType string
	extension string
	// alias is another name ParseFormat takes for it.
	alias string
	// is reports whether a file's first bytes are this format's signature.
	is func(b []byte) bool
}

// pngSignature opens every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

var formats = []formatInfo{
	{JPEG, "image/jpeg", ".jpg", "jpg", func(b []byte) bool { return len(b) >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF }},
	{PNG, "image/png", ".png", "", func(b []byte) bool { return bytes.HasPrefix(b, []byte(pngSignature)) }},
	{WebP, "image/webp", ".webp", "", func(b []byte) bool {
		return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
	}},
}

// Formats are the formats, JPEG first.
func Formats() []Format {
	out := make([]Format, len(formats))
	for i, f := range formats {
		out[i] = f.format
	}
	return out
}

func (f Format) info() (formatInfo, bool) {
	for _, i := range formats {
		if i.format == f {
			return i, true
		}
	}
	return formatInfo{}, false
}

// Sniff returns the format the bytes are, by their signature; ok is false
// for anything but JPEG, PNG or WebP. A Content-Type header is never
// trusted: the bytes decide. 16 bytes are enough to tell.
func Sniff(b []byte) (f Format, ok bool) {
	for _, i := range formats {
		if i.is(b) {
			return i.format, true
		}
	}
	return "", false
}

// MediaType is the format's media type ("image/jpeg"), or "" for a name
// that is no format.
func (f Format) MediaType() string {
	i, _ := f.info()
	return i.mediaType
}

// Extension is the format's file extension with its dot (".jpg"), or ""
// for a name that is no format.
func (f Format) Extension() string {
	i, _ := f.info()
	return i.extension
}

// Known reports whether f is one of the formats.
func (f Format) Known() bool {
	_, ok := f.info()
	return ok
}

// ParseFormat reads a format's name as a request gives it, in any case,
// "jpg" too for JPEG.
func ParseFormat(name string) (Format, bool) {
	name = strings.ToLower(name)
	for _, i := range formats {
		if name == string(i.format) || name != "" && name == i.alias {
			return i.format, true
		}
	}
	return "", false
}

// FormatNames are the names ParseFormat takes.
func FormatNames() []string {
	var names []string
	for _, i := range formats {
		names = append(names, string(i.format))
		if i.alias != "" {
			names = append(names, i.alias)
		}
	}
	return names
}

// FormatOf returns the format of a media type ("image/png"), as an Accept
// header or a stored content's type names it.
func FormatOf(mediaType string) (Format, bool) {
	for _, i := range formats {
		if i.mediaType == mediaType {
			return i.format, true
		}
	}
	return "", false
}
