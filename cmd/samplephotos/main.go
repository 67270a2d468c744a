// Command samplephotos draws the pictures the README's walk-through sends:
// a car photo, a studio backdrop, a thumbnail and a folder of car photos
// for the command-line batch. They are drawn by the program (the synthetic
// car the tests use), so the repository ships no photo and the walk-through
// needs nobody's licence. Any photos of your own work the same.
//
//	go run ./cmd/samplephotos [-out DIR]
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"path/filepath"

	"github.com/showroom/showroom/internal/drawncar"
)

func main() {
	out := flag.String("out", ".", "folder to write car.jpg, background.jpg, thumbnail.jpg and photos/ into")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "samplephotos:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	files := []struct {
		name string
		img  image.Image
	}{
		{"car.jpg", drawncar.New(1200, 750, 0).Photo},
		{"background.jpg", backdrop(1600, 1000, 0.7)},
		{"thumbnail.jpg", drawncar.New(320, 240, 0).Photo},
		// Two more for the batch: another size and a slightly turned car.
		{filepath.Join("photos", "car1.jpg"), drawncar.New(960, 600, 0).Photo},
		{filepath.Join("photos", "car2.jpg"), drawncar.New(960, 640, 0.03).Photo},
	}
	if err := os.MkdirAll(filepath.Join(out, "photos"), 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeJPEG(filepath.Join(out, f.name), f.img); err != nil {
			return err
		}
		fmt.Println("wrote", filepath.Join(out, f.name))
	}
	return nil
}

// backdrop is a studio: a wall that darkens upwards and a floor that
// lightens towards the camera, meeting at horizon (a share of the height),
// the line a configuration's horizonLine names.
func backdrop(w, h int, horizon float64) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	line := int(horizon * float64(h))
	for y := range h {
		var c color.NRGBA
		if y < line {
			t := float64(y) / float64(line) // 0 at the top, 1 at the floor
			c = color.NRGBA{uint8(120 + 90*t), uint8(135 + 85*t), uint8(160 + 70*t), 255}
		} else {
			t := float64(y-line) / float64(h-line)
			c = color.NRGBA{uint8(150 + 60*t), uint8(150 + 60*t), uint8(155 + 60*t), 255}
		}
		for x := range w {
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}

func writeJPEG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := jpeg.Encode(f, img, &jpeg.Options{Quality: 90}); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}
