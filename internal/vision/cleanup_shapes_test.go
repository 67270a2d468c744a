package vision

import (
	"image"
	"testing"
)

// keptOf runs the cleanup on sal and returns what its matte keeps.
func keptOf(t *testing.T, sal plane) ([]bool, cleaned) {
	t.Helper()
	c := cleanup(sal, [3]plane{}, plane{})
	if !c.found {
		t.Fatal("no car found")
	}
	got := make([]bool, len(c.matte.Pix))
	for i, v := range c.matte.Pix {
		got[i] = v >= 0.5
	}
	return got, c
}

// share is the part of r that got keeps.
func share(got []bool, w int, r image.Rectangle) float64 {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if got[y*w+x] {
				n++
			}
		}
	}
	return float64(n) / float64(r.Dx()*r.Dy())
}

// pickupFromBehind is the saliency of a pickup seen from behind: the
// tailgate and bed below, the cab above them, narrower, whose rear window
// the model sees through to the sky (low saliency), so that the cab is a
// frame: a roof strip thinner than the lettering cut over the window, and
// two pillars.
func pickupFromBehind() (sal plane, cab, window image.Rectangle) {
	const w, h = 400, 300
	sal = newPlane(w, h)
	fill(sal, image.Rect(60, 150, 340, 250), 0.98) // tailgate and bed
	cab = image.Rect(95, 88, 305, 150)
	fill(sal, cab, 0.98)
	window = image.Rect(110, 98, 290, 140)
	fill(sal, window, 0.15)
	fill(sal, image.Rect(80, 112, 95, 126), 0.95)   // the mirrors, on the
	fill(sal, image.Rect(305, 112, 320, 126), 0.95) // cab's sides
	return sal, cab, window
}

func TestCleanupKeepsAPickupsCab(t *testing.T) {
	sal, cab, window := pickupFromBehind()
	got, c := keptOf(t, sal)
	if s := share(got, sal.W, cab); s < 0.98 {
		t.Errorf("kept %.2f of the cab (its roof over the see-through window, the window filled), want all", s)
	}
	if s := share(got, sal.W, window); s < 0.98 {
		t.Errorf("kept %.2f of the cab's rear window, want all (glass is car)", s)
	}
	for _, m := range []image.Rectangle{image.Rect(80, 112, 95, 126), image.Rect(305, 112, 320, 126)} {
		if s := share(got, sal.W, m); s < 0.9 {
			t.Errorf("kept %.2f of the mirror %v, want all", s, m)
		}
	}
	if c.box.Min.Y > cab.Min.Y {
		t.Errorf("box %v starts below the cab's roof at %d", c.box, cab.Min.Y)
	}
}

// sedanWithPerson is the saliency of a car seen from the side with a
// person leaning on its bonnet, standing beside it: the model takes the
// person in with the car, one region, the torso as broad as the car's
// pillars; car is the car alone, person the person's part above the bonnet.
func sedanWithPerson() (sal plane, car []bool, person image.Rectangle) {
	sal, car = boxCar(image.Rect(40, 140, 330, 240), image.Rect(110, 85, 250, 140))
	fill(sal, image.Rect(292, 60, 320, 150), 0.97) // torso, down onto the bonnet
	for y := 40; y < 60; y++ {                     // head
		fill(sal, image.Rect(298, y, 314, y+1), 0.97)
	}
	fill(sal, image.Rect(270, 100, 292, 112), 0.95) // an arm, reaching back over the bonnet
	fill(sal, image.Rect(296, 150, 318, 256), 0.97) // legs, to the ground nearer the camera
	return sal, car, image.Rect(270, 40, 320, 138)
}

