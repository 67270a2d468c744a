package pipeline

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"
	"time"

	"github.com/davidbyttow/govips/v2/vips"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/maskcache"
	"github.com/showroom/showroom/internal/showroom"
)

// everyProcessor is a configuration using each processor once, but
// CleanBackground: a configuration has one background, here
// AddBackgroundAndCrop's (TestOneBackground).
func everyProcessor() []Step {
	return []Step{
		det(),
		{"processorName": DetectCarShadow},
		{"processorName": SemiTransparentWindows, "windowTransparency": 0.7},
		{"processorName": PlaceCar, "useKeypoints": true},
		{"processorName": AddBackgroundAndCrop, "background": "studio", "outputWidth": 320.0},
		{"processorName": PlaceShadow, "opacity": 0.6},
		{"processorName": AddPoster, "poster": "logo"},
		{"processorName": Resize, "width": 200.0, "height": 200.0, "fit": "cover"},
	}
}

func everyContent() mapContent {
	return mapContent{"studio": twoTone(400, 300, 0.7), "logo": twoTone(50, 20, 0.5)}
}

func TestRunIsDeterministic(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, everyContent())
	for _, format := range []string{FormatJPEG, FormatPNG, FormatWebP} {
		var first []byte
		for range 2 {
			res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, everyProcessor()...),
				Photo: pngBytes(t, car.Photo), Format: format})
			if err != nil {
				t.Fatal(err)
			}
			if first != nil && !bytes.Equal(first, res.Image) {
				t.Fatalf("%s: two runs gave different bytes", format)
			}
			first = res.Image
		}
	}
}

func TestEveryPrefixRenders(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, everyContent())
	all := everyProcessor()
	for n := 1; n <= len(all); n++ {
		steps := all[:n]
		// A prefix that holds PlaceShadow without detection cannot exist.
		res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, steps...), Photo: pngBytes(t, car.Photo)})
		if err != nil {
			t.Fatalf("prefix of %d: %v", n, err)
		}
		want := []string{"decode"}
		for _, s := range steps {
			want = append(want, s.Name())
		}
		want = append(want, "render", "encode")
		var got []string
		for _, tm := range res.Timings {
			got = append(got, tm.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("prefix of %d: timings %v, want %v", n, got, want)
		}
	}
}

// A mask that waited for the model's turn puts the wait in the timings,
// right after the step it is part of.
func TestTimingsShowTheModelWait(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car, modelWait: 1500 * time.Millisecond}, everyContent())
	res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, det()), Photo: pngBytes(t, car.Photo)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tm := range res.Timings {
		got = append(got, tm.Name)
		if tm.Name == ModelWaitTiming && tm.Duration != 1500*time.Millisecond {
			t.Errorf("ModelWait %v, want the mask's 1.5s", tm.Duration)
		}
	}
	want := []string{"decode", DetectCarMask, ModelWaitTiming, "render", "encode"}
	if !slices.Equal(got, want) {
		t.Fatalf("timings %v, want %v", got, want)
	}
}

func TestIndependentProcessorsCommute(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, everyContent())
	// Processors that change different parts of the scene commute;
	// those that set the same part (PlaceCar's and CleanBackground's
	// background) follow the list's order, the later one winning.
	windows := Step{"processorName": SemiTransparentWindows, "windowTransparency": 0.8}
	shadow := Step{"processorName": DetectCarShadow}
	clean := Step{"processorName": CleanBackground, "color": "#336699"}
	poster := Step{"processorName": AddPoster, "poster": "logo"}
	a := render(t, e, car, det(), shadow, windows, clean, poster)
	b := render(t, e, car, det(), poster, clean, windows, shadow)
	if !bytes.Equal(a.Pix, b.Pix) {
		t.Fatal("the same processors in another order render differently")
	}
}

