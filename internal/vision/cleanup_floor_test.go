package vision

import (
	"image"
	"testing"
)

// TestSecondLookStopsAtTheTyres: a car seen from behind stands on its two
// tyres, its lower bumper between them held at 0.3; the second look is
// sure of the bumper and also of the car's shadow under it, which reaches
// below the tyres. The bumper is kept, the shadow below the tyres is not.
func TestSecondLookStopsAtTheTyres(t *testing.T) {
	sal, _ := sideCar()
	fill(sal, image.Rect(70, 240, 110, 272), 0.98)
	fill(sal, image.Rect(280, 240, 320, 272), 0.98)
	bumper := image.Rect(110, 240, 280, 262)
	fill(sal, bumper, 0.3)
	c := cleanup(sal, [3]plane{}, plane{})
	crop, ok := secondLookCrop(sal, c)
	if !ok {
		t.Fatal("no second look at a car whose bumper the model was unsure of")
	}
	look := newPlane(crop.Dx(), crop.Dy())
	clear(look.Pix)
	fill(look, bumper.Sub(crop.Min), 0.9)
	shadow := image.Rect(110, 262, 280, crop.Max.Y)
	fill(look, shadow.Sub(crop.Min), 0.9)
	mergeSecondLook(sal, look, crop, c.box, c.floorY)
	got, _ := keptOf(t, sal)
	if s := share(got, sal.W, bumper); s < 0.98 {
		t.Errorf("kept %.2f of the bumper after the second look, want all", s)
	}
	below := image.Rect(110, 282, 280, crop.Max.Y)
	if s := share(got, sal.W, below); s > 0 {
		t.Errorf("kept %.2f of the shadow below the tyres %v, want none", s, below)
	}
}

// letterboxed is pickupStepBumper's photo padded to a frame: the picture
// ends at row 270, black below; the second model sees a band of the floor
// under the bumper down to the picture's edge.
func letterboxed() (sal, opinion plane, work [3]plane, bumper, band image.Rectangle) {
	sal, opinion, bumper, _ = pickupStepBumper()
	w, h := sal.W, sal.H
	for c := range work {
		work[c] = newPlane(w, h)
		for i := range work[c].Pix {
			work[c].Pix[i] = 80 + float32((i*7)%31) // a floor's texture
			if i/w >= 270 {
				work[c].Pix[i] = 0 // the padding
			}
		}
	}
	clear(opinion.Pix[250*w:]) // the old drawing's posts and reflection
	band = image.Rect(110, 250, 290, 270)
	fill(opinion, band, 0.95)
	return sal, opinion, work, bumper, band
}

// TestSecondOpinionStopsAtThePicturesEdge: in a photo padded to a frame,
// a band of floor the second model joins to the car's foot and that runs
// to the picture's lower edge runs out of the picture, where the car does
// not; the step bumper above it is kept.
func TestSecondOpinionStopsAtThePicturesEdge(t *testing.T) {
	sal, opinion, work, _, band := letterboxed()
	if f := pictureFrame(work, sal.W, sal.H); f != image.Rect(0, 0, sal.W, 270-padBlend) {
		t.Errorf("picture frame %v, want the rows above the padding", f)
	}
	c := cleanup(sal, work, opinion)
	got := make([]bool, len(c.matte.Pix))
	for i, v := range c.matte.Pix {
		got[i] = v >= 0.5
	}
	if s := share(got, sal.W, band); s > 0 {
		t.Errorf("kept %.2f of the floor band running to the picture's edge, want none", s)
	}
	// Without the band the bumper is one region of its own, and stays.
	sal, opinion, work, bumper, band := letterboxed()
	fill(opinion, band, 0)
	c = cleanup(sal, work, opinion)
	for i, v := range c.matte.Pix {
		got[i] = v >= 0.5
	}
	if s := share(got, sal.W, bumper); s < 0.95 {
		t.Errorf("kept %.2f of the step bumper in a padded photo, want all", s)
	}
}