func TestCleanupDropsAPersonLeaningOnTheCar(t *testing.T) {
	sal, car, person := sedanWithPerson()
	got, c := keptOf(t, sal)
	if s := share(got, sal.W, person); s > 0.05 {
		t.Errorf("kept %.2f of the person above the bonnet, want none", s)
	}
	if v := iou(got, car); v < 0.9 {
		t.Errorf("IoU with the car %.3f, want >= 0.9 (the person's legs in front of the car's side stay)", v)
	}
	if c.box.Min.Y < 80 {
		t.Errorf("box %v reaches the person's head", c.box)
	}
}

// TestCleanupKeepsTallCarParts checks that the tall-peak cut spares what
// rises high on a car but is wide: a single-cab pickup's cab seen from
// the side (a third of its length, half its height above the bed).
func TestCleanupKeepsTallCarParts(t *testing.T) {
	const w, h = 400, 300
	sal := newPlane(w, h)
	bed, cab := image.Rect(30, 160, 370, 240), image.Rect(215, 90, 320, 160)
	fill(sal, bed, 0.98)
	fill(sal, cab, 0.98)
	got, _ := keptOf(t, sal)
	if s := share(got, w, cab); s < 0.98 {
		t.Errorf("kept %.2f of a single cab, want all", s)
	}
}

// TestCleanupDropsAPersonBehindTheCar: a person standing behind a car
// shows above its roof only, touching it from above.
func TestCleanupDropsAPersonBehindTheCar(t *testing.T) {
	sal, _ := drawnCar()
	fill(sal, image.Rect(355, 120, 375, 240), 0) // no pedestrian beside it here
	for y := 30; y < 45; y++ {                   // head
		fill(sal, image.Rect(184, y, 198, y+1), 0.96)
	}
	person := image.Rect(176, 45, 206, 85) // shoulders down to the roof
	fill(sal, person, 0.96)
	got, c := keptOf(t, sal)
	if s := share(got, sal.W, image.Rect(176, 30, 206, 82)); s > 0.05 {
		t.Errorf("kept %.2f of the person above the roof, want none", s)
	}
	if c.box.Min.Y < 80 {
		t.Errorf("box %v reaches the person's head", c.box)
	}
}

// sideCar is the saliency of a saloon seen from the side, standing inside
// the photo, and the car alone.
func sideCar() (sal plane, car []bool) {
	return boxCar(image.Rect(60, 140, 330, 240), image.Rect(120, 85, 270, 140))
}

// boxCar is the saliency, on a 400×300 photo, of a car drawn as its body
// and cabin boxes, and the car alone.
func boxCar(body, cabin image.Rectangle) (sal plane, car []bool) {
	const w, h = 400, 300
	sal = newPlane(w, h)
	clear(sal.Pix)
	fill(sal, body, 0.98)
	fill(sal, cabin, 0.98)
	car = make([]bool, w*h)
	for y := range h {
		for x := range w {
			p := image.Pt(x, y)
			car[y*w+x] = p.In(body) || p.In(cabin)
		}
	}
	return sal, car
}

// keptBeside counts the pixels got keeps that are not car.
func keptBeside(got, car []bool) int {
	n := 0
	for i := range got {
		if got[i] && !car[i] {
			n++
		}
	}
	return n
}

// TestCleanupDropsAKerbLine: the model joins a kerb or a floor line to
// the car's lower edge, thinner than the lettering cut and starting below
// the roof line, like a running board; it runs out of the photo, where
// the car does not.
func TestCleanupDropsAKerbLine(t *testing.T) {
	sal, car := sideCar()
	fill(sal, image.Rect(300, 232, 400, 238), 0.9) // from under the rear bumper to the photo's edge
	got, c := keptOf(t, sal)
	if n := keptBeside(got, car); n > 50 {
		t.Errorf("kept %d pixels of the kerb line, want none", n)
	}
	if c.box.Max.X > 340 {
		t.Errorf("box %v runs out along the kerb", c.box)
	}
	// A running board of the same thickness stays: it ends with the car.
	sal, _ = sideCar()
	board := image.Rect(110, 240, 290, 246)
	fill(sal, board, 0.9)
	got, _ = keptOf(t, sal)
	if s := share(got, sal.W, board); s < 0.9 {
		t.Errorf("kept %.2f of the running board, want all", s)
	}
}

