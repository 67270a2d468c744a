package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"

	"github.com/showroom/showroom/internal/drawncar"
)

// photo is a car photo the clients send, encoded once.
type photo struct {
	name string
	data []byte
}

// syntheticPhotos draws the pipeline's synthetic car at a few sizes, so the
// soak ships no licensed photo and the queue sees small and large work.
func syntheticPhotos() ([]photo, error) {
	var out []photo
	for _, s := range [][2]int{{800, 500}, {1600, 1000}, {3200, 2000}} {
		car := drawncar.New(s[0], s[1], 0)
		b, err := encodeJPEG(car.Photo)
		if err != nil {
			return nil, err
		}
		out = append(out, photo{fmt.Sprintf("synthetic %dx%d", s[0], s[1]), b})
	}
	return out, nil
}

// photosIn reads the JPEG, PNG and WebP files of dir, for a soak on real
// photos (read at run time, never copied).
func photosIn(dir string) ([]photo, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []photo
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".jpg", ".jpeg", ".png", ".webp":
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			out = append(out, photo{e.Name(), b})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no JPEG, PNG or WebP photo in %s", dir)
	}
	return out, nil
}

// studioBackground is a company's BACKGROUND_SIMPLE: a wall over a floor
// meeting at 70% of the height, tinted per company.
func studioBackground(tint uint8) ([]byte, error) {
	const w, h = 1600, 1000
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		c := color.NRGBA{228 - tint/4, 226, 220 + tint/8, 255}
		if y > h*7/10 {
			shade := uint8(40 * (y - h*7/10) / (h * 3 / 10))
			c = color.NRGBA{190 - shade, 188 - shade, 186 - shade, 255}
		}
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, c)
		}
	}
	return encodeJPEG(img)
}

// poster is a small POSTER image: a coloured plate with a lighter bar.
func poster(w, h int, c color.NRGBA) ([]byte, error) {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			p := c
			if y > h/3 && y < 2*h/3 {
				p = color.NRGBA{255, 255, 255, 230}
			}
			img.SetNRGBA(x, y, p)
		}
	}
	var buf bytes.Buffer
	err := png.Encode(&buf, img)
	return buf.Bytes(), err
}

func encodeJPEG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
	return buf.Bytes(), err
}