func TestRunFormats(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	opaque := stepsJSONTest(t, det(), Step{"processorName": CleanBackground})
	cutout := stepsJSONTest(t, det())
	tests := []struct {
		steps     []byte
		format    string
		mediaType string
		alpha     bool
	}{
		{opaque, "", "image/jpeg", false},
		{cutout, "", "image/png", true},
		{cutout, FormatJPEG, "image/jpeg", false},
		{cutout, FormatWebP, "image/webp", true},
		{opaque, FormatPNG, "image/png", false},
	}
	for _, tt := range tests {
		res, err := e.Run(context.Background(), Request{Processors: tt.steps, Photo: pngBytes(t, car.Photo), Format: tt.format, Quality: 80})
		if err != nil {
			t.Fatal(err)
		}
		if res.MediaType != tt.mediaType || res.Width != 480 || res.Height != 300 {
			t.Errorf("format %q: %s %dx%d, want %s 480x300", tt.format, res.MediaType, res.Width, res.Height, tt.mediaType)
		}
		img, err := vips.NewImageFromBuffer(res.Image)
		if err != nil {
			t.Fatal(err)
		}
		if img.HasAlpha() != tt.alpha {
			t.Errorf("format %q: alpha %v, want %v", tt.format, img.HasAlpha(), tt.alpha)
		}
		if img.HasExif() || img.HasICCProfile() {
			t.Errorf("format %q: metadata left in the output (exif %v, icc %v)", tt.format, img.HasExif(), img.HasICCProfile())
		}
		img.Close()
	}
	_, err := e.Run(context.Background(), Request{Processors: cutout, Photo: pngBytes(t, car.Photo), Format: "gif"})
	errCode(t, err, showroom.EInvalidBody)
}

