package vision

import (
	"image"
	"math"
	"slices"

	"github.com/showroom/showroom/internal/imaging"
)

// A second opinion: IS-Net holds some dark lower bumpers (a pickup's black
// step bumper over a dark floor, seen from behind) at its background, below
// 0.05, and so does a second look at its full input. U2-Netp, a different
// network run on the same photo at 320×320 (a tenth of IS-Net's time),
// sees many of them. Its answer is coarser and takes in more of the
// background elsewhere, so it only adds, and only what a car's foot is:
// regions it calls car where IS-Net called background, in the lower half
// of the car's box, resting on the kept car, within its columns, and not
// running out of the photo where the car does not.
const (
	// opinionLevel is the second model's answer from which a pixel is car
	// by its opinion.
	opinionLevel = 0.5
	// opinionSide widens the car's box by this share of its width on each
	// side for what the second opinion may add: a pickup's rear quarters
	// beside a tailgate the first model kept alone.
	opinionSide = 0.1
	// opinionTouch is the least share of an added region's width along
	// which it must rest on the kept car.
	opinionTouch = 0.3
	// opinionGap is how near, in working pixels, an added region must come
	// to the kept car to rest on it: the first model's unsure rim lies
	// between them.
	opinionGap = 2
	// opinionBlur is the radius, as a share of the grid's diagonal, of the
	// opening that keeps the second opinion's thick regions only.
	opinionBlur = 0.004
)

// opinionRadius is the radius, in pixels of the w×h grid, of the opening
// by opinionBlur.
func opinionRadius(w, h int) int {
	return max(1, int(opinionBlur*math.Hypot(float64(w), float64(h))))
}

// lowestKept returns, for each column of box on a grid w wide, the lowest
// row of box where kept(i) holds for pixel i, or -1 where none does.
func lowestKept(kept func(i int) bool, w int, box image.Rectangle) []int {
	low := make([]int, box.Dx())
	for k := range low {
		low[k] = -1
		x := box.Min.X + k
		for y := box.Max.Y - 1; y >= box.Min.Y; y-- {
			if kept(y*w + x) {
				low[k] = y
				break
			}
		}
	}
	return low
}

// addSecondOpinion adds to keep (w wide, its box box) the regions of the
// second model's answer opinion (on the same grid) that are car by its
// opinion, background by the first model's answer sal, lie in the lower
// half of box and above the row floorY (see groundLine), within its
// columns widened by opinionSide, rest on keep along at least
// opinionTouch of their width, and do not run out of the picture (frame,
// see pictureFrame) where keep does not. It returns the box of what is
// kept.
func addSecondOpinion(keep []bool, sal, opinion plane, w int, box, frame image.Rectangle, floorY int) image.Rectangle {
	if opinion.Pix == nil || box.Empty() {
		return box
	}
	h := len(keep) / w
	side := int(opinionSide * float64(box.Dx()))
	x0, x1 := max(box.Min.X-side, 0), min(box.Max.X+side, w)
	mid := box.Min.Y + box.Dy()/2
	cand := make([]bool, len(keep))
	any := false
	for y := mid; y < min(h, floorY); y++ {
		for x := x0; x < x1; x++ {
			i := y*w + x
			if !keep[i] && sal.Pix[i] < outlineLevel && opinion.Pix[i] >= opinionLevel {
				cand[i] = true
				any = true
			}
		}
	}
	if !any {
		return box
	}
	// The second model's answer, brought up from 320×320, runs a few
	// pixels beyond the first one's all round the car: an opening keeps
	// regions thicker than that blur (a bumper), not the band along the
	// car's outline.
	thick := imaging.Open(cand, w, h, opinionRadius(w, h))
	for i := range cand {
		cand[i] = cand[i] && thick[i]
	}
	labels, comps := imaging.Label(cand, w, h, false)
	// The columns along which each region rests on the kept car (a kept
	// pixel above, or beside it).
	near := imaging.Dilate(keep, w, h, opinionGap)
	touch := make([][]bool, len(comps))
	for i, l := range labels {
		if l < 0 {
			continue
		}
		x := i % w
		if near[i] {
			if touch[l] == nil {
				touch[l] = make([]bool, w)
			}
			touch[l][x] = true
		}
	}
	take := make([]bool, len(comps))
	added := false
	for k, c := range comps {
		n := 0
		for _, t := range touch[k] {
			if t {
				n++
			}
		}
		if float64(n) < opinionTouch*float64(c.Box.Dx()) {
			continue
		}
		if (c.Box.Min.X == x0 && x0 > 0) || (c.Box.Max.X == x1 && x1 < w) {
			continue // cut by the widened columns: it goes on beside the car
		}
		if escapesFrame(c.Box, box, frame) {
			continue
		}
		take[k] = true
		added = true
		box = box.Union(c.Box)
	}
	if !added {
		return box
	}
	for i, l := range labels {
		if l >= 0 && take[l] {
			keep[i] = true
		}
	}
	return box
}

