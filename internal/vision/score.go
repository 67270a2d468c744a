package vision

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"slices"
)

// Score compares a predicted mask with a hand-made one, both read as car
// where the value is at least 128.
type Score struct {
	IoU, Precision, Recall float64
}

// Compare scores pred against truth; they must have the same size.
func Compare(pred, truth *image.Gray) Score {
	var tp, fp, fn int
	w, h := truth.Rect.Dx(), truth.Rect.Dy()
	for y := range h {
		pr := pred.Pix[y*pred.Stride : y*pred.Stride+w]
		tr := truth.Pix[y*truth.Stride : y*truth.Stride+w]
		for x := range w {
			p, t := pr[x] >= 128, tr[x] >= 128
			switch {
			case p && t:
				tp++
			case p:
				fp++
			case t:
				fn++
			}
		}
	}
	s := Score{IoU: 1, Precision: 1, Recall: 1}
	if tp+fp+fn > 0 {
		s.IoU = float64(tp) / float64(tp+fp+fn)
	}
	if tp+fp > 0 {
		s.Precision = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		s.Recall = float64(tp) / float64(tp+fn)
	}
	return s
}

// ReadMask reads a hand-made mask or annotation, a PNG, as 8-bit grey (255
// marks what it annotates).
func ReadMask(path string) (*image.Gray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if g, ok := img.(*image.Gray); ok && g.Rect.Min == (image.Point{}) {
		return g, nil
	}
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(g, g.Rect, img, b.Min, draw.Src)
	return g, nil
}

// GlassScore is how a glass layer (8-bit, 255 fully glass) compares with a
// photo's glass annotation, the layer read as glass where it is at least
// 128 (testdata/glass/SOURCES.md).
type GlassScore struct {
	// Recall is the share of the annotated windows' pixels predicted glass;
	// HasWindows is false when the photo has no windows annotated.
	Recall     float64
	HasWindows bool
	// False is the share of the never-glass parts' pixels (paint, lights,
	// bumpers, wheels) predicted glass; HasNever is false when the photo
	// has none annotated.
	False    float64
	HasNever bool
}

// FoundRecall is the recall from which a photo's glass counts as found.
const FoundRecall = 0.5

// Found reports whether the annotated glass was found.
func (s GlassScore) Found() bool { return s.HasWindows && s.Recall >= FoundRecall }

// CompareGlass scores glass against the annotations windows and never
// (255 inside; either may be nil when the photo lacks it). They must have
// glass's size.
func CompareGlass(glass, windows, never *image.Gray) GlassScore {
	share := func(truth *image.Gray) (float64, bool) {
		if truth == nil {
			return 0, false
		}
		return covered(glass, truth)
	}
	var s GlassScore
	s.Recall, s.HasWindows = share(windows)
	s.False, s.HasNever = share(never)
	return s
}

// GlassSummary sums up the glass scores of a set of photos: recall over
// the photos with windows annotated, false glass over those with
// never-glass parts annotated.
type GlassSummary struct {
	MeanRecall, MedianRecall float64
	// Found of Scored photos had their glass found.
	Found, Scored       int
	MeanFalse, MaxFalse float64
}

// SummarizeGlass returns the summary of scores.
func SummarizeGlass(scores []GlassScore) GlassSummary {
	var s GlassSummary
	var recalls []float64
	nf := 0
	for _, g := range scores {
		if g.HasWindows {
			recalls = append(recalls, g.Recall)
			s.MeanRecall += g.Recall
			if g.Found() {
				s.Found++
			}
		}
		if g.HasNever {
			nf++
			s.MeanFalse += g.False
			s.MaxFalse = max(s.MaxFalse, g.False)
		}
	}
	s.Scored = len(recalls)
	if s.Scored > 0 {
		s.MeanRecall /= float64(s.Scored)
		slices.Sort(recalls)
		if m := len(recalls) / 2; len(recalls)%2 == 1 {
			s.MedianRecall = recalls[m]
		} else {
			s.MedianRecall = (recalls[m-1] + recalls[m]) / 2
		}
	}
	if nf > 0 {
		s.MeanFalse /= float64(nf)
	}
	return s
}

// PartsKept is the share of the annotated car parts (parts, read as car
// from 128: glass, lights, bumpers, bonnet, wheels) that the matte alpha
// keeps (alpha at least 128); ok is false when parts annotates nothing.
// A mask must lose no part of the car: this is the measure of that.
func PartsKept(alpha, parts *image.Gray) (share float64, ok bool) {
	return covered(alpha, parts)
}

// covered is the share of truth's pixels (from 128) that mask also holds
// (from 128); ok is false when truth holds none.
func covered(mask, truth *image.Gray) (share float64, ok bool) {
	var in, hit int
	w, h := truth.Rect.Dx(), truth.Rect.Dy()
	for y := range h {
		tr := truth.Pix[y*truth.Stride : y*truth.Stride+w]
		mr := mask.Pix[y*mask.Stride : y*mask.Stride+w]
		for x, t := range tr {
			if t >= 128 {
				in++
				if mr[x] >= 128 {
					hit++
				}
			}
		}
	}
	if in == 0 {
		return 0, false
	}
	return float64(hit) / float64(in), true
}
