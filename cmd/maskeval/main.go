// Command maskeval measures the car mask against hand-made annotations:
// every *.jpg in --images with a NAME.mask.png (IoU) or NAME.windows.png
// and NAME.never.png (car parts, of which the mask must keep all) beside
// it; with --glass, the glass too, on every *.jpg. It is a tool apart from
// the service's binary, which does not link it.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/showroom/showroom/internal/cliflag"
	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/vision"
)

// evalMaxPixels is the decode limit for eval: generous, the photos are ours.
const evalMaxPixels = 100_000_000

func main() { cliflag.Main("maskeval", run) }

// synopsis is the command's usage line.
const synopsis = "maskeval [--glass] --images DIR [--out OUT]"

// run scores the photos of --images: the table, the summary and the help
// go to stdout, usage and flag errors to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("maskeval", flag.ContinueOnError)
	images := fs.String("images", "", "folder of NAME.jpg photos with NAME.mask.png masks or NAME.windows.png/NAME.never.png car parts (with --glass: any NAME.jpg, annotated or not); required")
	out := fs.String("out", "", "folder to write NAME.pred.png masks and contact-sheet.png into (with --glass: NAME.glass.png and glass-sheet.png)")
	model := fs.String("model", vision.ModelISNet, "segmentation model: isnet or u2netp")
	modelDir := fs.String("model-dir", vision.DefaultModelDir(), "folder with the model files (make models)")
	glass := fs.Bool("glass", false, "find and score the glass as SemiTransparentWindowsProcessor finds it")
	cmd := cliflag.Command{Name: "maskeval", Synopsis: synopsis, About: evalUsage}
	if err := cmd.ParseTool(fs, args, stdout, stderr); err != nil {
		return err
	}
	// Required, not defaulted: a bare 'maskeval' is a question, and runs
	// the model over a folder for minutes.
	if *images == "" {
		return cmd.Refuse(stderr, "--images DIR is needed, the folder of photos to score")
	}
	// The photos are listed first: a folder without any fails before the
	// model is loaded.
	keep, what := hasAnnotation, "NAME.jpg with NAME.mask.png, NAME.windows.png or NAME.never.png"
	if *glass {
		keep, what = nil, "NAME.jpg"
	}
	pairs, err := evalPhotos(*images, *out, what, keep)
	if err != nil {
		return err
	}
	cfg := vision.DefaultConfig(*modelDir)
	cfg.Model = *model
	seg, err := vision.New(cfg)
	if err != nil {
		return err
	}
	defer seg.Close()
	if *glass {
		return evalGlass(ctx, stdout, seg, pairs, *out)
	}
	return evalCar(ctx, stdout, seg, pairs, *out)
}