// TestCleanupDropsASignAtTheCarsEnd: a sign on a post behind the car's
// rear, standing out beyond it, rises above the car like a person behind
// it, at the silhouette's end, where there is no car beyond to compare it
// with.
func TestCleanupDropsASignAtTheCarsEnd(t *testing.T) {
	sal, car := sideCar()
	fill(sal, image.Rect(300, 60, 312, 140), 0.95) // the post, down onto the boot
	fill(sal, image.Rect(280, 20, 345, 60), 0.95)  // the sign
	got, c := keptOf(t, sal)
	if n := keptBeside(got, car); n > 100 {
		t.Errorf("kept %d pixels of the sign and its post, want none", n)
	}
	if c.box.Min.Y < 80 {
		t.Errorf("box %v reaches the sign", c.box)
	}
	// The same car cut by the photo's right edge: what rises at the cut
	// may be the car's own roof, so it is left alone there.
	sal, _ = sideCar()
	fill(sal, image.Rect(270, 85, 400, 240), 0.98) // the cabin runs out of the photo
	got, _ = keptOf(t, sal)
	if s := share(got, sal.W, image.Rect(270, 85, 400, 240)); s < 0.98 {
		t.Errorf("kept %.2f of the cabin the photo cuts, want all", s)
	}
}

// TestSecondLook: the model unsure of the car's lower half (a dark bumper
// between the tyres held between 0.05 and one half) asks for a second look at the car's crop,
// whose answer is taken below the car's middle only; a car the model was
// sure of does not.
func TestSecondLook(t *testing.T) {
	sal, _ := sideCar()
	c := cleanup(sal, [3]plane{}, plane{})
	if _, ok := secondLookCrop(sal, c); ok {
		t.Error("a second look at a car the model was sure of")
	}
	// Seen from behind: the tyres below the body, the lower bumper
	// between them.
	fill(sal, image.Rect(70, 240, 110, 272), 0.98)
	fill(sal, image.Rect(280, 240, 320, 272), 0.98)
	bumper := image.Rect(110, 240, 280, 262)
	fill(sal, bumper, 0.3)
	c = cleanup(sal, [3]plane{}, plane{})
	crop, ok := secondLookCrop(sal, c)
	if !ok {
		t.Fatal("no second look at a car whose bumper the model was unsure of")
	}
	if !bumper.In(crop) || !c.box.In(crop) {
		t.Errorf("crop %v does not hold the car %v and its bumper %v", crop, c.box, bumper)
	}
	// The second look is sure of the bumper, and less sure of the roof.
	look := newPlane(crop.Dx(), crop.Dy())
	clear(look.Pix)
	fill(look, bumper.Sub(crop.Min), 0.9)
	fill(look, image.Rect(120, 85, 270, 140).Sub(crop.Min), 0.4)
	mergeSecondLook(sal, look, crop, c.box, c.floorY)
	got, _ := keptOf(t, sal)
	if s := share(got, sal.W, bumper); s < 0.98 {
		t.Errorf("kept %.2f of the bumper after the second look, want all", s)
	}
	if s := share(got, sal.W, image.Rect(120, 85, 270, 140)); s < 0.98 {
		t.Errorf("kept %.2f of the cabin after the second look, want all (its first answer stands above the middle)", s)
	}
}

// carWithStrip is sideCar with a strip the model joined to it (0.95).
func carWithStrip(strip image.Rectangle) (sal plane, car []bool) {
	sal, car = sideCar()
	fill(sal, strip, 0.95)
	return sal, car
}