// footFlat and footLevel bound when the car's foot looks cut: its
// lowest kept pixel lies within footLevel of the car's height of the
// box's bottom on at least footFlat of its columns. A car standing on its
// tyres reaches its lowest row at the tyres only (a side view's two, a
// front view's two corners); one whose bumper the model lost floats on a
// straight edge, the bumper line, across its whole width.
const (
	footFlat  = 0.7
	footLevel = 0.08
)

// wantsSecondOpinion reports whether the car c, cleaned from the first
// model's answer sal, looks cut at its foot (footFlat), so that the
// second opinion runs: the second model costs about a sixth of the first
// one's time, too much to run on every photo.
func wantsSecondOpinion(sal plane, c cleaned) bool {
	if !c.found || c.box.Empty() {
		return false
	}
	w := c.matte.W
	level := c.box.Max.Y - 1 - int(footLevel*float64(c.box.Dy()))
	flat, cols := 0, 0
	for _, low := range lowestKept(func(i int) bool { return c.matte.Pix[i] >= 0.5 }, w, c.box) {
		if low < 0 {
			continue
		}
		cols++
		if low >= level {
			flat++
		}
	}
	return cols > 0 && float64(flat) >= footFlat*float64(cols)
}

// Seen straight from the front or the back, a car is symmetric about its
// middle: where the upper half of the kept silhouette is, the lower half
// lost on one side (a bumper's corner under a privacy blur, a step
// bumper's end the models held as floor) is what the other side kept.
const (
	// mirrorSymmetric is the least IoU of the upper half of the car's
	// silhouette with its own mirror image from which the car is seen
	// straight on. A three-quarter view is far below; a front view with
	// its mirrors about 0.95.
	mirrorSymmetric = 0.95
	// mirrorAxis bounds the search for the axis: within this share of
	// the car's width of the box's middle.
	mirrorAxis = 0.1
	// mirrorMost is the largest share of the car's area that completing
	// its lower half by the mirror may add.
	mirrorMost = 0.08
	// mirrorSupportLevel: a pixel the mirror would add stays out where
	// both models are sure it is background (their answers below it): a
	// watermark or a sign kept on one side is not mirrored onto the
	// floor of the other. A privacy blur over a bumper's corner is held
	// a little above it.
	mirrorSupportLevel = 0.02
	// mirrorHang is the widest part, as a share of the car's width, that
	// hangs below the car's foot on one side only and is not mirrored: a
	// number plate under a step bumper (24_dsmlr-tr132's is 0.20 of the
	// car's width; a European plate on a small car about 0.3). Its mirror
	// image is floor.
	mirrorHang = 0.3
	// mirrorHangDepth is how far, as a share of the car's height, a
	// stretch may reach below the foot's opened line and still be the
	// foot: its own unevenness (27_dsmlr-tr135's step bumper's right end
	// reaches 1.7% below the step, 24_dsmlr-tr132's step bumper brackets
	// 4.6%, the cartoon eyes drawn over 11_dsmlr-tr110's bumper 4.4%), not
	// a part hanging from it (24's number plate, 6.2%).
	mirrorHangDepth = 0.05
	// mirrorEnds is the share of the car's width, from its outermost
	// columns reaching its lower half, that counts as its ends for
	// mirrorHang: seen from the front, a tyre's lowest row rises towards
	// the car's side over 1% of its width on 12_dsmlr-tr111, 5% on
	// 139_dsmlr-tr269.
	mirrorEnds = 0.08
	// mirrorHangLeast is the narrowest stretch, as a share of the car's
	// width, that counts as hanging: a number plate (24_dsmlr-tr132's is
	// 20%), not the deepest bottom of a rear view's tyre inside the
	// bumper's ends (1-4% on 054_dsmlr-tr17), a bracket, a tow hitch, nor
	// a three-quarter view's far tyre (12.5% on 129_dsmlr-tr256).
	mirrorHangLeast = 0.15
)

