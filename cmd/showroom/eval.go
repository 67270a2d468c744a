package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/showroom/showroom/internal/vision"
)

// evalMaxPixels is the decode limit for eval: generous, the photos are ours.
const evalMaxPixels = 100_000_000

// runEval measures the car mask against hand-made masks: every *.jpg in
// --images with a *.mask.png beside it; with --glass, the glass too, on
// every *.jpg.
func (m *Main) runEval(ctx context.Context, args []string) error {
	var images, out, model, modelDir string
	var glass bool
	fs := m.newFlagSet("eval")
	fs.synopsis, fs.about = "showroom eval [--glass] --images DIR [--out OUT]", evalUsage
	fs.String(&images, "images", "", "folder of NAME.jpg photos with NAME.mask.png masks (with --glass: any NAME.jpg, annotated or not); required")
	fs.String(&out, "out", "", "folder to write NAME.pred.png masks and contact-sheet.png into (with --glass: NAME.glass.png and glass-sheet.png)")
	fs.String(&model, "model", vision.ModelISNet, "segmentation model: isnet or u2netp")
	fs.String(&modelDir, "model-dir", vision.DefaultModelDir(), "folder with the model files (make models)")
	fs.Bool(&glass, "glass", false, "find and score the glass as SemiTransparentWindowsProcessor finds it")
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	// Required, not defaulted: a bare 'showroom eval' is a question, and
	// runs the model over a folder for minutes.
	if images == "" {
		return fs.usageError("eval needs --images DIR, the folder of photos to score")
	}
	// The photos are listed first: a folder without any fails before the
	// model is loaded.
	keep, what := hasMask, "NAME.jpg with NAME.mask.png"
	if glass {
		keep, what = nil, "NAME.jpg"
	}
	pairs, err := evalPhotos(images, out, what, keep)
	if err != nil {
		return err
	}
	seg, err := openSegmenter(model, modelDir)
	if err != nil {
		return err
	}
	defer seg.Close()
	if glass {
		return m.runEvalGlass(ctx, seg, pairs, out)
	}

	tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "image\tIoU\traw IoU\tprecision\trecall\tconfidence\tborder\ttime\t\n")
	var sum, rawSum float64
	minIoU, minRaw := math.Inf(1), math.Inf(1)
	var total time.Duration
	var rows []sheetRow
	for _, p := range pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(p), ".jpg")
		r, err := evalOne(ctx, seg, p)
		if err != nil {
			return fmt.Errorf("eval %s: %w", name, err)
		}
		sum += r.score.IoU
		rawSum += r.raw.IoU
		minIoU, minRaw = math.Min(minIoU, r.score.IoU), math.Min(minRaw, r.raw.IoU)
		total += r.took
		fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%.4f\t%.4f\t%.3f\t%.3f\t%v\t\n", name, r.score.IoU, r.raw.IoU,
			r.score.Precision, r.score.Recall, r.mask.Confidence, r.mask.BorderShare, r.took.Round(time.Millisecond))
		if out != "" {
			if err := writePNG(filepath.Join(out, name+".pred.png"), r.mask.Alpha); err != nil {
				return err
			}
			rows = append(rows, sheetRow{name: name, photo: r.photo, alpha: r.mask.Alpha, truth: r.truth})
		}
	}
	n := float64(len(pairs))
	fmt.Fprintf(tw, "mean\t%.4f\t%.4f\t\t\t\t\t%v\t\n", sum/n, rawSum/n, (total / time.Duration(len(pairs))).Round(time.Millisecond))
	fmt.Fprintf(tw, "min\t%.4f\t%.4f\t\t\t\t\t\t\n", minIoU, minRaw)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "model %s; raw = the model's output alone, thresholded at 0.5\n", seg.Model())
	if out != "" {
		if err := writePNG(filepath.Join(out, "contact-sheet.png"), contactSheet(rows, sheetWidth)); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "wrote %d masks and contact-sheet.png to %s\n", len(rows), out)
	}
	return nil
}

// evalPhotos returns the NAME.jpg photos of dir that keep accepts (all
// when keep is nil), sorted, and makes the folder out when it is set; what
// names the photos looked for in the error when there are none.
func evalPhotos(dir, out, what string, keep func(photo string) bool) ([]string, error) {
	photos, err := filepath.Glob(filepath.Join(dir, "*.jpg"))
	if err != nil {
		return nil, err
	}
	if keep != nil {
		photos = slices.DeleteFunc(photos, func(p string) bool { return !keep(p) })
	}
	sort.Strings(photos)
	if len(photos) == 0 {
		return nil, fmt.Errorf("eval: no %s in %s", what, dir)
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, err
		}
	}
	return photos, nil
}

