package vision

import (
	"image"
	"slices"
	"testing"
)

// keptWith runs the cleanup on sal with the second model's answer opinion
// and returns what its matte keeps.
func keptWith(t *testing.T, sal, opinion plane) []bool {
	t.Helper()
	c := cleanup(sal, [3]plane{}, opinion)
	if !c.found {
		t.Fatal("no car found")
	}
	got := make([]bool, len(c.matte.Pix))
	for i, v := range c.matte.Pix {
		got[i] = v >= 0.5
	}
	return got
}

// pickupStepBumper is a pickup seen from behind on a 400×300 photo whose
// black step bumper the first model holds as floor (0.02) and the second
// model sees (0.9); the second model also takes in a reflection under
// the bed that runs out of the photo's bottom, a sign post beside the car,
// and a lamp above the car's middle.
func pickupStepBumper() (sal, opinion plane, bumper image.Rectangle, notCar []image.Rectangle) {
	const w, h = 400, 300
	sal, opinion = newPlane(w, h), newPlane(w, h)
	clear(sal.Pix)
	clear(opinion.Pix)
	bed, cab := image.Rect(80, 120, 320, 220), image.Rect(120, 60, 280, 120)
	bumper = image.Rect(100, 220, 300, 250)
	for _, p := range []plane{sal, opinion} {
		fill(p, bed, 0.98)
		fill(p, cab, 0.98)
	}
	fill(sal, bumper, 0.02)
	fill(opinion, bumper, 0.9)
	notCar = []image.Rectangle{
		image.Rect(305, 220, 318, 300), // a reflection under the bed, to the photo's bottom
		image.Rect(0, 150, 40, 240),    // a sign post at the photo's left
		image.Rect(330, 20, 360, 60),   // a lamp, above the car's middle
	}
	for _, r := range notCar {
		fill(opinion, r, 0.9)
	}
	return sal, opinion, bumper, notCar
}

// TestSecondOpinionAddsAStepBumper: what the second model sees of the
// car's foot and the first held as floor is kept when it rests on the
// car's lower half within its columns; what it sees elsewhere is not.
func TestSecondOpinionAddsAStepBumper(t *testing.T) {
	sal, opinion, bumper, notCar := pickupStepBumper()
	if s := share(keptWith(t, sal, plane{}), sal.W, bumper); s > 0.1 {
		t.Fatalf("without a second opinion kept %.2f of the bumper: the drawing does not test the rule", s)
	}
	got := keptWith(t, sal, opinion)
	if s := share(got, sal.W, bumper); s < 0.95 {
		t.Errorf("kept %.2f of the step bumper the second model sees, want all", s)
	}
	for _, r := range notCar {
		if s := share(got, sal.W, r); s > 0 {
			t.Errorf("kept %.2f of %v, which is not car", s, r)
		}
	}
}

// frontView is a car seen straight from the front on a 400×300 photo:
// body, cabin and two mirrors, symmetric about x = 200, whose lower right
// corner (a bumper's end under a privacy blur) the model holds as
// background (0.1), and a watermark kept over its lower left side, beyond
// which the model is sure of the floor (0) on the right; skew moves the
// cabin and mirrors right by that many pixels (a three-quarter view).
func frontView(skew int) (sal plane, corner, mark image.Rectangle) {
	sal, _ = boxCar(image.Rect(80, 130, 320, 250), image.Rect(110+skew, 70, 290+skew, 130))
	fill(sal, image.Rect(90+skew, 110, 110+skew, 125), 0.95)
	fill(sal, image.Rect(290+skew, 110, 310+skew, 125), 0.95)
	corner = image.Rect(270, 215, 320, 250)
	fill(sal, corner, 0.1)
	fill(sal, image.Rect(60, 200, 80, 240), 0.98)
	return sal, corner, image.Rect(320, 200, 340, 240)
}