// TestCleanupDropsAStripToTheBorder: a strip at the car's foot running out
// of the photo beyond the car's end (a kerb, a floor line, a privacy blur
// over a number plate), as thick as the body and so part of it after the
// lettering cut, is not car; the same car cut by the photo keeps its side.
func TestCleanupDropsAStripToTheBorder(t *testing.T) {
	for _, strip := range []image.Rectangle{
		image.Rect(310, 212, 400, 234), // from the front bumper to the right border
		image.Rect(0, 218, 80, 238),    // from the rear bumper to the left border
	} {
		sal, car := carWithStrip(strip)
		got, c := keptOf(t, sal)
		if n := keptBeside(got, car); n > 150 {
			t.Errorf("strip %v: kept %d pixels of it, want none", strip, n)
		}
		if c.box.Min.X < 55 || c.box.Max.X > 335 {
			t.Errorf("strip %v: box %v runs out along the strip", strip, c.box)
		}
		if v := iou(got, car); v < 0.97 {
			t.Errorf("strip %v: IoU with the car %.3f, want >= 0.97", strip, v)
		}
	}
	// The car cut by the photo's right border: its body runs out there,
	// and so does a low spoiler under it.
	sal, _ := boxCar(image.Rect(60, 140, 400, 240), image.Rect(120, 85, 270, 140))
	fill(sal, image.Rect(300, 240, 400, 250), 0.95)
	got, _ := keptOf(t, sal)
	if s := share(got, sal.W, image.Rect(330, 140, 400, 250)); s < 0.98 {
		t.Errorf("kept %.2f of the car's end the photo cuts, want all", s)
	}
}

// frontWithValance is the saliency, on a 400×300 photo, of a car seen
// from a front three-quarter view: its body, the cabin off its middle, the
// tyres below it, between them a valance the model holds at valance and,
// under it, the bumper's lip; and the car alone (the valance over the lip
// is car). The cabin keeps the view from being symmetric, which would
// complete the lip by its mirror image (completeMirror).
func frontWithValance(valance float32, lip image.Rectangle) (sal plane, car []bool) {
	const w, h = 400, 300
	sal = newPlane(w, h)
	clear(sal.Pix)
	parts := []image.Rectangle{
		image.Rect(80, 100, 320, 220), // body
		image.Rect(100, 70, 220, 100), // cabin
		image.Rect(90, 220, 130, 255), // tyres
		image.Rect(270, 220, 310, 255),
	}
	for _, r := range parts {
		fill(sal, r, 0.98)
	}
	fill(sal, image.Rect(130, 220, 270, 230), valance)
	fill(sal, lip, 0.9)
	parts = append(parts, lip, image.Rect(lip.Min.X, 220, lip.Max.X, lip.Min.Y))
	car = make([]bool, w*h)
	for y := range h {
		for x := range w {
			for _, r := range parts {
				if image.Pt(x, y).In(r) {
					car[y*w+x] = true
				}
			}
		}
	}
	return sal, car
}

// TestCleanupClosesALowerBumper: a car seen from the front, whose lower
// valance and grille between the wheels the model held between background
// and car (0.35), under the body and over the bumper's lower lip, which it
// was sure of. The gap opens to the side between the lip's end and the
// right tyre, so it is not a hole; it is car. Where the model saw floor between
// the body and the lip (0.1), and under a narrow gap, nothing is added.
func TestCleanupClosesALowerBumper(t *testing.T) {
	const w = 400
	front := func(valance float32, lip image.Rectangle) plane {
		sal, _ := frontWithValance(valance, lip)
		return sal
	}
	lip := image.Rect(130, 230, 250, 236) // from the left tyre
	valance := image.Rect(130, 220, 250, 230)
	got, _ := keptOf(t, front(0.35, lip))
	if s := share(got, w, lip); s < 0.95 {
		t.Fatalf("kept %.2f of the bumper's lip, want all", s)
	}
	if s := share(got, w, valance); s < 0.98 {
		t.Errorf("kept %.2f of the valance over the lip, want all", s)
	}
	got, _ = keptOf(t, front(0.1, lip))
	if s := share(got, w, valance); s > 0.3 {
		t.Errorf("kept %.2f of the floor seen between the body and the lip, want none", s)
	}
	// A narrow lip (an exhaust pipe's end): the gap over it stays.
	narrow := image.Rect(130, 230, 140, 236)
	got, _ = keptOf(t, front(0.35, narrow))
	if s := share(got, w, image.Rect(132, 220, 140, 230)); s > 0.3 {
		t.Errorf("kept %.2f of the gap over a narrow part, want none", s)
	}
}

