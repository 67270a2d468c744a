// Package codectest makes hostile image files for tests: JPEGs with
// thousands of scans, garbage between their markers, PNG headers that
// promise more than a decoder should take on. The files are written byte by
// byte, so tests need no sample files and no encoder that would refuse to
// write them.
package codectest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/bits"
	"syscall"
	"time"
)

// ProgressiveJPEG returns a valid progressive w×h JPEG of comps components
// (1: grey; 4: CMYK, as no Adobe marker says otherwise) with scans scans:
// one DC scan, then the same empty AC band over and over, which libjpeg and
// the JPEG standard accept (each rewrites coefficients the last one left at
// zero). Each scan costs a decoder a pass over every block, yet only a
// dozen bytes of file: a 2048×2048 grey one with 10,000 scans is 150 kB.
// It decodes to flat mid grey.
func ProgressiveJPEG(w, h, comps, scans int) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xD8})
	// One quantisation table of ones.
	segment(&b, 0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...))
	// SOF2: 8 bits, the size, each component 1x1 on table 0.
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), byte(comps)}
	for c := range comps {
		sof = append(sof, byte(c+1), 0x11, 0)
	}
	segment(&b, 0xC2, sof)
	// DC table 0: one code, "0", for "no change". AC table 0: the 15
	// end-of-band runs EOB0..EOB14, 4-bit codes 0000..1110.
	dht := []byte{0x00, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00,
		0x10, 0, 0, 0, 15, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	for r := range 15 {
		dht = append(dht, byte(r<<4))
	}
	segment(&b, 0xC4, dht)
	blocks := ((w + 7) / 8) * ((h + 7) / 8)
	// The DC scan, all components interleaved: one "0" bit a block.
	dc := []byte{byte(comps)}
	for c := range comps {
		dc = append(dc, byte(c+1), 0x00)
	}
	segment(&b, 0xDA, append(dc, 0, 0, 0))
	var bw bitWriter
	for range blocks * comps {
		bw.put(0, 1)
	}
	b.Write(bw.flush())
	// Each AC scan: one component's band 1..63 ends at once in every block.
	for range blocks / 32767 {
		bw.eobRun(32767)
	}
	if n := blocks % 32767; n > 0 {
		bw.eobRun(n)
	}
	ac := bw.flush()
	for i := range scans - 1 {
		segment(&b, 0xDA, []byte{1, byte(i%comps + 1), 0x00, 1, 63, 0})
		b.Write(ac)
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// BaselineJPEG returns a w×h baseline JPEG of a gradient, as most cameras
// write: one scan.
func BaselineJPEG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetNRGBA(x, y, color.NRGBA{uint8(x * 255 / w), uint8(y * 255 / h), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(err) // a bytes.Buffer does not fail
	}
	return b.Bytes()
}

// Garbage returns jpg with n bytes that are no marker inserted before the
// first marker m (0xD9, EOI: after the last scan's data, as some cameras
// write; 0xC4, DHT: between header segments). Decoders warn of
// "extraneous bytes before marker" and give the whole image. (Garbage
// right after SOI makes the file no JPEG by its signature.)
func Garbage(jpg []byte, m byte, n int) []byte {
	i := markerAt(jpg, m)
	out := append([]byte{}, jpg[:i]...)
	out = append(out, bytes.Repeat([]byte{0x5A}, n)...)
	return append(out, jpg[i:]...)
}

// AfterFirstScan returns jpg with n bytes that are no marker inserted
// after its first scan's data, before the next marker: the scan ends
// before its data does, so its data is not what was encoded (bytes lost or
// overwritten in the middle of a file). Go's decoder takes it; libjpeg
// warns of "extraneous bytes", which here is no harmless warning.
func AfterFirstScan(jpg []byte, n int) []byte {
	i := markerAt(jpg, 0xDA)
	i += 2 + int(binary.BigEndian.Uint16(jpg[i+2:]))
	i = endOfScan(jpg, i)
	out := append([]byte{}, jpg[:i]...)
	out = append(out, bytes.Repeat([]byte{0x5A}, n)...)
	return append(out, jpg[i:]...)
}

// endOfScan returns where the marker after the entropy-coded data from i
// starts.
func endOfScan(jpg []byte, i int) int {
	for i+1 < len(jpg) && (jpg[i] != 0xFF || jpg[i+1] == 0 || jpg[i+1] >= 0xD0 && jpg[i+1] <= 0xD7) {
		i++
	}
	return i
}

// markerAt returns where marker m first starts in jpg, walking segments
// by their lengths and scans to their end; len(jpg) when it is not there.
func markerAt(jpg []byte, m byte) int {
	for i := 2; i+3 < len(jpg); {
		if jpg[i] != 0xFF {
			i++
			continue
		}
		switch c := jpg[i+1]; {
		case c == m:
			return i
		case c == 0x00 || c == 0xFF || c >= 0xD0 && c <= 0xD7:
			i++
		case c == 0xDA:
			i = endOfScan(jpg, i+2+int(binary.BigEndian.Uint16(jpg[i+2:])))
		default:
			i += 2 + int(binary.BigEndian.Uint16(jpg[i+2:]))
		}
	}
	return len(jpg)
}

// PNGHeader returns a PNG whose header declares a w×h image of bitDepth
// bits and colorType (2 RGB, 6 RGBA) and whose data is one empty IDAT: a
// decoder that believes the header before checking a limit allocates for
// the whole image; decoding the data fails.
func PNGHeader(w, h int, bitDepth, colorType byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = bitDepth, colorType
	chunk(&b, "IHDR", ihdr)
	chunk(&b, "IDAT", []byte{0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01}) // zlib of nothing
	chunk(&b, "IEND", nil)
	return b.Bytes()
}

// TextBombPNG returns a valid w×h grey PNG carrying n compressed text
// chunks before its image data, each of which inflates to inflated bytes
// of text: typ "zTXt" or "iTXt" (a compressed international one). Deflate
// packs a run of one byte about a thousand to one, so 100 chunks of 8 MB
// are a file of under a megabyte that asks a decoder reading its text for
// 800 MB of inflating.
func TextBombPNG(w, h, n, inflated int, typ string) []byte {
	var text bytes.Buffer
	z, _ := zlib.NewWriterLevel(&text, zlib.BestCompression)
	z.Write(bytes.Repeat([]byte("a"), inflated))
	z.Close()
	var data []byte
	switch typ {
	case "zTXt": // keyword, NUL, method 0, the zlib stream
		data = append([]byte("Comment\x00\x00"), text.Bytes()...)
	case "iTXt": // keyword, NUL, compressed, method 0, language, NUL, translated keyword, NUL
		data = append([]byte("Comment\x00\x01\x00\x00\x00"), text.Bytes()...)
	default:
		panic("codectest: no text chunk " + typ)
	}
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, w, h)))
	raw := img.Bytes()
	ihdrEnd := 8 + 8 + 13 + 4 // signature, IHDR's length and type, its data, its CRC
	var b bytes.Buffer
	b.Write(raw[:ihdrEnd])
	for range n {
		chunk(&b, typ, data)
	}
	b.Write(raw[ihdrEnd:])
	return b.Bytes()
}

