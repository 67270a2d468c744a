package vision

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
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