func TestRunRefuses(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	small, err := NewEngine(EngineConfig{Segmenter: &fakeSegmenter{car: car}, MaxPixels: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	cutout := stepsJSONTest(t, det())
	_, err = small.Run(context.Background(), Request{Processors: cutout, Photo: pngBytes(t, car.Photo)})
	errCode(t, err, showroom.EPayloadTooLarge)
	_, err = e.Run(context.Background(), Request{Processors: cutout, Photo: []byte("not a photo")})
	errCode(t, err, showroom.EInvalidImage)
	_, err = e.Run(context.Background(), Request{Processors: []byte(`{"processorName":1}`), Photo: pngBytes(t, car.Photo)})
	errCode(t, err, showroom.EInvalidConfig)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = e.Run(ctx, Request{Processors: cutout, Photo: pngBytes(t, car.Photo)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v, want context.Canceled", err)
	}
}

func TestObserveSeesEveryProcessor(t *testing.T) {
	car := testCar(t)
	var seen []string
	e, err := NewEngine(EngineConfig{Segmenter: &fakeSegmenter{car: car}, Content: everyContent(),
		Observe: func(p string, d time.Duration) { seen = append(seen, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, everyProcessor()...), Photo: pngBytes(t, car.Photo)}); err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(everyProcessor()) {
		t.Errorf("observed %v", seen)
	}
}

// TestNoHaloOfTheOldBackground puts the car, cut from a light grey studio,
// on black: its soft edge pixels must not be lighter than the car's own
// colours and the black mixed, i.e. no grey fringe.
func TestNoHaloOfTheOldBackground(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, nil)
	out := render(t, e, car, det(), Step{"processorName": CleanBackground, "enableShadow": false, "color": "#000000"})
	var fringe, edge int
	for y := car.Box.Min.Y; y < car.Box.Max.Y; y++ {
		for x := car.Box.Min.X; x < car.Box.Max.X; x++ {
			a := car.Matte.GrayAt(x, y).Y
			if a == 0 || a == 255 || car.Windows.GrayAt(x, y).Y != 0 {
				continue
			}
			// Only the red body's outline: its blue channel would come
			// from the grey studio.
			if !nearBody(car, x, y) {
				continue
			}
			edge++
			if at(out, x, y).B > 40 {
				fringe++
			}
		}
	}
	if edge == 0 {
		t.Fatal("no body edge pixels")
	}
	if fringe*20 > edge {
		t.Errorf("%d of %d body edge pixels show the old background", fringe, edge)
	}
	// The same edge composited naively would: the test can tell.
	var naive int
	for y := car.Box.Min.Y; y < car.Box.Max.Y; y++ {
		for x := car.Box.Min.X; x < car.Box.Max.X; x++ {
			if a := car.Matte.GrayAt(x, y).Y; a > 0 && a < 255 && car.Windows.GrayAt(x, y).Y == 0 && nearBody(car, x, y) &&
				float64(car.Photo.NRGBAAt(x, y).B)*float64(a)/255 > 40 {
				naive++
			}
		}
	}
	if naive*5 < edge {
		t.Logf("naive compositing would fringe only %d of %d", naive, edge)
	}
}

// nearBody reports whether a body pixel lies within 2 pixels of (x, y).
func nearBody(car *drawncar.Car, x, y int) bool {
	for dy := -2; dy <= 2; dy++ {
		for dx := -2; dx <= 2; dx++ {
			if (image.Point{x + dx, y + dy}).In(car.Photo.Rect) && car.Photo.NRGBAAt(x+dx, y+dy) == car.Body {
				return true
			}
		}
	}
	return false
}

var _ = color.NRGBA{}
var _ = png.Decode

// TestRunConcurrently: one engine serves parallel runs with the same
// answer (run with -race to check sharing).
func TestRunConcurrently(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &maskcache.Cache{Segmenter: &fakeSegmenter{car: car}}, everyContent())
	req := Request{Processors: stepsJSONTest(t, everyProcessor()...), Photo: pngBytes(t, car.Photo)}
	want, err := e.Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			res, err := e.Run(context.Background(), req)
			if err == nil && !bytes.Equal(res.Image, want.Image) {
				err = errors.New("a parallel run gave different bytes")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestAnalysesRunTogether checks which steps the engine runs at the same
// time, and that running them so gives the picture running them one after
// the other gives.
func TestAnalysesRunTogether(t *testing.T) {
	shadow, glass := Step{"processorName": DetectCarShadow}, Step{"processorName": SemiTransparentWindows}
	clean := Step{"processorName": CleanBackground, "enableShadow": true}
	for _, tt := range []struct {
		steps []Step
		want  []int // the groups' sizes
	}{
		{[]Step{det(), shadow, glass, clean}, []int{1, 2, 1}},
		{[]Step{det(), glass, shadow}, []int{1, 2}},
		{[]Step{det(), shadow, shadow, glass}, []int{1, 1, 2}},
		{[]Step{det(), glass, clean, shadow}, []int{1, 1, 1, 1}},
	} {
		_, steps, err := Parse(stepsJSONTest(t, tt.steps...))
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for i := 0; i < len(steps); {
			n := analysesTogether(steps[i:])
			got, i = append(got, n), i+n
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: groups %v, want %v", stepsJSONTest(t, tt.steps...), got, tt.want)
		}
	}

	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{})
	steps := []Step{det(), shadow, {"processorName": SemiTransparentWindows, "windowTransparency": 0.5},
		clean, {"processorName": PlaceCar, "background": "#FFFFFF"}}
	res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(t, steps...),
		Photo: pngBytes(t, car.Photo), Format: FormatPNG})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tm := range res.Timings {
		names = append(names, tm.Name)
	}
	if want := []string{"decode", DetectCarMask, DetectCarShadow, SemiTransparentWindows, CleanBackground, PlaceCar, "render", "encode"}; !slices.Equal(names, want) {
		t.Errorf("timings %v, want %v", names, want)
	}
	one := scene(t, e, car, steps...) // one step after the other
	want, _ := Render(one)
	defer codec.Recycle(want)
	img, err := png.Decode(bytes.NewReader(res.Image))
	if err != nil {
		t.Fatal(err)
	}
	if got := toNRGBA(img); !bytes.Equal(got.Pix, want.Pix) {
		t.Error("the analyses run together give another picture than one after the other")
	}
}

// TestRenderEncodingStreams checks that an opaque JPEG is compressed as it
// is rendered, into the bytes encoding the finished canvas gives, and that
// every other result is left to encode.
func TestRenderEncodingStreams(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{})
	white := []Step{det(), {"processorName": DetectCarShadow}, {"processorName": SemiTransparentWindows, "windowTransparency": 0.5},
		{"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"}, {"processorName": PlaceCar, "background": "#FFFFFF"}}
	for _, tt := range []struct {
		name    string
		steps   []Step
		format  string
		quality int
		streams bool
	}{
		{"white", white, "", 0, true},
		{"white, jpeg 75", white, FormatJPEG, 75, true},
		{"white, png", white, FormatPNG, 0, false},
		{"white, resized", append(slices.Clone(white), Step{"processorName": Resize, "width": 200.0}), "", 0, false},
		{"cut out", []Step{det()}, FormatJPEG, 0, false},
	} {
		s := scene(t, e, car, tt.steps...)
		img, hasAlpha, out, err := renderEncoding(s, tt.format, tt.quality)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if (out != nil) != tt.streams {
			t.Errorf("%s: streamed %v, want %v", tt.name, out != nil, tt.streams)
		}
		if out != nil {
			want, _, err := encode(img, hasAlpha, tt.format, tt.quality)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("%s: the streamed JPEG differs from the finished canvas's", tt.name)
			}
		}
		codec.Recycle(img)
	}
}

