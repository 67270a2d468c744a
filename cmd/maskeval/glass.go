package main

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/glasstrain"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// evalUsage is maskeval's help text, under its synopsis.
const evalUsage = `  maskeval --images DIR [--out OUT]           car mask against NAME.mask.png and car parts
  maskeval --glass --images DIR [--out OUT]   glass, and the car mask where annotated

Without --glass, every NAME.jpg with a NAME.mask.png, NAME.windows.png or
NAME.never.png beside it is segmented and scored: IoU against NAME.mask.png,
and parts kept, the share of NAME.windows.png and NAME.never.png (glass,
lights, bumpers, bonnet, wheels: all car) that the mask keeps (alpha >= 128;
every photo should keep at least 0.96); the summary lists the worst photos.
--out receives NAME.pred.png and contact-sheet.png (errors against the mask,
or against the parts where there is none).

With --glass, every NAME.jpg is segmented and its glass found as
SemiTransparentWindowsProcessor finds it; --out receives NAME.glass.png
(8-bit, 255 fully glass) and glass-sheet.png (per photo: the photo, the glass
rendered at transparency 1 over magenta, and the errors: green glass found
on NAME.windows.png, blue windows missed, red glass on NAME.never.png, white
glass on parts not annotated). Whatever annotation a photo has is scored:
NAME.mask.png (IoU), NAME.windows.png (recall: its share predicted glass,
the layer read as glass from 128; found at recall >= 0.5) and
NAME.never.png (false: its share predicted glass); torn counts the
annotated panes (4-connected regions of NAME.windows.png of at least 0.2%
of the photo) of which more than 15% and less than 85% is glass. A photo with none is
still processed and written.`

// glassRow is one photo of the glass sheet, already reduced to the sheet's
// panel width.
type glassRow struct {
	photo                 *image.NRGBA
	glass, windows, never *image.Gray
}

