package pipeline

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/maskcache"
	"github.com/showroom/showroom/internal/vision"
)

// TestShadowOnPhotos keeps the shadows of outdoor photos (a car on asphalt,
// the 12 MP photos of a car in a car park) on white and measures what is
// drawn, on the working grid's scale, where the ground's grain showed: the
// kept shadow's detail finer than a few grid pixels (its departure from a
// smooth fit of itself) must be small, and its mean darkness close to the
// photographed shadow's, measured against the floor beside it.
func TestShadowOnPhotos(t *testing.T) {
	var photos []string
	for _, p := range []string{"cars/extras/02_dsmlr-te35.jpg", "large/cbr_view1.jpg", "large/cbr_view3.jpg"} {
		p = filepath.Join("../../../shared/testdata", p)
		if _, err := os.Stat(p); err == nil {
			photos = append(photos, p)
		}
	}
	if len(photos) == 0 {
		t.Skip("skipping: the outdoor photos of ../shared/testdata are not there (they are not in the repository)")
	}
	seg, err := vision.New(vision.DefaultConfig(vision.DefaultModelDir()))
	if err != nil {
		t.Skipf("skipping: segmentation model not available (%v); run make models", err)
	}
	defer seg.Close()
	// SHOWROOM_MASK_CACHE, as for the gallery, saves the model's runs.
	e := newTestEngine(t, &maskcache.Cache{Segmenter: seg, Dir: os.Getenv("SHOWROOM_MASK_CACHE")}, nil)
	for _, p := range photos {
		t.Run(filepath.Base(p), func(t *testing.T) {
			img := readPhoto(t, p)
			s := NewScene(img)
			r := &run{e: e}
			for _, st := range []step{
				newDetectMask(catalog.DetectCarMaskParams{DetectionThreshold: 0.5, CropThreshold: 1}),
				detectShadow{},
				cleanBackground{color: color.NRGBA{255, 255, 255, 255}},
				placeShadow{opacity: 1},
			} {
				if err := st.apply(context.Background(), r, s); err != nil {
					t.Fatal(err)
				}
			}
			out, _ := Render(s)
			g := s.workGrid()
			// The render and the photo brought to the working grid, where
			// the analysis ran and where the grain showed as blotches.
			kept, photo := newWorkGrid(out, nil), g
			dist := distanceToCar(g)
			area := make([]bool, g.w*g.h)
			var sum, n float64
			for i, l := range kept.lum.Pix {
				if d := 1 - float64(l); d >= 0.15 && dist[i] >= 3 {
					area[i] = true
					sum += d
					n++
				}
			}
			if n < 200 {
				t.Fatalf("no shadow kept (%.0f grid pixels darker than 0.15)", n)
			}
			keptMean := sum / n
			// The photographed darkness over the same pixels, against the
			// floor beside the shadow in the same rows: the median of the
			// pixels off the car on which nothing was drawn.
			box := g.toWork(s.Box)
			var photographed float64
			var floor []float32
			for y := range g.h {
				floor = floor[:0]
				for x := max(box.Min.X-box.Dx()/2, 0); x < min(box.Max.X+box.Dx()/2, g.w); x++ {
					if i := y*g.w + x; dist[i] >= 3 && 1-kept.lum.Pix[i] < 0.01 {
						floor = append(floor, photo.lum.Pix[i])
					}
				}
				if len(floor) < 8 {
					floor = append(floor[:0], 0)
				}
				slices.Sort(floor)
				ref := floor[len(floor)/2]
				for x := range g.w {
					if i := y*g.w + x; area[i] {
						if ref > 0 {
							photographed += 1 - float64(photo.lum.Pix[i]/ref)
						}
					}
				}
			}
			photographed /= n
			dark := newPlane(g.w, g.h)
			for i, l := range kept.lum.Pix {
				dark.Pix[i] = 1 - l
			}
			t.Logf("%.0f grid pixels of shadow, darkness photographed %.3f, kept %.3f", n, photographed, keptMean)
			if keptMean < 0.8*photographed || keptMean > 1.2*photographed {
				t.Errorf("kept shadow darkness %.3f, photographed %.3f: more than 20%% apart", keptMean, photographed)
			}
			// The limits are half to two thirds of what the asphalt's grain
			// gave before the shadow was smoothed (0.009-0.010, 0.019-0.020
			// and 0.033-0.036 on these photos); detail finer than 4 grid
			// pixels also holds the contact shadows and the soft edge.
			for _, c := range []struct {
				r   int
				max float64
			}{{1, 0.005}, {2, 0.01}, {4, 0.025}} {
				g := grain(dark, area, c.r)
				t.Logf("detail finer than %d grid px: %.4f rms", c.r, g)
				if g > c.max {
					t.Errorf("the shadow carries the ground's grain: %.4f rms finer than %d grid px, want at most %.3f", g, c.r, c.max)
				}
			}
		})
	}
}