// TestRenderByCopy checks that a car PlaceCar puts on whole pixels is
// drawn with its photographed pixels, and that copying them gives the
// bytes bilinear sampling gives there, glass and shadow included.
func TestRenderByCopy(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{})
	s := scene(t, e, car, det(), Step{"processorName": DetectCarShadow},
		Step{"processorName": SemiTransparentWindows, "windowTransparency": 0.5},
		Step{"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"},
		// The car as wide on the photo's canvas as it was photographed.
		Step{"processorName": PlaceCar, "background": "#FFFFFF", "carWidth": float64(car.Box.Dx()) / float64(car.Photo.Rect.Dx()), "carHeight": 1.0})
	dx, dy, ok := s.Place.shift()
	if !ok {
		t.Fatalf("PlaceCar left the car at %+v, not on whole pixels", s.Place)
	}
	if s.Glass == nil || s.Shadow == nil {
		t.Fatal("the scene has no glass or no shadow to draw")
	}
	copied, copiedAlpha := Render(s)
	defer codec.Recycle(copied)
	drawByCopy = false
	sampled, sampledAlpha := Render(s)
	drawByCopy = true
	defer codec.Recycle(sampled)
	if !bytes.Equal(copied.Pix, sampled.Pix) || copiedAlpha != sampledAlpha {
		t.Error("the car drawn by copy differs from the car sampled")
	}
	// Where the matte is whole and there is no glass, the car is the
	// photo.
	same, whole := 0, 0
	for y := range copied.Rect.Dy() {
		for x := range copied.Rect.Dx() {
			px, py := x+dx, y+dy
			if !(image.Point{px, py}).In(s.Box) || s.Matte.GrayAt(px, py).Y != 255 || s.Glass.GrayAt(px, py).Y != 0 {
				continue
			}
			whole++
			if bytes.Equal(copied.Pix[copied.PixOffset(x, y):][:4], s.Photo.Pix[s.Photo.PixOffset(px, py):][:4]) {
				same++
			}
		}
	}
	if whole == 0 || same < whole*99/100 {
		t.Errorf("%d of %d opaque car pixels are the photo's", same, whole)
	}
}

// TestRenderOnRecycledBuffers renders scenes whose canvas and car layer
// come from buffers an earlier photo left dirty: every pixel must be
// written, so the result is the same as on fresh ones.
func TestRenderOnRecycledBuffers(t *testing.T) {
	car := testCar(t)
	e := newTestEngine(t, &fakeSegmenter{car: car}, mapContent{})
	for _, steps := range [][]Step{
		{det()},
		{det(), {"processorName": DetectCarShadow}, {"processorName": SemiTransparentWindows, "windowTransparency": 0.5},
			{"processorName": CleanBackground, "enableShadow": true, "color": "#FFFFFF"}, {"processorName": PlaceCar, "background": "#FFFFFF"}},
		{det(), {"processorName": PlaceCar, "background": "#EEEEEE", "carWidth": 0.3}},
	} {
		s := scene(t, e, car, steps...)
		first, firstAlpha := Render(s)
		want := slices.Clone(first.Pix)
		// Dirty and hand back the canvas, and a car layer's worth more.
		for _, img := range []*image.NRGBA{first, codec.NewNRGBA(s.Box.Dx(), s.Box.Dy())} {
			for i := range img.Pix {
				img.Pix[i] = uint8(i*7 + 3)
			}
			codec.Recycle(img)
		}
		again, againAlpha := Render(s)
		if !bytes.Equal(again.Pix, want) || againAlpha != firstAlpha {
			t.Errorf("%s: the render on recycled buffers differs", stepsJSONTest(t, steps...))
		}
		codec.Recycle(again)
	}
}
