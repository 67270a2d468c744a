package pipeline

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/vision"
)

// largePhoto is a 12-megapixel photo from the team's test data (never
// copied into the repository).
const largePhoto = "../../../shared/testdata/large/cbr_view1.jpg"

// benchScene decodes the large photo and segments it with the real model
// once; benchmarks skip when either is missing.
func benchScene(b *testing.B) (*vision.Segmenter, []byte, *Scene, *vision.Mask) {
	b.Helper()
	data, err := os.ReadFile(largePhoto)
	if err != nil {
		b.Skipf("large test photo not available (%v); see /work/shared/testdata/large", err)
	}
	dir := os.Getenv("SHOWROOM_MODEL_DIR")
	if dir == "" {
		dir = vision.DefaultModelDir()
	}
	seg, err := vision.New(vision.DefaultConfig(dir))
	if err != nil {
		b.Skipf("segmentation model not available (%v); run make models", err)
	}
	b.Cleanup(func() { seg.Close() })
	photo, err := codec.Decode(context.Background(), data, codec.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	m, err := seg.Segment(context.Background(), photo)
	if err != nil {
		b.Fatal(err)
	}
	s := NewScene(photo)
	s.setCar(m.Alpha, m.Box, m.Raw)
	return seg, data, s, m
}

// BenchmarkProcessors12MP times each processor on a 12 MP photo, each on
// a scene fresh from detection (so the one that first needs the working
// grid pays for it), and detection itself, for docs/benchmarks.md.
func BenchmarkProcessors12MP(b *testing.B) {
	seg, data, base, m := benchScene(b)
	content := &BuiltinContent{}
	e, err := NewEngine(EngineConfig{Segmenter: seg, Content: content})
	if err != nil {
		b.Fatal(err)
	}
	fresh := func() *Scene {
		s := NewScene(base.Photo)
		s.setCar(m.Alpha, m.Box, m.Raw)
		return s
	}
	// The segmenter's activations, as DetectCarMaskProcessor leaves them
	// for the glass detector.
	r := &run{e: e, features: m.Features}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			if _, err := codec.Decode(context.Background(), data, codec.Limits{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, ex := range []struct {
		name   string
		step   Step
		before []Step
	}{
		{DetectCarMask, Step{"processorName": DetectCarMask}, nil},
		{DetectCarShadow, Step{"processorName": DetectCarShadow}, nil},
		{PlaceShadow, Step{"processorName": PlaceShadow}, []Step{{"processorName": DetectCarShadow}}},
		{CleanBackground + "/detected", Step{"processorName": CleanBackground}, []Step{{"processorName": DetectCarShadow}}},
		{CleanBackground + "/synthetic", Step{"processorName": CleanBackground}, nil},
		{SemiTransparentWindows, Step{"processorName": SemiTransparentWindows}, nil},
		{PlaceCar, Step{"processorName": PlaceCar}, nil},
		{PlaceCar + "/keypoints", Step{"processorName": PlaceCar, "useKeypoints": true}, nil},
		{AddBackgroundAndCrop, Step{"processorName": AddBackgroundAndCrop, "background": StudioBackground}, nil},
		{AddPoster, Step{"processorName": AddPoster, "poster": GalleryPoster}, nil},
		{Resize, Step{"processorName": Resize, "width": 1600.0}, nil},
	} {
		list := append([]Step{{"processorName": DetectCarMask}}, append(ex.before, ex.step)...)
		if ex.name == DetectCarMask {
			list = list[1:]
		}
		_, steps, err := Parse(stepsJSONTest(b, list...))
		if err != nil {
			b.Fatal(err)
		}
		if ex.name != DetectCarMask {
			steps = steps[1:]
		}
		b.Run(ex.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s := fresh()
				if ex.name == DetectCarMask {
					s = NewScene(base.Photo)
				}
				for _, st := range steps[:len(steps)-1] {
					if err := st.apply(context.Background(), r, s); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if err := steps[len(steps)-1].apply(context.Background(), r, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	// The renderer and encoder, on the scenes of two typical
	// configurations.
	for _, cfg := range []struct {
		name  string
		steps []Step
	}{
		{"cutout", nil},
		{"white", []Step{{"processorName": DetectCarShadow}, {"processorName": SemiTransparentWindows},
			{"processorName": CleanBackground}, {"processorName": PlaceCar}}},
		{"showroom", []Step{{"processorName": DetectCarShadow}, {"processorName": SemiTransparentWindows},
			{"processorName": AddBackgroundAndCrop, "background": StudioBackground}, {"processorName": PlaceShadow}}},
	} {
		_, steps, err := Parse(stepsJSONTest(b, append([]Step{{"processorName": DetectCarMask}}, cfg.steps...)...))
		if err != nil {
			b.Fatal(err)
		}
		s := fresh()
		for _, st := range steps[1:] {
			if err := st.apply(context.Background(), r, s); err != nil {
				b.Fatal(err)
			}
		}
		var img = s.Photo
		var alpha bool
		b.Run("render/"+cfg.name, func(b *testing.B) {
			for b.Loop() {
				img, alpha = Render(s)
			}
		})
		for _, f := range []string{FormatJPEG, FormatPNG, FormatWebP} {
			b.Run("encode/"+cfg.name+"/"+f, func(b *testing.B) {
				for b.Loop() {
					if _, _, err := encode(img, alpha, f, 0); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkDefaultWhite12MP runs the whole of default_white on the 12 MP
// photo through Engine.Run, as the service does, and reports each stage's
// mean time and the work outside the model against the model's own time in
// the same runs (issue 13's yardstick: 1.0 would be the model alone). One
// warm-up run first, so the recycled buffers are there as in a running
// service.
func BenchmarkDefaultWhite12MP(b *testing.B) {
	data, err := os.ReadFile(largePhoto)
	if err != nil {
		b.Skipf("large test photo not available (%v); see /work/shared/testdata/large", err)
	}
	dir := os.Getenv("SHOWROOM_MODEL_DIR")
	if dir == "" {
		dir = vision.DefaultModelDir()
	}
	var model time.Duration
	cfg := vision.DefaultConfig(dir)
	cfg.ObserveInference = func(_ string, d time.Duration) { model += d }
	seg, err := vision.New(cfg)
	if err != nil {
		b.Skipf("segmentation model not available (%v); run make models", err)
	}
	b.Cleanup(func() { seg.Close() })
	e, err := NewEngine(EngineConfig{Segmenter: seg, Content: &BuiltinContent{}})
	if err != nil {
		b.Fatal(err)
	}
	conf, _ := PredefinedConfiguration("default_white")
	req := Request{Processors: conf.Processors, Photo: data}
	if _, err := e.Run(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	stages := map[string]time.Duration{}
	var order []string
	model = 0
	start := time.Now()
	for b.Loop() {
		res, err := e.Run(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range res.Timings {
			if _, ok := stages[t.Name]; !ok {
				order = append(order, t.Name)
			}
			stages[t.Name] += t.Duration
		}
	}
	total := time.Since(start)
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / n / 1e6 }
	for _, name := range order {
		d, unit := stages[name], name+"-ms"
		if name == DetectCarMask {
			// The matte's own work: preprocess, cleanup, refine.
			d, unit = d-model, "mask-work-ms"
		}
		b.ReportMetric(ms(d), unit)
	}
	b.ReportMetric(ms(model), "model-ms")
	b.ReportMetric(ms(total-model), "outside-ms")
	b.ReportMetric(float64(total)/float64(model), "x-model")
}
