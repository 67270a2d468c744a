package pipeline

import (
	"image"
	"testing"
)

// fillRect sets r of g to v.
func fillRect(g *image.Gray, r image.Rectangle, v uint8) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			g.Pix[g.PixOffset(x, y)] = v
		}
	}
}

// TestScorePanes draws three panes and a speck: one predicted whole, one
// half (torn), one not at all; the speck is under 0.2% of the photo and is
// no pane.
func TestScorePanes(t *testing.T) {
	r := image.Rect(0, 0, 200, 100)
	windows, glass := image.NewGray(r), image.NewGray(r)
	fillRect(windows, image.Rect(10, 10, 50, 40), 255)   // whole
	fillRect(windows, image.Rect(60, 10, 100, 40), 255)  // torn
	fillRect(windows, image.Rect(110, 10, 150, 40), 255) // missed
	fillRect(windows, image.Rect(170, 80, 175, 83), 255) // 15 px: no pane
	fillRect(glass, image.Rect(8, 8, 52, 42), 255)
	fillRect(glass, image.Rect(60, 10, 80, 40), 200)
	fillRect(glass, image.Rect(110, 10, 150, 40), 100) // under 128: not glass
	if got, want := ScorePanes(glass, windows), (PaneScore{Panes: 3, Torn: 1}); got != want {
		t.Errorf("ScorePanes = %+v, want %+v", got, want)
	}
	// The edges of the band: 15% and 85% predicted are not torn.
	glass = image.NewGray(r)
	fillRect(glass, image.Rect(10, 10, 16, 40), 255) // 6 of 40 columns: 15%
	fillRect(glass, image.Rect(60, 10, 94, 40), 255) // 34 of 40: 85%
	if got, want := ScorePanes(glass, windows), (PaneScore{Panes: 3}); got != want {
		t.Errorf("at the band's edges ScorePanes = %+v, want %+v", got, want)
	}
	if got := ScorePanes(glass, nil); got != (PaneScore{}) {
		t.Errorf("no annotation: %+v", got)
	}
}
