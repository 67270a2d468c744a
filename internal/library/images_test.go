package library_test

import (
	"testing"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// The program's image IO and art are the library's.
var (
	_ library.Images = pipeline.ContentImages{}
	_ library.Art    = pipeline.PredefinedArt{}
)

// TestDefaultMaxDecodeBytesIsTheDecoders: the library's default budget of
// one decode is the decoder's own, though the library does not import it.
func TestDefaultMaxDecodeBytesIsTheDecoders(t *testing.T) {
	if library.DefaultMaxDecodeBytes != vision.DefaultMaxBytes {
		t.Errorf("library.DefaultMaxDecodeBytes %d, the decoder's default %d", library.DefaultMaxDecodeBytes, vision.DefaultMaxBytes)
	}
}
