package pipeline

import (
	"math"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
)

// TestTyreFinderOnASideView: seen from the side a tyre stands flattened
// on the floor, its lowest run of the outline up to a fifth of the car's
// height long (the dev photos' side views: 0.17), and the one tyre finder
// takes both tyres, where it took none with its old limit of a sixth; a
// red sill sagging between the tyres, as dark as rubber but coloured and
// rising only a little on either side, is not a tyre. The ground line
// (wheelContacts) is the two tyres.
func TestTyreFinderOnASideView(t *testing.T) {
	car := drawncar.New(480, 300, 0)
	bh := float64(car.Box.Dy())
	half := int(0.09 * bh)
	paint := func(x, y int, c [3]uint8) {
		p := car.Photo.Pix[y*car.Photo.Stride+4*x:]
		p[0], p[1], p[2] = c[0], c[1], c[2]
		car.Matte.Pix[y*car.Matte.Stride+x] = 255
	}
	// Each tyre flattened where it stands: its bottom filled out to a
	// flat run 18% of the car's height long.
	for _, c := range car.Contacts {
		for y := int(c.Y) - 6; y < int(c.Y); y++ {
			for x := int(c.X) - half; x <= int(c.X)+half; x++ {
				paint(x, y, [3]uint8{28, 28, 30})
			}
		}
	}
	// The sill sags 4 pixels in the middle, between the tyres.
	sill := 0
	for y := range car.Photo.Rect.Dy() {
		if car.Matte.Pix[y*car.Matte.Stride+240] > 128 {
			sill = y + 1
		}
	}
	for x := 200; x < 280; x++ {
		sag := int(math.Round(4 * (1 - math.Abs(float64(x)-240)/40)))
		for y := sill; y < sill+sag; y++ {
			paint(x, y, [3]uint8{190, 30, 35})
		}
	}
	s := NewScene(car.Photo)
	s.setCar(car.Matte, car.Box, car.Raw)
	g := s.workGrid()
	box := g.toWork(car.Box)
	near := func(p Point, c drawncar.Point) bool { return math.Hypot(p.X/g.sx-c.X, p.Y/g.sy-c.Y) <= 4 }
	tyres := tyreContacts(g, box)
	if len(tyres) != 2 || !near(tyres[0].at, car.Contacts[0]) || !near(tyres[1].at, car.Contacts[1]) {
		var got []Point
		for _, ty := range tyres {
			got = append(got, Point{ty.at.X / g.sx, ty.at.Y / g.sy})
		}
		t.Fatalf("tyres found at %v, want the two contacts %v", got, car.Contacts)
	}
	l, r, ok := wheelContacts(g, box)
	if !ok || !near(l, car.Contacts[0]) || !near(r, car.Contacts[1]) {
		t.Errorf("ground line through %v and %v (found %v), want the two contacts %v", l, r, ok, car.Contacts)
	}
}
