package vision

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteCleanupFigures draws the figures of docs/segmentation.md from
// the drawn saliency maps of the shape tests: per case, the model's answer
// (grey), what the cleanup kept before issue 26 and what it keeps now
// (white: car, red: not car kept, blue: car lost). Run it twice:
// SHOWROOM_MASK_FIGURES=DIR with SHOWROOM_MASK_FIGURES_STAGE=before on the
// old cleanup writes DIR/NAME.before.png; then on this one it writes
// DIR/NAME.png with the three panels.
func TestWriteCleanupFigures(t *testing.T) {
	dir := os.Getenv("SHOWROOM_MASK_FIGURES")
	if dir == "" {
		t.Skip("skipping: SHOWROOM_MASK_FIGURES not set")
	}
	pickup, cab, _ := pickupFromBehind()
	pickupCar := make([]bool, pickup.W*pickup.H)
	for y := range pickup.H {
		for x := range pickup.W {
			p := image.Pt(x, y)
			pickupCar[y*pickup.W+x] = p.In(cab) || p.In(image.Rect(60, 150, 340, 250)) ||
				p.In(image.Rect(80, 112, 95, 126)) || p.In(image.Rect(305, 112, 320, 126))
		}
	}
	person, personCar, _ := sedanWithPerson()
	strip, stripCar := carWithStrip(image.Rect(310, 212, 400, 234))
	front, frontCar := frontWithValance(0.35, image.Rect(130, 230, 250, 236))
	mark, markCar, _, _ := carWithWatermark()
	for _, c := range []struct {
		name string
		sal  plane
		car  []bool
	}{
		{"cleanup-pickup-cab", pickup, pickupCar},
		{"cleanup-person-on-bonnet", person, personCar},
		{"cleanup-border-strip", strip, stripCar},
		{"cleanup-lower-valance", front, frontCar},
		{"cleanup-watermark-at-foot", mark, markCar},
	} {
		got, _ := keptOf(t, c.sal)
		w, h := c.sal.W, c.sal.H
		panel := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i, k := range got {
			e := color.NRGBA{30, 30, 30, 255}
			switch {
			case k && c.car[i]:
				e = color.NRGBA{235, 235, 235, 255}
			case k:
				e = color.NRGBA{230, 50, 50, 255}
			case c.car[i]:
				e = color.NRGBA{0, 90, 255, 255}
			}
			panel.SetNRGBA(i%w, i/w, e)
		}
		if os.Getenv("SHOWROOM_MASK_FIGURES_STAGE") == "before" {
			writeFigure(t, filepath.Join(dir, c.name+".before.png"), panel)
			continue
		}
		f, err := os.Open(filepath.Join(dir, c.name+".before.png"))
		if err != nil {
			t.Fatal(err)
		}
		before, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		const gap = 6
		fig := image.NewNRGBA(image.Rect(0, 0, 3*w+2*gap, h))
		for y := range h {
			for x := range w {
				v := uint8(255 * c.sal.Pix[y*w+x])
				fig.SetNRGBA(x, y, color.NRGBA{v, v, v, 255})
				fig.Set(w+gap+x, y, before.At(x, y))
				fig.SetNRGBA(2*(w+gap)+x, y, panel.NRGBAAt(x, y))
			}
			for _, x := range []int{w, 2*w + gap} {
				for g := range gap {
					fig.SetNRGBA(x+g, y, color.NRGBA{255, 255, 255, 255})
				}
			}
		}
		writeFigure(t, filepath.Join(dir, c.name+".png"), fig)
	}
}

func writeFigure(t *testing.T, path string, img image.Image) {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}
