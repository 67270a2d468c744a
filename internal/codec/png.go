package codec

import (
	"encoding/binary"
	"math"
)

// withoutPNGText returns the PNG in data without its text chunks (tEXt,
// zTXt, iTXt), or data itself when it has none. Showroom uses no text of
// an image, but libpng, under libvips, inflates every compressed text chunk
// while it reads the header, up to megabytes each, and libvips copies each
// text into the image's metadata: a file of a hundred such chunks, under a
// megabyte, took 30 s of CPU and 2.4 GB to decode. Dropping them before
// any decoder sees the file bounds its header's work by its size, and
// leaves the image as it was: text chunks carry no pixels, no colour
// profile (iCCP) and no orientation (eXIf).
//
// The walk goes chunk by chunk, by their lengths, as libpng reads them, and
// checks no CRC: a chunk it cannot read past (a length beyond the data, a
// file cut short) ends the walk, and what follows is kept as it is, for the
// decoder to refuse, since libpng cannot read past it either. Except a text
// chunk: libpng allocates the length a text chunk claims before it reads
// it, so a 400-byte file whose last chunk claims 1.6 GB of text took
// seconds and, called again, hung. Such a chunk is cut off with all that
// follows it, which was nothing but the claim.
func withoutPNGText(data []byte) []byte {
	if f, _ := Sniff(data); f != PNG {
		return data
	}
	var out []byte // nil until a text chunk is found
	kept := 0      // data[kept:i] is what to copy to out before a text chunk
	for i := len(pngSignature); i+8 <= len(data); {
		n := binary.BigEndian.Uint32(data[i:])
		end := i + 12 + int(n) // length, type, data, CRC
		text := isPNGText(data[i+4 : i+8])
		if n > 1<<31-1 || end > len(data) {
			if !text {
				break
			}
			end = len(data)
		}
		switch {
		case text:
			if out == nil {
				out = make([]byte, 0, len(data))
			}
			out = append(out, data[kept:i]...)
			kept = end
		case string(data[i+4:i+8]) == "IEND":
			i = len(data)
			continue
		}
		i = end
	}
	if out == nil {
		return data
	}
	return append(out, data[kept:]...)
}

// isPNGText reports whether a chunk's type is one of the text chunks.
func isPNGText(typ []byte) bool {
	switch string(typ) {
	case "tEXt", "zTXt", "iTXt":
		return true
	}
	return false
}

// deflateMaxRatio is the most deflate expands: its longest match, 258
// bytes, for two bits (one-bit codes for the length and the distance).
const deflateMaxRatio = 1032

// pngDataCutShort reports whether a PNG's image data (its IDAT chunks,
// as far as the file holds them) is too few bytes to inflate into the
// pixels its header declares, however well compressed: have is what the
// chunks hold, need the pixels' bytes. Such a file is cut short or forged,
// and libpng would find out only after allocating the whole image and
// inflating all there is: for a 57 MP header with an empty stream, 230 MB
// and a second of CPU for nothing. ok is false when data is no PNG whose
// header can be read.
func pngDataCutShort(data []byte) (have, need int64, short, ok bool) {
	if len(data) < 29 || string(data[:8]) != pngSignature || string(data[12:16]) != "IHDR" {
		return 0, 0, false, false
	}
	w, h := int64(binary.BigEndian.Uint32(data[16:])), int64(binary.BigEndian.Uint32(data[20:]))
	depth, channels := int64(data[24]), int64(map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[data[25]])
	// The pixels alone, without a row's filter byte or an interlaced
	// pass's padding: the least any PNG of this header inflates to. In
	// floating point: with no pixel limit a header may claim 2^62 pixels.
	bytes := float64(w) * float64(h) * float64(channels*depth) / 8
	need = int64(min(bytes, math.MaxInt64))
	for i := len(pngSignature); i+8 <= len(data); {
		n := int64(binary.BigEndian.Uint32(data[i:]))
		typ := string(data[i+4 : i+8])
		if typ == "IDAT" {
			have += min(n, int64(len(data)-i-8))
		}
		if typ == "IEND" || n > int64(len(data)-i-12) {
			break
		}
		i += 12 + int(n)
	}
	return have, need, float64(have)*deflateMaxRatio < bytes, true
}
