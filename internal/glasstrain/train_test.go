package glasstrain

import (
	"image"
	"image/color"
	"math"
	"slices"
	"testing"

	"github.com/showroom/showroom/internal/vision"
)

// TestCrossValidateHoldsEachPhotoOut: every photo is scored once, by the
// model of the one fold that did not train on it.
func TestCrossValidateHoldsEachPhotoOut(t *testing.T) {
	photos := []int{0, 1, 2, 3, 4, 5, 6}
	scored := make([]int, len(photos))
	crossValidate(photos, 3, func(train []int) []int { return train }, func(i int, m *[]int) Result {
		if slices.Contains(*m, photos[i]) || len(*m) == 0 {
			t.Errorf("photo %d scored by a model trained on %v", i, *m)
		}
		scored[i]++
		return Result{}
	})
	for i, n := range scored {
		if n != 1 {
			t.Errorf("photo %d scored %d times", i, n)
		}
	}
}

// TestSheetPixel: the error map's colours say what the glass found is.
func TestSheetPixel(t *testing.T) {
	c := color.NRGBA{120, 120, 120, 255}
	for _, tc := range []struct {
		g             uint8
		window, never bool
		want          color.NRGBA
	}{
		{255, true, false, color.NRGBA{0, 200, 0, 255}},
		{0, true, false, color.NRGBA{0, 90, 255, 255}},
		{255, false, true, color.NRGBA{255, 0, 0, 255}},
		{255, false, false, color.NRGBA{235, 235, 235, 255}},
		{0, false, true, color.NRGBA{40, 40, 40, 255}},
	} {
		if _, e := SheetPixel(c, tc.g, tc.window, tc.never); e != tc.want {
			t.Errorf("glass %d window %v never %v: %v, want %v", tc.g, tc.window, tc.never, e, tc.want)
		}
	}
	if o, _ := SheetPixel(c, 255, false, false); o != (color.NRGBA{255, 0, 255, 255}) {
		t.Errorf("whole glass over magenta: %v", o)
	}
}

// TestRoofCells: the candidates above a pane in its own columns, past the
// margin, are the roof; those beside it, in its margin, or annotated are
// not.
func TestRoofCells(t *testing.T) {
	const w, h = 8, 10
	windows, never := make([]bool, w*h), make([]bool, w*h)
	for y := 6; y < 9; y++ {
		for x := 2; x < 5; x++ {
			windows[y*w+x] = true // a pane, columns 2-4, rows 6-8
		}
	}
	never[1*w+4] = true // a mirror's cell over the pane
	var cells []int
	for i := range w * h {
		cells = append(cells, i)
	}
	roof := roofCells(w, h, cells, windows, never, 2)
	for _, c := range []struct {
		x, y int
		want bool
	}{
		{2, 0, true}, {3, 3, true}, // over the pane, past the margin
		{3, 4, false}, {3, 5, false}, // its frame (a margin of 2)
		{3, 7, false}, // the pane
		{4, 1, false}, // never-glass
		{6, 1, false}, // beside the pane
		{3, 9, false}, // under it
	} {
		if got := roof[c.y*w+c.x]; got != c.want {
			t.Errorf("cell (%d,%d): roof %v, want %v", c.x, c.y, got, c.want)
		}
	}
}

// TestRoofGlass: glass over the car above a pane counts against the
// pane's own area; glass on the pane, over the background or beside the
// pane does not.
func TestRoofGlass(t *testing.T) {
	r := image.Rect(0, 0, 200, 200)
	windows, alpha, layer := image.NewGray(r), image.NewGray(r), image.NewGray(r)
	fill := func(g *image.Gray, x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.SetGray(x, y, color.Gray{255})
			}
		}
	}
	fill(alpha, 20, 40, 180, 190)   // the car
	fill(windows, 50, 80, 150, 120) // a pane, 100×40
	ex := Example{Windows: windows, Mask: &vision.Mask{Alpha: alpha}}
	if got := roofGlass(ex, layer); got != 0 {
		t.Errorf("no glass: %.3f, want 0", got)
	}
	fill(layer, 50, 80, 150, 120) // the pane itself
	fill(layer, 0, 0, 200, 40)    // over the background
	fill(layer, 160, 40, 180, 80) // beside the pane, on the car
	if got := roofGlass(ex, layer); got != 0 {
		t.Errorf("glass on the pane, the background and beside it: %.3f, want 0", got)
	}
	fill(layer, 50, 40, 150, 60) // the roof over it, 100×20
	if got := roofGlass(ex, layer); math.Abs(got-0.5) > 1e-9 {
		t.Errorf("a roof half the pane's area made glass: %.3f, want 0.5", got)
	}
	if got := roofGlass(Example{Mask: &vision.Mask{Alpha: alpha}}, layer); got != -1 {
		t.Errorf("no annotated pane: %.3f, want -1", got)
	}
}