// evalGlass is maskeval --glass.
func evalGlass(ctx context.Context, stdout io.Writer, seg *vision.Segmenter, photos []string, out string) error {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "image\trecall\tfalse\tfound\ttorn\tcar IoU\ttime\t\n")
	var scores []vision.GlassScore
	var panes pipeline.PaneScore
	var iouSum float64
	ious := 0
	var rows []glassRow
	for _, p := range photos {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := strings.TrimSuffix(filepath.Base(p), ".jpg")
		base := strings.TrimSuffix(p, ".jpg")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		start := time.Now()
		photo, err := codec.Decode(ctx, data, codec.Limits{MinSide: codec.MinSide, MaxPixels: evalMaxPixels})
		if err != nil {
			return fmt.Errorf("eval %s: %w", name, err)
		}
		mask, err := seg.Segment(ctx, photo)
		if err != nil {
			return fmt.Errorf("eval %s: %w", name, err)
		}
		glass := pipeline.DetectGlass(photo, mask)
		took := time.Since(start)
		annot, err := readAnnotations(base) // car, windows, never
		if err != nil {
			return err
		}
		for i, g := range annot {
			if g != nil && g.Rect.Size() != photo.Rect.Size() {
				return fmt.Errorf("eval %s: %s is %v, the photo %v", name, annotationSuffixes[i], g.Rect.Size(), photo.Rect.Size())
			}
		}
		iou := "-"
		if annot[0] != nil {
			s := vision.Compare(mask.Alpha, annot[0])
			iouSum += s.IoU
			ious++
			iou = fmt.Sprintf("%.4f", s.IoU)
		}
		s := vision.CompareGlass(glass, annot[1], annot[2])
		scores = append(scores, s)
		ps := pipeline.ScorePanes(glass, annot[1])
		panes = panes.Add(ps)
		recall, falseShare, found, torn := "-", "-", "-", "-"
		if s.HasWindows {
			recall, found, torn = fmt.Sprintf("%.3f", s.Recall), fmt.Sprint(s.Found()), fmt.Sprintf("%d/%d", ps.Torn, ps.Panes)
		}
		if s.HasNever {
			falseShare = fmt.Sprintf("%.4f", s.False)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%v\t\n", name, recall, falseShare, found, torn, iou, took.Round(time.Millisecond))
		if out != "" {
			if err := writePNG(filepath.Join(out, name+".glass.png"), glass); err != nil {
				return err
			}
			rows = append(rows, glassSheetRow(photo, glass, annot[1], annot[2], sheetWidth))
		}
		codec.Recycle(photo)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	sum := vision.SummarizeGlass(scores)
	fmt.Fprintf(stdout, "glass: recall mean %.3f, median %.3f; found (recall >= %.1f) on %d of %d; never-glass made glass: mean %.2f%%, max %.2f%%\n",
		sum.MeanRecall, sum.MedianRecall, vision.FoundRecall, sum.Found, sum.Scored, 100*sum.MeanFalse, 100*sum.MaxFalse)
	fmt.Fprintf(stdout, "torn panes: %d of %d (%.1f%%; a pane is a 4-connected region of NAME.windows.png of at least 0.2%% of the photo, torn when 15-85%% of it is glass)\n",
		panes.Torn, panes.Panes, 100*float64(panes.Torn)/float64(max(panes.Panes, 1)))
	if ious > 0 {
		fmt.Fprintf(stdout, "car: mean IoU %.4f on %d photos with NAME.mask.png\n", iouSum/float64(ious), ious)
	}
	if out != "" {
		if err := writePNG(filepath.Join(out, "glass-sheet.png"), glassSheet(rows, sheetWidth)); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %d glass layers and glass-sheet.png to %s\n", len(rows), out)
	}
	return nil
}

// sheetWidth is a contact sheet's panel width in pixels.
const sheetWidth = 320

// glassSheetRow reduces a photo, its glass and annotations (nil when
// missing) to width pixels across, nearest neighbour: the sheet holds no
// full-resolution copy.
func glassSheetRow(photo *image.NRGBA, glass, windows, never *image.Gray, width int) glassRow {
	W, H := photo.Rect.Dx(), photo.Rect.Dy()
	h := max(H*width/W, 1)
	r := glassRow{photo: image.NewNRGBA(image.Rect(0, 0, width, h)), glass: image.NewGray(image.Rect(0, 0, width, h))}
	if windows != nil {
		r.windows = image.NewGray(r.glass.Rect)
	}
	if never != nil {
		r.never = image.NewGray(r.glass.Rect)
	}
	for y := range h {
		sy := y * H / h
		for x := range width {
			sx := x * W / width
			copy(r.photo.Pix[r.photo.PixOffset(x, y):][:4], photo.Pix[photo.PixOffset(sx, sy):])
			r.glass.Pix[r.glass.PixOffset(x, y)] = glass.Pix[glass.PixOffset(sx, sy)]
			for _, p := range [][2]*image.Gray{{windows, r.windows}, {never, r.never}} {
				if p[0] != nil {
					p[1].Pix[p[1].PixOffset(x, y)] = p[0].Pix[p[0].PixOffset(sx, sy)]
				}
			}
		}
	}
	return r
}

// glassSheet draws one row per photo: the photo, the glass at transparency
// 1 over magenta, and the error map (green: glass on annotated windows;
// blue: annotated windows missed; red: glass on never-glass parts; white:
// glass on parts not annotated; the photo dimmed elsewhere).
func glassSheet(rows []glassRow, width int) *image.NRGBA {
	const gap = 4
	height := 0
	for _, r := range rows {
		height += r.photo.Rect.Dy() + gap
	}
	sheet := image.NewNRGBA(image.Rect(0, 0, 3*width+2*gap, max(height, 1)))
	draw.Draw(sheet, sheet.Rect, image.NewUniform(color.NRGBA{40, 40, 40, 255}), image.Point{}, draw.Src)
	top := 0
	for _, r := range rows {
		for y := range r.photo.Rect.Dy() {
			for x := range width {
				c := r.photo.NRGBAAt(x, y)
				c.A = 255
				sheet.SetNRGBA(x, top+y, c)
				in := func(m *image.Gray) bool { return m != nil && m.GrayAt(x, y).Y >= 128 }
				o, e := glasstrain.SheetPixel(c, r.glass.GrayAt(x, y).Y, in(r.windows), in(r.never))
				sheet.SetNRGBA(width+gap+x, top+y, o)
				sheet.SetNRGBA(2*(width+gap)+x, top+y, e)
			}
		}
		top += r.photo.Rect.Dy() + gap
	}
	return sheet
}
