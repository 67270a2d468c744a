package codec

import (
	"errors"
	"io"
)

// ReadHeader reads from r as far as the size of the image in it is
// declared, for a caller that has the image as a stream and must judge it
// before storing it: a PNG's IHDR or a WebP's first chunk, in their first
// 30 bytes, or a JPEG's frame header, after however many segments come
// before it (a camera's metadata, a comment of megabytes). It walks a
// JPEG's segments by their lengths, not its bytes into a decoder, and stops
// at the frame header; the caller bounds r (the upload limit). read is
// every byte taken from r, to be handed on ahead of the rest.
//
// ok is false when the bytes do not say: a file too short, or a PNG or
// WebP whose header is not where it must be, which the decoder judges
// later. A JPEG with no frame header before its first scan or its end (or
// the end of r) is one no decoder can read: INVALID_IMAGE, the decoder's
// own answer. An error reading r is returned as it is.
func ReadHeader(r io.Reader) (read []byte, h Header, ok bool, err error) {
	s := &headReader{r: r}
	if !s.fill(3) {
		return s.buf, h, false, s.failed()
	}
	if f, _ := Sniff(s.buf); f != JPEG {
		s.fill(30) // PNG, WebP: their header, if they have one, is in these
		h, ok = quickHeader(s.buf, nil)
		return s.buf, h, ok, s.failed()
	}
	sof, err := s.frameHeader()
	if err != nil {
		return s.buf, h, false, err
	}
	h, ok = quickHeader(nil, sof)
	if !ok {
		return s.buf, h, false, invalidImage("the image's header cannot be read", errors.New("no JPEG frame header"))
	}
	return s.buf, h, true, nil
}

// frameHeader walks a JPEG's markers as walkJPEG does, from its start to
// its frame header (SOFn), and returns that segment's data, or nil if a
// scan, the end, or the end of the bytes comes first.
func (s *headReader) frameHeader() ([]byte, error) {
	i := 2 // after SOI
	for s.fill(i + 2) {
		b := s.buf
		if b[i] != 0xFF {
			i++ // extraneous bytes before a marker: libjpeg skips them too
			continue
		}
		m := b[i+1]
		switch {
		case m == 0xFF: // fill byte
			i++
			continue
		case m == 0xD9 || m == 0xDA: // EOI, or SOS before any frame
			return nil, nil
		case standaloneMarker(m):
			i += 2
			continue
		}
		if !s.fill(i + 4) {
			break
		}
		n := int(s.buf[i+2])<<8 | int(s.buf[i+3])
		if frameMarker(m) {
			end := i + 2 + max(n, 2) // a length under 2 is no header
			s.fill(end)
			return s.buf[i+4 : min(end, len(s.buf))], s.failed()
		}
		i += 2 + n
	}
	return nil, s.failed()
}

// headReader reads a stream into one growing buffer, as far as asked.
type headReader struct {
	r   io.Reader
	buf []byte
	err error // the first error reading r; io.EOF at its end
}

// fill reads until buf holds at least n bytes, or r ends or fails; it
// reports whether buf holds them.
func (s *headReader) fill(n int) bool {
	for len(s.buf) < n && s.err == nil {
		if cap(s.buf)-len(s.buf) < 4<<10 {
			// Doubling keeps the copies to about the bytes read; 32 kB at
			// the least holds the header of almost every file in one read.
			grown := make([]byte, len(s.buf), max(2*cap(s.buf), n, 32<<10))
			copy(grown, s.buf)
			s.buf = grown
		}
		k, err := s.r.Read(s.buf[len(s.buf):cap(s.buf)])
		s.buf = s.buf[:len(s.buf)+k]
		s.err = err
	}
	return len(s.buf) >= n
}

// failed is the error reading r, if it was not its end.
func (s *headReader) failed() error {
	if s.err == io.EOF {
		return nil
	}
	return s.err
}