// mirrorAxisOf returns twice the column of the axis about which the upper
// half of keep (w wide, its box box) is most symmetric, and the IoU there.
func mirrorAxisOf(keep []bool, w int, box image.Rectangle) (axis2 int, iou float64) {
	mid := box.Min.Y + box.Dy()/2
	step := max(1, box.Dx()/160)
	c2 := box.Min.X + box.Max.X - 1
	reach := int(mirrorAxis * float64(box.Dx()))
	best := -1.0
	for a := c2 - 2*reach; a <= c2+2*reach; a++ {
		inter, uni := 0, 0
		for y := box.Min.Y; y < mid; y += step {
			row := keep[y*w : (y+1)*w]
			for x := box.Min.X; x < box.Max.X; x += step {
				m := a - x
				k := row[x]
				km := m >= 0 && m < w && row[m]
				if k && km {
					inter++
				}
				if k || km {
					uni++
				}
			}
		}
		if uni == 0 {
			continue
		}
		if s := float64(inter) / float64(uni); s > best {
			best, axis2 = s, a
		}
	}
	return axis2, best
}

// completeMirror sets the pixels of the lower half of the car's box whose
// mirror image about the car's axis is kept, when the car is seen
// straight on (the upper half of keep symmetric, mirrorSymmetric), and
// they add together at most mirrorMost of the car. What hangs below the
// car's foot on one side only (footLine, mirrorHang) is not mirrored. It
// returns the box of what is kept.
func completeMirror(keep []bool, support []float32, w int, box image.Rectangle) image.Rectangle {
	if box.Empty() {
		return box
	}
	axis2, iou := mirrorAxisOf(keep, w, box)
	if iou < mirrorSymmetric {
		return box
	}
	area := 0
	for _, k := range keep {
		if k {
			area++
		}
	}
	mid := box.Min.Y + box.Dy()/2
	foot := mirrorFoot(lowestKept(func(i int) bool { return keep[i] }, w, box), mid, axis2, box)
	var add []int
	for y := mid; y < box.Max.Y; y++ {
		row := keep[y*w : (y+1)*w]
		for x := box.Min.X; x < box.Max.X; x++ {
			m := axis2 - x
			if row[x] || m < box.Min.X || m >= box.Max.X || !row[m] || y > foot[m-box.Min.X] {
				continue
			}
			add = append(add, y*w+x)
		}
	}
	if len(add) == 0 || float64(len(add)) > mirrorMost*float64(area) {
		return box
	}
	// A view a little off straight makes the two sides differ by a sliver
	// along the outline; what a side lost is thicker (opinionBlur).
	set := make([]bool, len(keep))
	for _, i := range add {
		set[i] = true
	}
	h := len(keep) / w
	thick := imaging.Open(set, w, h, opinionRadius(w, h))
	for _, i := range add {
		if thick[i] && support[i] >= mirrorSupportLevel {
			keep[i] = true
			box = box.Union(image.Rect(i%w, i/w, i%w+1, i/w+1))
		}
	}
	return box
}

