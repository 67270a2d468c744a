package pipeline

import (
	"image"
	"testing"
)

// TestNeverSmallerThanThePhoto: without an explicit size, every predefined
// configuration's output has a long side at least the photo's, as
// remove.bg and Photoroom keep the input's size (an 854x480 street photo
// came out 224x149 through default_showroom); an explicit size stays exact.
func TestNeverSmallerThanThePhoto(t *testing.T) {
	for _, size := range [][2]int{{854, 480}, {768, 512}, {480, 640}} {
		car := NewSyntheticCar(size[0], size[1], 0)
		e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{StudioBackground: RenderStudio(StudioWidth/4, StudioHeight/4)})
		long := max(size[0], size[1])
		for _, c := range PredefinedConfigurations() {
			steps, err := DecodeSteps(c.Processors)
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, e, car, steps...)
			if got := max(out.Rect.Dx(), out.Rect.Dy()); got < long {
				t.Errorf("%s on a %dx%d photo: output %dx%d, long side under %d", c.Name, size[0], size[1], out.Rect.Dx(), out.Rect.Dy(), long)
			}
		}
		for _, steps := range [][]Step{
			{det(), {"processorName": AddBackgroundAndCrop, "background": StudioBackground, "outputWidth": 300.0}},
			{det(), {"processorName": PlaceCar}, {"processorName": Resize, "width": 300.0}},
		} {
			if out := render(t, e, car, steps...); out.Rect.Dx() != 300 {
				t.Errorf("%s with width 300 on a %dx%d photo: output %dx%d", steps[1].Name(), size[0], size[1], out.Rect.Dx(), out.Rect.Dy())
			}
		}
	}
}

// TestDefaultSizeStaysWithinTheLimit: scaling a default canvas up to a
// wide photo's long side never takes it past the output limit, so a photo
// that was accepted is never refused for the size the pipeline chose.
func TestDefaultSizeStaysWithinTheLimit(t *testing.T) {
	for _, tt := range []struct {
		w, h         float64
		photo        [2]int
		limit        int64
		wantW, wantH float64
	}{
		{480, 320, [2]int{854, 480}, 1 << 26, 854, 569},
		{1920, 1280, [2]int{854, 480}, 1 << 26, 1920, 1280},
		{1920, 1280, [2]int{20000, 2000}, 40_000_000, 7746, 5163},
	} {
		w, h := notSmallerThan(tt.w, tt.h, image.Pt(tt.photo[0], tt.photo[1]), tt.limit)
		if w != tt.wantW || h != tt.wantH || int64(w*h) > tt.limit {
			t.Errorf("%vx%v for a %v photo: %vx%v, want %vx%v", tt.w, tt.h, tt.photo, w, h, tt.wantW, tt.wantH)
		}
	}
}