// TestCleanupMirrorsAStraightOnView: a car seen straight on is symmetric,
// so what its lower half lost on one side, the other side kept, comes
// back, but not where the model is sure of the floor; a three-quarter
// view is not symmetric, and is left as it is.
func TestCleanupMirrorsAStraightOnView(t *testing.T) {
	sal, corner, mark := frontView(0)
	got := keptWith(t, sal, plane{})
	if s := share(got, sal.W, corner); s < 0.95 {
		t.Errorf("front view: kept %.2f of the bumper's corner the other side shows, want all", s)
	}
	if s := share(got, sal.W, mark); s > 0 {
		t.Errorf("front view: kept %.2f of the floor mirroring a watermark, want none", s)
	}
	sal, corner, _ = frontView(40)
	if s := share(keptWith(t, sal, plane{}), sal.W, corner); s > 0.1 {
		t.Errorf("three-quarter view: kept %.2f of the corner, want none (no symmetry to go by)", s)
	}
}

// hangingPlate is frontView(0) with a number plate hanging under the
// bumper right of the car's middle (kept, 0.98), a fifth of the car's
// width as on 24_dsmlr-tr132, and under its mirror image on the left a
// kerb stone the model holds a little above the floor (0.05).
func hangingPlate() (sal plane, corner, plate, kerb image.Rectangle) {
	sal, corner, _ = frontView(0)
	plate = image.Rect(212, 250, 260, 272)
	fill(sal, plate, 0.98)
	kerb = image.Rect(141, 250, 189, 272) // the plate's mirror image about x = 200
	fill(sal, kerb, 0.05)
	return sal, corner, plate, kerb
}

// TestCleanupMirrorsNoHangingPart: a part hanging under the car's foot
// on one side only (a number plate under a step bumper) is narrower than
// the foot; its mirror image is floor, not car, and is not added. The
// bumper's corner the other side keeps still is.
func TestCleanupMirrorsNoHangingPart(t *testing.T) {
	sal, corner, plate, kerb := hangingPlate()
	got := keptWith(t, sal, plane{})
	if s := share(got, sal.W, plate); s < 0.95 {
		t.Errorf("kept %.2f of the hanging plate, want all (the drawing does not test the rule)", s)
	}
	if s := share(got, sal.W, kerb); s > 0 {
		t.Errorf("kept %.2f of the kerb under the plate's mirror image, want none", s)
	}
	if s := share(got, sal.W, corner); s < 0.95 {
		t.Errorf("kept %.2f of the bumper's corner the other side shows, want all", s)
	}
}

// TestFootLine: a stretch hanging below its neighbours on both sides,
// narrower than the window (a plate), is levelled; one reaching the
// line's end (a tyre) stays, however narrow; a wide one (a bumper) stays.
func TestFootLine(t *testing.T) {
	for _, c := range []struct {
		low, want []int
	}{
		{[]int{9, 7, 7, 7, 9, 9, 7, 7, 7, 7}, []int{9, 7, 7, 7, 7, 7, 7, 7, 7, 7}},
		{[]int{7, 7, 7, 9, 9, 9, 9, 9, 7, 7}, []int{7, 7, 7, 9, 9, 9, 9, 9, 7, 7}},
		{[]int{-1, 7, 7, 9, 9, 7, 7, 7, 7, 8}, []int{-1, 7, 7, 7, 7, 7, 7, 7, 7, 8}},
		{[]int{-1, -1, 9, 9, 7, 7, 7, 7, 7, -1}, []int{-1, -1, 9, 9, 7, 7, 7, 7, 7, -1}},
	} {
		if got := footLine(c.low, 2); !slices.Equal(got, c.want) {
			t.Errorf("footLine(%v, 2) = %v, want %v", c.low, got, c.want)
		}
	}
}

// TestCleanupMirrorsATyre: a front view whose mirrors stand out beyond
// its body and tyres, with the bottom of its right tyre lost (a privacy
// blur): the tyres reach below the bumper, but at the car's ends (their
// lowest rows rising towards the car's side), so the left one is no
// hanging part, and the right one's bottom comes back.
func TestCleanupMirrorsATyre(t *testing.T) {
	sal, _ := boxCar(image.Rect(100, 130, 300, 240), image.Rect(130, 70, 270, 130))
	fill(sal, image.Rect(60, 110, 130, 127), 0.95) // the mirrors
	fill(sal, image.Rect(270, 110, 340, 127), 0.95)
	fill(sal, image.Rect(100, 240, 132, 262), 0.98) // the tyres
	fill(sal, image.Rect(268, 240, 300, 262), 0.98)
	fill(sal, image.Rect(100, 252, 104, 262), 0) // their rounding
	fill(sal, image.Rect(296, 252, 300, 262), 0)
	lost := image.Rect(268, 248, 296, 262)
	fill(sal, lost, 0.1)
	if s := share(keptWith(t, sal, plane{}), sal.W, lost); s < 0.95 {
		t.Errorf("kept %.2f of the tyre's bottom the other tyre shows, want all", s)
	}
}

