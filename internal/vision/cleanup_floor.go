package vision

import (
	"image"
	"slices"
)

// What a second look or a second opinion adds under a car is not always
// car: both see the dark floor under a bumper, the car's shadow, as the
// dark lower bumper they are run for. Two things tell them apart without
// asking either model: where the car stands, and where the picture ends.
const (
	// groundClear is the least height, as a share of the car's, by which
	// the lowest kept rows at both ends of the car (its tyres, in a front,
	// rear or side view) reach below those of its middle third (the
	// bumper or the sills over the floor) for the car to stand on them.
	groundClear = 0.03
	// groundSlack is how far below the tyres' lowest row, as a share of
	// the car's height, an added part may still reach: seen from close, a
	// bumper that juts out towards the camera ends a little lower in the
	// photo than the tyres behind it touch the ground, and the first
	// cleanup may cut a tyre's bottom a little short.
	groundSlack = 0.04
	// padLevel is the largest difference, per colour channel (0-255), of
	// a row or column of padding from its first pixel: a bar of one
	// colour, as the JPEG keeps it; a floor or a wall, even plain, varies
	// more across the photo's width.
	padLevel = 8
	// padBlend is how many rows or columns, in working pixels, of the
	// picture next to a bar count with the bar.
	padBlend = 2
)

// groundLine returns the first row under the car kept in keep (w wide,
// its box box) that is floor by its own tyres: where the lowest kept rows
// of the box's first and last thirds both reach at least groundClear of
// its height below the median lowest row of its middle third, the car
// stands on them, and nothing of it lies further than groundSlack below
// the lower of the two. It returns the grid's height where the car shows
// no such tyres (a pickup whose step bumper the model lost stands on a
// flat foot).
func groundLine(keep []bool, w int, box image.Rectangle) int {
	h := len(keep) / w
	n := box.Dx()
	if n < 3 || box.Dy() == 0 {
		return h
	}
	low := lowestKept(func(i int) bool { return keep[i] }, w, box)
	var middle []int
	for _, y := range low[n/3 : 2*n/3] {
		if y >= 0 {
			middle = append(middle, y)
		}
	}
	if len(middle) == 0 {
		return h
	}
	slices.Sort(middle)
	mid := middle[len(middle)/2]
	left, right := slices.Max(low[:n/3]), slices.Max(low[2*n/3:])
	clearance := int(groundClear * float64(box.Dy()))
	if left-mid < clearance || right-mid < clearance {
		return h
	}
	return min(h, max(left, right)+1+int(groundSlack*float64(box.Dy())))
}

// pictureFrame returns the part of the working grid (its colours work,
// w×h) that holds the picture: a photo padded to a listing's frame (black
// or white bars above and below, or beside it) ends where its picture
// does, and what runs into the padding runs out of the picture. A row or
// column is padding when all its pixels are within padLevel of its first
// one; the frame is the whole grid without colours.
func pictureFrame(work [3]plane, w, h int) image.Rectangle {
	frame := image.Rect(0, 0, w, h)
	if work[0].Pix == nil {
		return frame
	}
	uniform := func(x0, y0, dx, dy, n int) bool {
		i0 := y0*w + x0
		for k := 1; k < n; k++ {
			i := (y0+k*dy)*w + x0 + k*dx
			for c := range work {
				if d := work[c].Pix[i] - work[c].Pix[i0]; d > padLevel || d < -padLevel {
					return false
				}
			}
		}
		return true
	}
	for frame.Min.Y < frame.Max.Y-1 && uniform(0, frame.Min.Y, 1, 0, w) {
		frame.Min.Y++
	}
	for frame.Max.Y-1 > frame.Min.Y && uniform(0, frame.Max.Y-1, 1, 0, w) {
		frame.Max.Y--
	}
	for frame.Min.X < frame.Max.X-1 && uniform(frame.Min.X, 0, 0, 1, h) {
		frame.Min.X++
	}
	for frame.Max.X-1 > frame.Min.X && uniform(frame.Max.X-1, 0, 0, 1, h) {
		frame.Max.X--
	}
	// The picture's last rows blend into a bar (the JPEG's ringing, the
	// grid's resampling): neither picture nor padding.
	in := frame.Inset(padBlend)
	if frame.Min.X > 0 {
		frame.Min.X = min(in.Min.X, frame.Max.X-1)
	}
	if frame.Min.Y > 0 {
		frame.Min.Y = min(in.Min.Y, frame.Max.Y-1)
	}
	if frame.Max.X < w {
		frame.Max.X = max(in.Max.X, frame.Min.X+1)
	}
	if frame.Max.Y < h {
		frame.Max.Y = max(in.Max.Y, frame.Min.Y+1)
	}
	return frame
}
