package maskcache

import (
	"context"
	"image"
	"testing"

	"github.com/showroom/showroom/internal/vision"
)

// segmenter answers every photo with the same mask, counting its calls.
type segmenter struct{ calls int }

func (s *segmenter) Segment(_ context.Context, img *image.NRGBA) (*vision.Mask, error) {
	s.calls++
	alpha := image.NewGray(img.Rect)
	for i := range alpha.Pix {
		alpha.Pix[i] = 200
	}
	return &vision.Mask{Alpha: alpha, Box: img.Rect, Confidence: 0.9,
		Features: []vision.Features{{Channels: 1, Side: 2, Data: []float32{1, 2, 3, 4}}}}, nil
}

// TestEachRunOwnsItsMask: a pipeline run recycles its mask's activations
// and may draw on its matte; the next run of the same photo (the gallery's
// next configuration) must still get the model's answer. On a cache that
// handed out one mask to every run, the second run read what the first
// left.
func TestEachRunOwnsItsMask(t *testing.T) {
	for _, dir := range []string{"", t.TempDir()} {
		seg := &segmenter{}
		c := &Cache{Segmenter: seg, Dir: dir}
		img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
		first, err := c.Segment(context.Background(), img)
		if err != nil {
			t.Fatal(err)
		}
		// What a run and the pool's next user may do with its mask.
		first.Features[0].Data[0] = -1
		first.Alpha.Pix[0] = 0
		for _, c := range []*Cache{c, {Segmenter: seg, Dir: dir}} {
			again, err := c.Segment(context.Background(), img)
			if err != nil {
				t.Fatal(err)
			}
			if got := again.Features[0].Data[0]; got != 1 {
				t.Errorf("dir %q: the next run's activation is %v, want the model's 1", dir, got)
			}
			if got := again.Alpha.Pix[0]; got != 200 {
				t.Errorf("dir %q: the next run's matte is %d, want the model's 200", dir, got)
			}
		}
		want := 1
		if dir == "" {
			want = 2 // a new cache without a folder asks the model again
		}
		if seg.calls != want {
			t.Errorf("dir %q: the model ran %d times, want %d", dir, seg.calls, want)
		}
	}
}

// signed is a segmenter that names its masks' make (vision.Segmenter's
// Signature): the model, and the activations a mask carries.
type signed struct {
	segmenter
	sig string
}

func (s *signed) Signature() string { return s.sig }

// TestSignatureKeysTheDisk: a segmenter whose masks carry other activations
// (a decoder stage added to the glass detector's) or come from another model
// must not read the masks another left on disk; the same one must.
func TestSignatureKeysTheDisk(t *testing.T) {
	dir := t.TempDir()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	two := &signed{sig: "isnet:a,b"}
	for range 2 {
		if _, err := (&Cache{Segmenter: two, Dir: dir}).Segment(context.Background(), img); err != nil {
			t.Fatal(err)
		}
	}
	if two.calls != 1 {
		t.Errorf("the same signature ran the model %d times, want once", two.calls)
	}
	for _, other := range []Segmenter{&signed{sig: "isnet:a,b,c"}, &signed{sig: "u2netp"}, &segmenter{}} {
		if _, err := (&Cache{Segmenter: other, Dir: dir}).Segment(context.Background(), img); err != nil {
			t.Fatal(err)
		}
		calls := 0
		switch s := other.(type) {
		case *signed:
			calls = s.calls
		case *segmenter:
			calls = s.calls
		}
		if calls != 1 {
			t.Errorf("%T %v read another segmenter's mask from disk (model ran %d times, want once)", other, other, calls)
		}
	}
}
