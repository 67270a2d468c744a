package glasstrain

import (
	"image/color"
	"slices"
	"testing"
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
