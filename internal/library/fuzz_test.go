package library

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/codec/codectest"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
)

// FuzzInspect feeds uploads to the library's checks (sniffing, header
// limits, the full decode): whatever the bytes, the answer is the image's
// type and size within the limits or a client error, never INTERNAL or a
// panic.
func FuzzInspect(f *testing.F) {
	jpg := codectest.BaselineJPEG(40, 24)
	var pngb bytes.Buffer
	png.Encode(&pngb, image.NewNRGBA(image.Rect(0, 0, 5, 3)))
	for _, s := range [][]byte{
		jpg, jpg[:len(jpg)/2], codectest.Garbage(jpg, 0xC4, 9),
		codectest.ProgressiveJPEG(16, 16, 1, 4), codectest.ProgressiveJPEG(16, 16, 4, 4),
		codectest.ProgressiveJPEG(16, 16, 1, 50), pngb.Bytes(),
		codectest.PNGHeader(3000, 3000, 16, 6), codectest.PNGHeader(100, 100, 8, 3),
		codectest.TextBombPNG(9, 9, 3, 1<<16, "zTXt"), codectest.TextBombPNG(9, 9, 3, 1<<16, "iTXt"),
		codectest.Commented(jpg, 1000), codectest.WithoutFrame(jpg),
		[]byte("RIFF\x10\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x10\x00\x00\x00\xff\x0f\x00\xff\x0f\x00"),
		[]byte("GIF89a"), nil,
	} {
		f.Add(s, showroom.ContentPoster)
		f.Add(s, showroom.ContentBackground)
	}
	cfg := DefaultConfig()
	cfg.MaxPixels, cfg.MaxDecodeBytes = 1<<20, 8<<20
	s := &Service{cfg: cfg, deps: Deps{Images: pipeline.ContentImages{}}, decodes: make(chan struct{}, 1)}
	f.Fuzz(func(t *testing.T, b []byte, typ string) {
		info, err := s.inspect(context.Background(), b, typ)
		if err != nil {
			switch c := showroom.ErrorCode(err); c {
			case showroom.EInvalidBody, showroom.EUnsupportedMedia, showroom.EInvalidImage, showroom.EPayloadTooLarge:
			default:
				t.Fatalf("%v", err)
			}
			return
		}
		if f, _ := codec.Sniff(b); info.mediaType == "" || info.mediaType != f.MediaType() {
			t.Fatalf("accepted as %q, sniffed %q", info.mediaType, f.MediaType())
		}
		if info.width < 1 || info.height < 1 || int64(info.width)*int64(info.height) > cfg.MaxPixels {
			t.Fatalf("accepted at %dx%d", info.width, info.height)
		}
	})
}
