package vision

import (
	"image"
	"math"

	"github.com/showroom/showroom/internal/imaging"
)

// sideLobeSure and sideLobeGap bound what clipSideLobes cuts.
const (
	// sideLobeSure is the model's answer over the car itself (0.99 and
	// more over a clean body); a neighbour it joins to the car, or a
	// backdrop, it holds lower (0.8-0.95 over a neighbouring van).
	sideLobeSure = 0.98
	// sideLobeGap is how far above the car's lowest row, as a share of
	// its height, a lobe at the photo's side must end: where the photo
	// cuts the car itself, its body there reaches down to its sills or
	// bumper, within about a quarter of its height of the ground.
	sideLobeGap = 0.3
	// sideLobeArea is the least share of the kept object a lobe holds: a
	// mirror the photo cuts is a small part of the car, a neighbour's
	// slice worth cutting is not.
	sideLobeArea = 0.02
)

// clipSideLobes cuts off keep a lobe that runs out of the photo's left or
// right side where the car does not: a slice of a neighbouring car, or of
// a painted backdrop, that the model joined to the car at less than its
// certainty about the car. The car is the main part of what the model is
// surest of (at least sideLobeSure, opened with radius r); the lobe is a
// part of keep beyond a short reach of it that touches a side the car does
// not reach, and ends above the car's foot. box is keep's box; it returns
// the box of what is left.
func clipSideLobes(keep []bool, sal plane, w, h, r int, box image.Rectangle) image.Rectangle {
	if box.Empty() || (box.Min.X > 0 && box.Max.X < w) {
		return box
	}
	sure := make([]bool, len(keep))
	for i, k := range keep {
		sure[i] = k && sal.Pix[i] >= float32(sideLobeSure)
	}
	car, carBox, ok := keepMain(imaging.Open(sure, w, h, r), w, h)
	if !ok {
		return box
	}
	reach := imaging.Dilate(car, w, h, r/2+2)
	rest := make([]bool, len(keep))
	for i, k := range keep {
		rest[i] = k && !reach[i]
	}
	area := 0
	for _, k := range keep {
		if k {
			area++
		}
	}
	labels, comps := imaging.Label(rest, w, h, true)
	foot := box.Max.Y - int(sideLobeGap*float64(box.Dy()))
	cut := make([]bool, len(comps))
	any := false
	for k, c := range comps {
		left := c.Box.Min.X == 0 && carBox.Min.X > 0
		right := c.Box.Max.X == w && carBox.Max.X < w
		if (left || right) && c.Box.Max.Y <= foot && float64(c.Area) >= sideLobeArea*float64(area) {
			cut[k], any = true, true
		}
	}
	if !any {
		return box
	}
	for i, l := range labels {
		if l >= 0 && cut[l] {
			keep[i] = false
		}
	}
	return keptBox(keep, w, box)
}

// footLobeBand and footLobeMargin bound what clipFootLobes cuts.
const (
	// footLobeBand is the share of the car's height, from its lowest row
	// up, that is its foot: bumpers, sills and tyres.
	footLobeBand = 0.3
	// footLobeMargin is how far, as a share of the car's width, its foot
	// may reach beyond the sides of the body above it: a bumper's corner
	// or a tyre seen from low down stands out a little.
	footLobeMargin = 0.03
)

// clipFootLobes cuts off keep what its foot (the lowest footLobeBand of
// box) holds beyond the sides of the car above it: a car's bumpers, sills
// and tyres lie under its body, within the span of its wings and mirrors,
// in any view, while a seller's watermark in the photo's corner, which the
// model joins to a bumper it touches, or a patch of floor beside a tyre,
// stands out sideways at the car's foot. A side where the car runs out of
// the photo is left alone. It returns the box of what is left.
func clipFootLobes(keep []bool, w int, box image.Rectangle) image.Rectangle {
	if box.Dx() < 3 || box.Dy() < 3 {
		return box
	}
	foot := box.Max.Y - int(footLobeBand*float64(box.Dy()))
	above := keptBox(keep, w, image.Rect(box.Min.X, box.Min.Y, box.Max.X, foot))
	if above.Empty() {
		return box
	}
	margin := int(math.Ceil(footLobeMargin * float64(box.Dx())))
	left, right := above.Min.X-margin, above.Max.X-1+margin
	if box.Min.X == 0 {
		left = 0
	}
	if box.Max.X == w {
		right = w
	}
	if left <= box.Min.X && right >= box.Max.X-1 {
		return box
	}
	for y := foot; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if x < left || x > right {
				keep[y*w+x] = false
			}
		}
	}
	return keptBox(keep, w, box)
}