// hatchback is the saliency, on a 400×300 photo, of a hatchback seen from
// the side: the body, and the cabin above it whose rear slopes down to the
// body's end; rear is where the slope lies in row y.
func hatchback() (sal plane, rear func(y int) int) {
	const w, h = 400, 300
	sal = newPlane(w, h)
	rear = func(y int) int { return 170 - (y - 90) }
	fill(sal, image.Rect(100, 150, 360, 250), 0.98) // body
	for y := 90; y < 150; y++ {                     // cabin
		fill(sal, image.Rect(rear(y), y, 330, y+1), 0.98)
	}
	return sal, rear
}

// TestCleanupKeepsAWindowFrame: over a rear window the model sees
// through, the hatch's frame along the slope is a strip thinner than the
// lettering cut that starts above the roof line, far narrower than a
// cabin's roof; it is car because, with the car, it closes the window
// within the car's outline, below the car's top (lettering closing its
// counters on the roof rises above it: TestCleanupKeepsTheCarAlone).
func TestCleanupKeepsAWindowFrame(t *testing.T) {
	sal, rear := hatchback()
	var frame, window []image.Point
	for y := 92; y < 144; y++ {
		for x := rear(y); x < rear(y)+40; x++ {
			v := float32(0.1) // the glass, seen through
			if x < rear(y)+5 {
				v = 0.95 // the frame
				frame = append(frame, image.Pt(x, y))
			} else {
				window = append(window, image.Pt(x, y))
			}
			sal.Pix[y*sal.W+x] = v
		}
	}
	got, _ := keptOf(t, sal)
	keptShare := func(pts []image.Point) float64 {
		n := 0
		for _, p := range pts {
			if got[p.Y*sal.W+p.X] {
				n++
			}
		}
		return float64(n) / float64(len(pts))
	}
	if s := keptShare(frame); s < 0.95 {
		t.Errorf("kept %.2f of the window's frame, want all", s)
	}
	if s := keptShare(window); s < 0.98 {
		t.Errorf("kept %.2f of the see-through rear window, want all (glass is car)", s)
	}
}

// TestCleanupDropsARingBehindTheCar: the ring of a logo on the wall
// behind a car's sloping rear, lower than its roof, closes the wall inside
// it with the car as a frame closes a window, but outside the car's
// outline: it stays cut.
func TestCleanupDropsARingBehindTheCar(t *testing.T) {
	sal, rear := hatchback()
	const cx, cy, r0, r1 = 110, 122, 23, 28
	var ring []image.Point
	for y := cy - r1; y <= cy+r1; y++ {
		for x := cx - r1; x <= cx+r1; x++ {
			d := (x-cx)*(x-cx) + (y-cy)*(y-cy)
			if d >= r0*r0 && d <= r1*r1 && x < rear(y) && y < 150 {
				sal.Pix[y*sal.W+x] = 0.95
				ring = append(ring, image.Pt(x, y))
			}
		}
	}
	got, _ := keptOf(t, sal)
	n := 0
	for _, p := range ring {
		if got[p.Y*sal.W+p.X] {
			n++
		}
	}
	// The ring's ends within the cabin's reach stay, as the outline's
	// parts next to the body do: about a fifth of it.
	if s := float64(n) / float64(len(ring)); s > 0.3 {
		t.Errorf("kept %.2f of the ring behind the car, want it cut beyond the cabin's reach", s)
	}
}
