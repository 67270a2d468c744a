package vision

import (
	"image"
	"math"
	"testing"
)

// gray returns a w×h mask with the rectangles set to 255.
func gray(w, h int, rs ...image.Rectangle) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for _, r := range rs {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				g.Pix[y*g.Stride+x] = 255
			}
		}
	}
	return g
}

func TestCompareGlass(t *testing.T) {
	windows := gray(10, 10, image.Rect(0, 0, 10, 4)) // 40 pixels
	never := gray(10, 10, image.Rect(0, 6, 10, 10))  // 40 pixels
	glass := gray(10, 10, image.Rect(0, 0, 10, 3), image.Rect(0, 9, 2, 10))
	glass.Pix[3*10] = 128 // at the threshold: glass
	glass.Pix[3*10+1] = 127
	tests := []struct {
		name           string
		windows, never *image.Gray
		want           GlassScore
		found          bool
	}{
		{"both", windows, never, GlassScore{Recall: 31.0 / 40, HasWindows: true, False: 2.0 / 40, HasNever: true}, true},
		{"windows only", windows, nil, GlassScore{Recall: 31.0 / 40, HasWindows: true}, true},
		{"never only", nil, never, GlassScore{False: 2.0 / 40, HasNever: true}, false},
		{"empty windows", gray(10, 10), never, GlassScore{False: 2.0 / 40, HasNever: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareGlass(glass, tt.windows, tt.never)
			if got.HasWindows != tt.want.HasWindows || got.HasNever != tt.want.HasNever ||
				math.Abs(got.Recall-tt.want.Recall) > 1e-9 || math.Abs(got.False-tt.want.False) > 1e-9 {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if got.Found() != tt.found {
				t.Errorf("found %v, want %v", got.Found(), tt.found)
			}
		})
	}
}

func TestSummarizeGlass(t *testing.T) {
	s := SummarizeGlass([]GlassScore{
		{Recall: 0.9, HasWindows: true, False: 0.01, HasNever: true},
		{Recall: 0.2, HasWindows: true, False: 0.07, HasNever: true},
		{Recall: 0.5, HasWindows: true},
		{Recall: 0.6, HasWindows: true, False: 0.0, HasNever: true},
		{False: 0.02, HasNever: true}, // no windows: not in recall
	})
	want := GlassSummary{MeanRecall: 0.55, MedianRecall: 0.55, Found: 3, Scored: 4, MeanFalse: 0.025, MaxFalse: 0.07}
	if math.Abs(s.MeanRecall-want.MeanRecall) > 1e-9 || math.Abs(s.MedianRecall-want.MedianRecall) > 1e-9 ||
		s.Found != want.Found || s.Scored != want.Scored || math.Abs(s.MeanFalse-want.MeanFalse) > 1e-9 || s.MaxFalse != want.MaxFalse {
		t.Errorf("got %+v, want %+v", s, want)
	}
	if s := SummarizeGlass(nil); s != (GlassSummary{}) {
		t.Errorf("no photos: %+v", s)
	}
}

// TestKeptOutside: the hull of the annotated parts covers what lies
// between them (a door), and only what the matte keeps beyond the margin
// counts.
func TestKeptOutside(t *testing.T) {
	const w, h = 200, 100
	parts := gray(w, h,
		image.Rect(20, 20, 40, 60),  // a window
		image.Rect(80, 20, 100, 30), // a light
		image.Rect(80, 50, 100, 60)) // a bumper: the hull is 20..100 × 20..60
	alpha := gray(w, h,
		image.Rect(20, 20, 100, 60),  // the car, door included: 3200
		image.Rect(100, 20, 103, 60), // its rounding, within the margin: 120
		image.Rect(150, 10, 160, 90)) // a post far away: 800
	got, ok := KeptOutside(alpha, parts, 0.05)
	if want := 800.0 / (3200 + 120 + 800); !ok || math.Abs(got-want) > 1e-9 {
		t.Errorf("KeptOutside = %.4f, %v; want %.4f", got, ok, want)
	}
	if _, ok := KeptOutside(alpha, gray(w, h), 0.05); ok {
		t.Error("ok with nothing annotated")
	}
}