// TestCleanupMirrorsABracket: brackets hang under the bumper on both
// sides, and a number plate right of the middle; the right bracket's
// inner corner is lost (0.1). A bracket is narrower than a plate
// (mirrorHangLeast), so its corner comes back; the plate's mirror image,
// the floor, does not.
func TestCleanupMirrorsABracket(t *testing.T) {
	sal, _ := boxCar(image.Rect(80, 130, 320, 250), image.Rect(110, 70, 290, 130))
	fill(sal, image.Rect(90, 110, 110, 125), 0.95)
	fill(sal, image.Rect(290, 110, 310, 125), 0.95)
	fill(sal, image.Rect(96, 250, 120, 264), 0.98) // the brackets
	fill(sal, image.Rect(280, 250, 304, 264), 0.98)
	lost := image.Rect(280, 250, 286, 264)
	fill(sal, lost, 0.1)
	fill(sal, image.Rect(230, 250, 280, 272), 0.98) // the plate
	kerb := image.Rect(120, 250, 170, 272)
	fill(sal, kerb, 0.05)
	got := keptWith(t, sal, plane{})
	if s := share(got, sal.W, lost); s < 0.95 {
		t.Errorf("kept %.2f of the bracket's corner the other bracket shows, want all", s)
	}
	if s := share(got, sal.W, kerb); s > 0 {
		t.Errorf("kept %.2f of the kerb under the plate's mirror image, want none", s)
	}
}

// TestCleanupMirrorsAStepBumpersEnd: a step bumper whose ends are
// rounded, and just inside them 4 pixels lower than its middle (2% of
// the car's height: the foot's own unevenness, not a hanging part); its
// left end is lost (0.1) and comes back whole.
func TestCleanupMirrorsAStepBumpersEnd(t *testing.T) {
	sal, _ := boxCar(image.Rect(80, 130, 320, 240), image.Rect(110, 70, 290, 130))
	fill(sal, image.Rect(90, 110, 110, 125), 0.95)
	fill(sal, image.Rect(290, 110, 310, 125), 0.95)
	fill(sal, image.Rect(90, 240, 310, 260), 0.98)  // the step
	fill(sal, image.Rect(110, 260, 150, 264), 0.98) // lower inside its ends
	fill(sal, image.Rect(250, 260, 290, 264), 0.98)
	fill(sal, image.Rect(90, 252, 110, 260), 0) // the rounded ends
	fill(sal, image.Rect(290, 252, 310, 260), 0)
	lost := image.Rect(90, 240, 150, 264)
	fill(sal, image.Rect(90, 240, 110, 252), 0.1)
	fill(sal, image.Rect(110, 240, 150, 264), 0.1)
	got := keptWith(t, sal, plane{})
	if s := share(got, sal.W, image.Rect(110, 240, 150, 264)); s < 0.95 {
		t.Errorf("kept %.2f of the step's lost end %v the other end shows, want all", s, lost)
	}
}

// TestCleanupMirrorsInsetTyres: a rear view whose tyres, a sixth of the
// car's width each, stand inside the bumper's ends and reach below it;
// the right tyre's bottom is lost (0.1). What the right side kept of its
// tyre hangs too: the tyres are a pair, and the left one is mirrored.
func TestCleanupMirrorsInsetTyres(t *testing.T) {
	sal, _ := boxCar(image.Rect(80, 130, 320, 240), image.Rect(110, 70, 290, 130))
	fill(sal, image.Rect(90, 110, 110, 125), 0.95)
	fill(sal, image.Rect(290, 110, 310, 125), 0.95)
	fill(sal, image.Rect(100, 240, 140, 262), 0.98) // the tyres
	fill(sal, image.Rect(260, 240, 300, 262), 0.98)
	lost := image.Rect(260, 251, 300, 262)
	fill(sal, lost, 0.1)
	if s := share(keptWith(t, sal, plane{}), sal.W, lost); s < 0.95 {
		t.Errorf("kept %.2f of the tyre's bottom the other tyre shows, want all", s)
	}
}
