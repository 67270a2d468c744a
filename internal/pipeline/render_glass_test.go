package pipeline

import (
	"image"
	"math"
	"testing"

	"github.com/showroom/showroom/internal/drawncar"
)

// TestGlassIsTintedNotAGreyCard paints the test car's windows as glass
// photographed bright (PaintBrightGlass: a flat sky reflection, sRGB 200,
// crossed by lighter streaks, with a dark headrest behind it) and renders them over a white
// studio at the default windowTransparency 0.5. A plain blend of the photo
// and the background made such a pane a flat light-grey card: lighter than
// the photographed glass, its streaks and headrest washed out. The pane
// must read as tinted glass: clearly darker than the white seen through it,
// its reflections and interior as visible (against the pane) as
// photographed, give or take, and the background still showing through.
func TestGlassIsTintedNotAGreyCard(t *testing.T) {
	const sky, streak, headrest = drawncar.GlassSky, drawncar.GlassStreak, drawncar.GlassHeadrest
	car := testCar(t)
	painted := car.PaintBrightGlass()
	kind := map[image.Point]int{}
	for y := car.Box.Min.Y; y < car.Box.Max.Y; y++ {
		for x := car.Box.Min.X; x < car.Box.Max.X; x++ {
			if interiorGlass(car, x, y) {
				kind[image.Pt(x, y)] = painted(x, y)
			}
		}
	}
	// luminance returns each kind's mean linear luminance in img.
	luminance := func(img *image.NRGBA) [3]float64 {
		var sum, n [3]float64
		for p, k := range kind {
			c := img.NRGBAAt(p.X, p.Y)
			sum[k] += 0.2126*float64(srgbToLinear[c.R]) + 0.7152*float64(srgbToLinear[c.G]) + 0.0722*float64(srgbToLinear[c.B])
			n[k]++
		}
		for k := range sum {
			if n[k] < 20 {
				t.Fatalf("only %.0f pixels of kind %d inside the windows", n[k], k)
			}
			sum[k] /= n[k]
		}
		return sum
	}
	over := func(bg string) [3]float64 {
		e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
		s := scene(t, e, car, det(), Step{"processorName": CleanBackground, "enableShadow": false, "color": bg})
		// The glass as a detector that found the windows exactly gives it:
		// what is tested is how it is drawn.
		s.Glass, s.WindowTransparency, s.WindowBrightness = car.Windows, 0.5, 1
		out, _ := Render(s)
		return luminance(out)
	}
	photo, white, black := luminance(car.Photo), over("#FFFFFF"), over("#000000")
	lightness := func(y float64) float64 { return 116*math.Cbrt(y) - 16 }
	t.Logf("photo %.3f, over white %.3f, over black %.3f (sky, streak, headrest; linear)", photo, white, black)

	// A card is light: the white seen through tinted glass is at most 80
	// in L* (the old blend: 91).
	if l := lightness(white[sky]); l > 80 {
		t.Errorf("the pane over white is %.0f in L*: a light card, want at most 80 (tinted glass)", l)
	}
	// A card is flat: the streaks and the headrest stand out from the
	// pane at least 0.6 as much, relatively, as photographed (the old
	// blend: 0.37 and 0.36).
	if got, was := white[streak]/white[sky]-1, photo[streak]/photo[sky]-1; got < 0.6*was {
		t.Errorf("the reflections stand out by %.2f of the pane, photographed %.2f: washed out", got, was)
	}
	if got, was := 1-white[headrest]/white[sky], 1-photo[headrest]/photo[sky]; got < 0.6*was {
		t.Errorf("the interior stands out by %.2f of the pane, photographed %.2f: washed out", got, was)
	}
	// A painted dark pane is not glass either: the background shows.
	if d := white[sky] - black[sky]; d < 0.15 {
		t.Errorf("the pane over white and over black differs by %.3f: the background does not show through", d)
	}
}
