package pipeline

import "image"

// Torn-pane scoring (issue 27): a pane is a 4-connected region of a
// photo's annotated windows of at least paneMinShare of the photo; it is
// torn when more than tornLow and less than tornHigh of it is predicted
// glass (the layer read as glass from 128, as vision.CompareGlass reads
// it). A torn pane shows as a see-through patch beside glass left as
// photographed, which a dealer sees at once.
const (
	paneMinShare = 0.002
	tornLow      = 0.15
	tornHigh     = 0.85
)

// PaneScore counts a photo's annotated panes and how many the glass tore.
type PaneScore struct {
	Panes, Torn int
}

// ScorePanes scores glass (255 fully glass) against the annotation windows
// (255 inside); both have the photo's size. A nil windows has no panes.
func ScorePanes(glass, windows *image.Gray) PaneScore {
	if windows == nil {
		return PaneScore{}
	}
	w, h := windows.Rect.Dx(), windows.Rect.Dy()
	set := make([]bool, w*h)
	for y := range h {
		row := windows.Pix[y*windows.Stride : y*windows.Stride+w]
		for x, v := range row {
			set[y*w+x] = v >= 128
		}
	}
	labels, comps := components(set, w, h)
	hit := make([]int, len(comps))
	for y := range h {
		g := glass.Pix[y*glass.Stride : y*glass.Stride+w]
		for x := range w {
			if l := labels[y*w+x]; l >= 0 && g[x] >= 128 {
				hit[l]++
			}
		}
	}
	var s PaneScore
	for l, c := range comps {
		if float64(c.area) < paneMinShare*float64(w*h) {
			continue
		}
		s.Panes++
		if f := float64(hit[l]) / float64(c.area); f > tornLow && f < tornHigh {
			s.Torn++
		}
	}
	return s
}

// Add sums two photos' pane counts.
func (s PaneScore) Add(o PaneScore) PaneScore {
	return PaneScore{s.Panes + o.Panes, s.Torn + o.Torn}
}