// Commented returns jpg with comment (COM) segments of n bytes in all
// right after its start marker, ahead of the frame header: a segment holds
// at most 65,533 bytes, so a large comment takes several, as cameras and
// editors write long metadata.
func Commented(jpg []byte, n int) []byte {
	var b bytes.Buffer
	b.Write(jpg[:2])
	for n > 0 {
		k := min(n, 65533)
		segment(&b, 0xFE, bytes.Repeat([]byte{'c'}, k))
		n -= k
	}
	b.Write(jpg[2:])
	return b.Bytes()
}

// WithoutFrame returns jpg with its frame header (its first SOFn segment)
// cut out: no decoder can read its size.
func WithoutFrame(jpg []byte) []byte {
	for i := 2; i+4 <= len(jpg) && jpg[i] == 0xFF; {
		m, n := jpg[i+1], int(binary.BigEndian.Uint16(jpg[i+2:]))
		if m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC {
			return append(append([]byte(nil), jpg[:i]...), jpg[i+2+n:]...)
		}
		i += 2 + n
	}
	return jpg
}

func segment(b *bytes.Buffer, marker byte, data []byte) {
	b.Write([]byte{0xFF, marker, byte((len(data) + 2) >> 8), byte(len(data) + 2)})
	b.Write(data)
}

func chunk(b *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	b.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	b.WriteString(typ)
	b.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	b.Write(n[:])
}

// bitWriter writes entropy-coded data: bits first to last, a 0x00 stuffed
// after each 0xFF, the last byte padded with ones.
type bitWriter struct {
	out  []byte
	acc  uint32
	nacc int
}

func (w *bitWriter) put(v uint32, n int) {
	for i := n - 1; i >= 0; i-- {
		w.acc = w.acc<<1 | (v>>i)&1
		if w.nacc++; w.nacc == 8 {
			w.byte()
		}
	}
}

func (w *bitWriter) byte() {
	w.out = append(w.out, byte(w.acc))
	if byte(w.acc) == 0xFF {
		w.out = append(w.out, 0)
	}
	w.acc, w.nacc = 0, 0
}

// eobRun ends the band in n (1..32767) blocks: symbol EOBr, r the run's
// top bit, its 4-bit code r, then the run's lower r bits.
func (w *bitWriter) eobRun(n int) {
	r := bits.Len(uint(n)) - 1
	w.put(uint32(r), 4)
	w.put(uint32(n-(1<<r)), r)
}

func (w *bitWriter) flush() []byte {
	for w.nacc != 0 {
		w.put(1, 1)
	}
	out := w.out
	w.out = nil
	return out
}

// CPUTime is the CPU time (user and system) the process has used so far.
// Tests that check a hostile file is refused without the work it asks for
// compare it before and after, rather than the wall clock, which a busy
// machine stretches whatever the code does.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