// mirrorFoot returns, for each column of the car's box, the lowest row
// completeMirror copies from it: low is the lowest kept row per column
// (lowestKept; mirrorFoot changes it), mid the box's middle row and axis2
// twice the mirror's column. A column copies down to its own lowest row,
// but where a part hangs below the car's foot on one side only (footLine,
// mirrorHang) it copies down to the foot: the hanging part's mirror image
// is floor.
func mirrorFoot(low []int, mid, axis2 int, box image.Rectangle) []int {
	// The car's foot, in the columns that reach its lower half: mirrors
	// standing out beyond the body and tyres take no part, so that the
	// tyres stay the ends of the foot.
	for k, y := range low {
		if y < mid {
			low[k] = -1
		}
	}
	// The car's outer columns on either side are its ends: a tyre's or a
	// corner's rounding rises towards the car's side there, and what
	// reaches down next to it is no hanging part.
	first, last := -1, -1
	for k, y := range low {
		if y >= 0 {
			last = k
			if first < 0 {
				first = k
			}
		}
	}
	ends := int(mirrorEnds * float64(box.Dx()))
	inner := slices.Clone(low)
	for k := range inner {
		if k < first+ends || k > last-ends {
			inner[k] = -1
		}
	}
	foot := footLine(inner, int(mirrorHang*float64(box.Dx())/2))
	for k, y := range inner {
		if y < 0 {
			foot[k] = low[k]
		}
	}
	depth := int(mirrorHangDepth * float64(box.Dy()))
	n := len(low)
	hangs := make([]bool, n)
	for k, y := range low {
		hangs[k] = y >= 0 && y-foot[k] > depth // else the foot's own unevenness
	}
	// A stretch that hangs on both sides (a rear view's tyres inside the
	// bumper's ends, what the other side kept of them) is a pair, not a
	// part hanging on one side only.
	paired := slices.Clone(hangs)
	least := int(mirrorHangLeast * float64(box.Dx()))
	for a := 0; a < n; {
		if !hangs[a] {
			a++
			continue
		}
		b := a
		for b < n && hangs[b] {
			b++
		}
		// The run's mirror image, in the foot's columns.
		m0, m1 := max(axis2-2*box.Min.X-(b-1), 0), min(axis2-2*box.Min.X-a, n-1)
		if b-a >= least && (m0 > m1 || !slices.Contains(hangs[m0:m1+1], true)) {
			clear(paired[a:b])
		}
		a = b
	}
	for k, y := range low {
		if !hangs[k] || paired[k] {
			foot[k] = y
		}
	}
	return foot
}

// footLine returns the car's foot without what hangs below it on one side:
// low is the lowest kept row per column (lowestKept), and a stretch of
// columns reaching below its neighbours on both sides within a window of
// 2r+1 columns is levelled to them (an opening of the line: the highest
// of low within r, then the deepest of those within r). A stretch
// reaching out to the line's end (a tyre, a bumper's corner) is the car's
// side, not hanging: beyond the ends the line counts as the deepest, so
// the end columns never come up. Columns without car (-1) take no part:
// they end the line as its ends do.
func footLine(low []int, r int) []int {
	n := len(low)
	// The highest lowest row within r of each column, and of each of the
	// r columns beyond either end (indices -r..n+r-1, shifted by r).
	high := make([]int, n+2*r)
	for k := range high {
		high[k] = -1
		i := k - r
		for j := max(i-r, 0); j <= min(i+r, n-1); j++ {
			if low[j] >= 0 && (high[k] < 0 || low[j] < high[k]) {
				high[k] = low[j]
			}
		}
	}
	foot := make([]int, n)
	for i := range foot {
		foot[i] = -1
		if low[i] < 0 {
			continue
		}
		for k := i; k <= i+2*r; k++ {
			foot[i] = max(foot[i], high[k])
		}
	}
	return foot
}

// mirrorSupport is, per pixel, the larger of the two models' answers
// (the first alone without a second opinion).
func mirrorSupport(sal, opinion plane) []float32 {
	if opinion.Pix == nil {
		return sal.Pix
	}
	out := make([]float32, len(sal.Pix))
	for i, v := range sal.Pix {
		out[i] = max(v, opinion.Pix[i])
	}
	return out
}