// hasMask reports whether a hand-made car mask lies beside photo.
func hasMask(photo string) bool {
	_, err := os.Stat(maskPath(photo))
	return err == nil
}

// openSegmenter loads the segmentation model for the tools (eval,
// gallery): model is isnet or u2netp, modelDir where make models put it.
func openSegmenter(model, modelDir string) (*vision.Segmenter, error) {
	cfg := vision.DefaultConfig(modelDir)
	cfg.Model = model
	return vision.New(cfg)
}

func maskPath(photo string) string { return strings.TrimSuffix(photo, ".jpg") + ".mask.png" }

type evalResult struct {
	photo      *image.NRGBA
	truth      *image.Gray
	mask       *vision.Mask
	score, raw vision.Score
	took       time.Duration
}

func evalOne(ctx context.Context, seg *vision.Segmenter, path string) (evalResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return evalResult{}, err
	}
	truth, err := vision.ReadMask(maskPath(path))
	if err != nil {
		return evalResult{}, err
	}
	start := time.Now()
	photo, err := vision.Decode(ctx, data, vision.Limits{MinSide: vision.MinSide, MaxPixels: evalMaxPixels})
	if err != nil {
		return evalResult{}, err
	}
	mask, err := seg.Segment(ctx, photo)
	if err != nil {
		return evalResult{}, err
	}
	took := time.Since(start)
	if truth.Rect.Size() != mask.Alpha.Rect.Size() {
		return evalResult{}, fmt.Errorf("mask is %v, photo %v", truth.Rect.Size(), mask.Alpha.Rect.Size())
	}
	return evalResult{
		photo: photo, truth: truth, mask: mask, took: took,
		score: vision.Compare(mask.Alpha, truth),
		raw:   vision.Compare(scaleGray(mask.Raw, truth.Rect.Dx(), truth.Rect.Dy()), truth),
	}, nil
}

// scaleGray resizes g to w×h by nearest neighbour (for the raw mask, which
// is on the working grid).
func scaleGray(g *image.Gray, w, h int) *image.Gray {
	if g.Rect.Dx() == w && g.Rect.Dy() == h {
		return g
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		sy := y * g.Rect.Dy() / h
		for x := range w {
			out.Pix[y*out.Stride+x] = g.Pix[sy*g.Stride+x*g.Rect.Dx()/w]
		}
	}
	return out
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	return errors.Join(enc.Encode(f, img), f.Close())
}

type sheetRow struct {
	name         string
	photo        *image.NRGBA
	alpha, truth *image.Gray
}

// contactSheet draws one row per image, each panel width pixels wide: the
// photo, the predicted cut-out on a chequer board, and the error map
// (white: car in both; red: predicted car that is background; blue: car
// the prediction missed; black: background in both).
func contactSheet(rows []sheetRow, width int) *image.NRGBA {
	const gap = 4
	height := 0
	for _, r := range rows {
		height += r.photo.Rect.Dy()*width/r.photo.Rect.Dx() + gap
	}
	sheet := image.NewNRGBA(image.Rect(0, 0, 3*width+2*gap, height))
	draw.Draw(sheet, sheet.Rect, image.NewUniform(color.NRGBA{40, 40, 40, 255}), image.Point{}, draw.Src)
	y := 0
	for _, r := range rows {
		W, H := r.photo.Rect.Dx(), r.photo.Rect.Dy()
		h := H * width / W
		for py := range h {
			sy := py * H / h
			for px := range width {
				sx := px * W / width
				o := r.photo.PixOffset(sx, sy)
				c := color.NRGBA{r.photo.Pix[o], r.photo.Pix[o+1], r.photo.Pix[o+2], 255}
				sheet.SetNRGBA(px, y+py, c)
				a := uint32(r.alpha.Pix[sy*r.alpha.Stride+sx])
				chk := uint32(200)
				if (px/8+py/8)%2 == 0 {
					chk = 150
				}
				mix := func(v uint8) uint8 { return uint8((uint32(v)*a + chk*(255-a)) / 255) }
				sheet.SetNRGBA(width+gap+px, y+py, color.NRGBA{mix(c.R), mix(c.G), mix(c.B), 255})
				p, t := a >= 128, r.truth.Pix[sy*r.truth.Stride+sx] >= 128
				e := color.NRGBA{0, 0, 0, 255}
				switch {
				case p && t:
					e = color.NRGBA{255, 255, 255, 255}
				case p:
					e = color.NRGBA{255, 0, 0, 255}
				case t:
					e = color.NRGBA{0, 90, 255, 255}
				}
				sheet.SetNRGBA(2*(width+gap)+px, y+py, e)
			}
		}
		y += h + gap
	}
	return sheet
}
