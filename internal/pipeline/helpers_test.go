package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// fakeSegmenter answers with the synthetic car's exact matte, so the
// processors are tested against known answers without the model.
type fakeSegmenter struct {
	car        *drawncar.Car
	confidence float64
	border     float64
	noRaw      bool
	// modelWait is the wait for the model's turn the masks report.
	modelWait time.Duration
}

func (f *fakeSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	m := &vision.Mask{Alpha: f.car.Matte, Box: f.car.Box, Confidence: f.confidence, BorderShare: f.border, ModelWait: f.modelWait}
	if !f.noRaw {
		m.Raw = f.car.Raw
	}
	if m.Confidence == 0 {
		m.Confidence = 0.95
	}
	return m, nil
}

// mapContent serves images by name.
type mapContent map[string]image.Image

func (m mapContent) LoadContent(ctx context.Context, name string) (image.Image, error) {
	if img, ok := m[name]; ok {
		return img, nil
	}
	return nil, showroom.Errorf(showroom.EContentNotFound, "content %q not found", name)
}

// testCar is the synthetic car the tests share: small, so tests are fast.
func testCar(tb testing.TB) *drawncar.Car {
	tb.Helper()
	return drawncar.New(480, 300, 0)
}

func newTestEngine(tb testing.TB, seg Segmenter, content ContentLoader) *Engine {
	tb.Helper()
	e, err := NewEngine(EngineConfig{Segmenter: seg, Content: content, MaxPixels: 50_000_000})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

func pngBytes(tb testing.TB, img image.Image) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func stepsJSONTest(tb testing.TB, steps ...Step) json.RawMessage {
	tb.Helper()
	raw, err := json.Marshal(steps)
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

// render runs steps on the car's photo and returns the decoded PNG result.
func render(tb testing.TB, e *Engine, car *drawncar.Car, steps ...Step) *image.NRGBA {
	tb.Helper()
	res, err := e.Run(context.Background(), Request{Processors: stepsJSONTest(tb, steps...),
		Photo: pngBytes(tb, car.Photo), Format: FormatPNG})
	if err != nil {
		tb.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(res.Image))
	if err != nil {
		tb.Fatal(err)
	}
	return toNRGBA(img)
}

// scene applies steps to the car's scene directly, for checks of what a
// processor found.
func scene(tb testing.TB, e *Engine, car *drawncar.Car, steps ...Step) *Scene {
	tb.Helper()
	_, parsed, err := Parse(stepsJSONTest(tb, steps...))
	if err != nil {
		tb.Fatal(err)
	}
	s := NewScene(car.Photo)
	r := &run{e: e}
	for _, st := range parsed {
		if err := st.apply(context.Background(), r, s); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func errCode(tb testing.TB, err error, want string) {
	tb.Helper()
	var e *showroom.Error
	if !errors.As(err, &e) || e.Code != want {
		tb.Fatalf("error %v, want code %s", err, want)
	}
}

func at(img *image.NRGBA, x, y int) color.NRGBA { return img.NRGBAAt(x, y) }

// near reports whether two colours differ by at most tol per channel.
func near(a, b color.NRGBA, tol int) bool {
	d := func(x, y uint8) int { return max(int(x)-int(y), int(y)-int(x)) }
	return d(a.R, b.R) <= tol && d(a.G, b.G) <= tol && d(a.B, b.B) <= tol && d(a.A, b.A) <= tol
}

func lum(c color.NRGBA) float64 {
	return 0.2126*float64(c.R) + 0.7152*float64(c.G) + 0.0722*float64(c.B)
}

// mask pixels classify the synthetic car.
func isBody(car *drawncar.Car, x, y int) bool {
	return car.Matte.GrayAt(x, y).Y == 255 && car.Windows.GrayAt(x, y).Y == 0 && car.Photo.NRGBAAt(x, y) == car.Body
}

func det() Step { return Step{"processorName": DetectCarMask} }