// evalCar scores the car mask of each photo against its annotations.
func evalCar(ctx context.Context, stdout io.Writer, seg *vision.Segmenter, pairs []string, out string) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "image\tIoU\traw IoU\tprecision\trecall\tparts kept\tconfidence\tborder\ttime\t\n")
	var sum, rawSum float64
	minIoU, minRaw := math.Inf(1), math.Inf(1)
	ious := 0
	var kept []keptScore
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
		total += r.took
		iou, raw, prec, rec, parts := "-", "-", "-", "-", "-"
		if r.truth != nil {
			sum += r.score.IoU
			rawSum += r.raw.IoU
			ious++
			minIoU, minRaw = math.Min(minIoU, r.score.IoU), math.Min(minRaw, r.raw.IoU)
			iou, raw = fmt.Sprintf("%.4f", r.score.IoU), fmt.Sprintf("%.4f", r.raw.IoU)
			prec, rec = fmt.Sprintf("%.4f", r.score.Precision), fmt.Sprintf("%.4f", r.score.Recall)
		}
		if r.hasParts {
			kept = append(kept, keptScore{name, r.partsKept})
			parts = fmt.Sprintf("%.4f", r.partsKept)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%.3f\t%.3f\t%v\t\n", name, iou, raw, prec, rec, parts,
			r.mask.Confidence, r.mask.BorderShare, r.took.Round(time.Millisecond))
		if out != "" {
			if err := writePNG(filepath.Join(out, name+".pred.png"), r.mask.Alpha); err != nil {
				return err
			}
			truth := r.truth
			if truth == nil {
				truth = r.parts
			}
			rows = append(rows, sheetRow{name: name, photo: r.photo, alpha: r.mask.Alpha, truth: truth})
		}
	}
	meanIoU, meanRaw, lowIoU, lowRaw := "-", "-", "-", "-"
	if ious > 0 {
		n := float64(ious)
		meanIoU, meanRaw = fmt.Sprintf("%.4f", sum/n), fmt.Sprintf("%.4f", rawSum/n)
		lowIoU, lowRaw = fmt.Sprintf("%.4f", minIoU), fmt.Sprintf("%.4f", minRaw)
	}
	meanKept, lowKept := "-", "-"
	if len(kept) > 0 {
		mean, low := summarizeKept(kept)
		meanKept, lowKept = fmt.Sprintf("%.4f", mean), fmt.Sprintf("%.4f", low)
	}
	fmt.Fprintf(tw, "mean\t%s\t%s\t\t\t%s\t\t\t%v\t\n", meanIoU, meanRaw, meanKept, (total / time.Duration(len(pairs))).Round(time.Millisecond))
	fmt.Fprintf(tw, "min\t%s\t%s\t\t\t%s\t\t\t\t\n", lowIoU, lowRaw, lowKept)
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(kept) > 0 {
		mean, low := summarizeKept(kept)
		fmt.Fprintf(stdout, "parts kept (share of NAME.windows.png and NAME.never.png the mask keeps): mean %.4f, min %.4f on %d photos; %d below %.2f; worst: %s\n",
			mean, low, len(kept), countBelow(kept, minPartsKept), minPartsKept, worstKept(kept, 5))
	}
	fmt.Fprintf(stdout, "model %s; raw = the model's output alone, thresholded at 0.5\n", seg.Model())
	if out != "" {
		if err := writePNG(filepath.Join(out, "contact-sheet.png"), contactSheet(rows, sheetWidth)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d masks and contact-sheet.png to %s\n", len(rows), out)
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

// hasAnnotation reports whether a hand-made car mask or car-part
// annotation lies beside photo.
func hasAnnotation(photo string) bool {
	base := strings.TrimSuffix(photo, ".jpg")
	for _, suffix := range []string{".mask.png", ".windows.png", ".never.png"} {
		if _, err := os.Stat(base + suffix); err == nil {
			return true
		}
	}
	return false
}

type evalResult struct {
	photo      *image.NRGBA
	truth      *image.Gray // nil without NAME.mask.png
	mask       *vision.Mask
	score, raw vision.Score
	// parts is the union of NAME.windows.png and NAME.never.png (nil
	// without either), partsKept the share of it the mask keeps.
	parts     *image.Gray
	partsKept float64
	hasParts  bool
	took      time.Duration
}

// annotationSuffixes name a photo's hand-made annotations, in the order
// readAnnotations returns them: the car's mask, its windows, its
// never-glass parts.
var annotationSuffixes = [3]string{".mask.png", ".windows.png", ".never.png"}

// readAnnotations reads the annotations of the photo base.jpg; one that
// does not exist is nil.
func readAnnotations(base string) ([3]*image.Gray, error) {
	var annot [3]*image.Gray
	for i, suffix := range annotationSuffixes {
		g, err := vision.ReadMask(base + suffix)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err != nil:
			return annot, err
		}
		annot[i] = g
	}
	return annot, nil
}

func evalOne(ctx context.Context, seg *vision.Segmenter, path string) (evalResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return evalResult{}, err
	}
	annot, err := readAnnotations(strings.TrimSuffix(path, ".jpg"))
	if err != nil {
		return evalResult{}, err
	}
	start := time.Now()
	photo, err := codec.Decode(ctx, data, codec.Limits{MinSide: codec.MinSide, MaxPixels: evalMaxPixels})
	if err != nil {
		return evalResult{}, err
	}
	mask, err := seg.Segment(ctx, photo)
	if err != nil {
		return evalResult{}, err
	}
	took := time.Since(start)
	for _, a := range annot {
		if a != nil && a.Rect.Size() != mask.Alpha.Rect.Size() {
			return evalResult{}, fmt.Errorf("an annotation is %v, the photo %v", a.Rect.Size(), mask.Alpha.Rect.Size())
		}
	}
	r := evalResult{photo: photo, truth: annot[0], mask: mask, took: took}
	if r.truth != nil {
		r.score = vision.Compare(mask.Alpha, r.truth)
		r.raw = vision.Compare(scaleGray(mask.Raw, r.truth.Rect.Dx(), r.truth.Rect.Dy()), r.truth)
	}
	if annot[1] != nil || annot[2] != nil {
		r.parts = unionMask(annot[1], annot[2])
		r.partsKept, r.hasParts = vision.PartsKept(mask.Alpha, r.parts)
	}
	return r, nil
}

// minPartsKept is the share of its annotated car parts every photo's mask
// must keep (issue 26).
const minPartsKept = 0.96

// keptScore is one photo's share of annotated car parts kept.
type keptScore struct {
	name string
	kept float64
}

func summarizeKept(s []keptScore) (mean, low float64) {
	low = 1
	for _, k := range s {
		mean += k.kept
		low = min(low, k.kept)
	}
	return mean / float64(len(s)), low
}

func countBelow(s []keptScore, bar float64) int {
	n := 0
	for _, k := range s {
		if k.kept < bar {
			n++
		}
	}
	return n
}

// worstKept lists the n photos that keep the least of their parts.
func worstKept(s []keptScore, n int) string {
	s = slices.Clone(s)
	slices.SortStableFunc(s, func(a, b keptScore) int { return cmp.Compare(a.kept, b.kept) })
	var out []string
	for _, k := range s[:min(n, len(s))] {
		out = append(out, fmt.Sprintf("%s %.4f", k.name, k.kept))
	}
	return strings.Join(out, ", ")
}

// unionMask is 255 where a or b (either may be nil) is at least 128.
func unionMask(a, b *image.Gray) *image.Gray {
	r := a
	if r == nil {
		r = b
	}
	out := image.NewGray(image.Rect(0, 0, r.Rect.Dx(), r.Rect.Dy()))
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			if (a != nil && a.Pix[y*a.Stride+x] >= 128) || (b != nil && b.Pix[y*b.Stride+x] >= 128) {
				out.Pix[y*out.Stride+x] = 255
			}
		}
	}
	return out
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
