package vision

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/codec"
)

// The cleanup is measured on hundreds of photos while it is tuned: the
// model's answer (its saliency on the working grid) is cached per photo
// under ~/.cache/showroom/mask-sal/, keyed by the photo's bytes, so a pass
// over all of them runs the cleanup and the refinement alone. The cache is
// a measuring aid; the service never reads it.

// salCacheDir is where cached saliency maps go; "" when there is no home.
// SHOWROOM_MASK_SAL_DIR names another folder: a measurement of a few
// photos that should not write into the shared cache.
func salCacheDir() string {
	if dir := os.Getenv("SHOWROOM_MASK_SAL_DIR"); dir != "" {
		return dir
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "showroom", "mask-sal")
}

// lazySegmenter loads the model on first use, so a pass that finds every
// saliency map cached loads none.
type lazySegmenter struct {
	tb   testing.TB
	once sync.Once
	seg  *Segmenter
	err  error
	// The second opinion's model alone, for a pass that finds the first
	// model's answers cached.
	opOnce sync.Once
	op     *model
}

// opinion returns the second opinion's model, loaded on first use.
func (l *lazySegmenter) opinion() *model {
	l.opOnce.Do(func() {
		cfg := DefaultConfig(modelDir(l.tb))
		cfg.Model = ModelU2Netp
		lib := filepath.Join(cfg.ModelDir, LibraryFile)
		if err := acquireEnv(lib); err != nil {
			l.tb.Fatal(err)
		}
		m, err := newModel(cfg, models[ModelU2Netp], lib)
		if err != nil {
			releaseEnv()
			l.tb.Fatal(err)
		}
		l.op = m
	})
	return l.op
}

func (l *lazySegmenter) get() *Segmenter {
	l.once.Do(func() { l.seg, l.err = New(DefaultConfig(modelDir(l.tb))) })
	if l.err != nil {
		l.tb.Fatal(l.err)
	}
	return l.seg
}

func (l *lazySegmenter) close() {
	if l.seg != nil {
		l.seg.Close()
	}
	if l.op != nil {
		l.op.close()
		releaseEnv()
	}
}

// cachedPhoto is a decoded photo with the model's saliency on its working
// grid and the grid's colours, as Segment computes them.
type cachedPhoto struct {
	img  *image.NRGBA
	sal  plane
	work [3]plane
	// file is the saliency's cache file ("" when there is no cache),
	// seg the model for a second look.
	file string
	seg  *lazySegmenter
	tb   testing.TB
	// key names the photo's cache files (its bytes' hash); opinions is
	// whether the second opinion runs where Segment would run it
	// (SHOWROOM_MASK_OPINION=off measures without it).
	key      string
	opinions bool
}

// saliencyOf decodes the photo at path and returns it with the model's
// saliency on the working grid, from the cache when it is there.
func saliencyOf(tb testing.TB, seg *lazySegmenter, path string) cachedPhoto {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	img, err := codec.Decode(context.Background(), data, codec.Limits{})
	if err != nil {
		tb.Fatal(err)
	}
	img = normalizeOrigin(img)
	b := img.Rect
	spec := models[ModelISNet]
	ww, wh := workSize(b.Dx(), b.Dy())
	fx := max(b.Dx()/max(spec.size, ww), 1)
	fy := max(b.Dy()/max(spec.size, wh), 1)
	base := shrinkRGB(img, fx, fy)
	square, work := resizeRGB2(base, spec.size, spec.size, ww, wh)
	sum := sha256.Sum256(data)
	key := hex.EncodeToString(sum[:12])
	opinions := os.Getenv("SHOWROOM_MASK_OPINION") != "off"
	file := ""
	if dir := salCacheDir(); dir != "" {
		file = filepath.Join(dir, ModelISNet+"-"+key+".f32")
	}
	if file != "" {
		if sal, ok := readPlane(tb, file, ww, wh); ok {
			return cachedPhoto{img: img, sal: sal, work: work, file: file, seg: seg, tb: tb, key: key, opinions: opinions}
		}
	}
	if os.Getenv("SHOWROOM_MASK_EVAL") == "cached" {
		return cachedPhoto{img: img}
	}
	s := seg.get()
	input := modelInput(square, s.model.spec)
	out, _, err := s.model.run(context.Background(), input)
	if err != nil {
		tb.Fatal(err)
	}
	sal := plane{W: spec.size, H: spec.size, Pix: out}.Resize(floatPool{}, ww, wh)
	if file != "" {
		writePlane(tb, file, sal)
	}
	return cachedPhoto{img: img, sal: sal, work: work, file: file, seg: seg, tb: tb, key: key, opinions: opinions}
}

// readPlane reads a cached w×h plane; ok is false when it is not there.
func readPlane(tb testing.TB, file string, w, h int) (plane, bool) {
	raw, err := os.ReadFile(file)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			tb.Fatal(err)
		}
		return plane{}, false
	}
	if len(raw) != 4*w*h {
		return plane{}, false
	}
	p := newPlane(w, h)
	for i := range p.Pix {
		p.Pix[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return p, true
}

// writePlane caches p in file. The cache is an aid: a folder that cannot
// be written to only means the next pass runs the model again.
func writePlane(tb testing.TB, file string, p plane) {
	raw := make([]byte, 4*len(p.Pix))
	for i, v := range p.Pix {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	err := os.MkdirAll(filepath.Dir(file), 0o755)
	if err == nil {
		err = os.WriteFile(file+".tmp", raw, 0o644)
	}
	if err == nil {
		err = os.Rename(file+".tmp", file)
	}
	if err != nil {
		tb.Logf("not caching the model's answer: %v", err)
	}
}

// matteOf runs the cleanup, the second look and the second opinion where
// Segment takes them, and the refinement on a cached photo: the
// full-resolution alpha Segment would return.
func matteOf(p cachedPhoto) (*image.Gray, cleaned) {
	c := cleanup(p.sal, p.work, plane{})
	sal := p.sal
	if crop, ok := secondLookCrop(p.sal, c); ok {
		look := p.lookAgain(crop)
		sal = newPlane(p.sal.W, p.sal.H)
		defer sal.Release(floatPool{})
		copy(sal.Pix, p.sal.Pix)
		mergeSecondLook(sal, look, crop, c.box, c.floorY)
		look.Release(floatPool{})
		c.matte.Release(floatPool{})
		raw := c.raw
		c = cleanup(sal, p.work, plane{})
		c.raw = raw
	}
	if p.opinions && wantsSecondOpinion(sal, c) {
		op := p.secondOpinion()
		c.matte.Release(floatPool{})
		raw := c.raw
		c = cleanup(sal, p.work, op)
		c.raw = raw
		op.Release(floatPool{})
	}
	return refine(p.img, p.work, c.matte), c
}

// opinionCacheDir is where the second model's answers are cached:
// SHOWROOM_MASK_OPINION_CACHE, else beside the saliency maps.
func opinionCacheDir() string {
	if d := os.Getenv("SHOWROOM_MASK_OPINION_CACHE"); d != "" {
		return d
	}
	return salCacheDir()
}

// secondOpinion is Segmenter.secondOpinion on the cached photo, itself
// cached (at the second model's input size) beside the photo's saliency.
func (p cachedPhoto) secondOpinion() plane {
	spec := models[ModelU2Netp]
	file := ""
	if dir := opinionCacheDir(); dir != "" && p.key != "" {
		file = filepath.Join(dir, ModelU2Netp+"-"+p.key+".f32")
		if sq, ok := readPlane(p.tb, file, spec.size, spec.size); ok {
			op := sq.Resize(floatPool{}, p.sal.W, p.sal.H)
			releaseUnless(sq, op)
			return op
		}
	}
	sq, _, err := secondOpinion(context.Background(), p.seg.opinion(), p.work)
	if err != nil {
		p.tb.Fatal(err)
	}
	if file != "" {
		writePlane(p.tb, file, sq)
	}
	op := sq.Resize(floatPool{}, p.sal.W, p.sal.H)
	releaseUnless(sq, op)
	return op
}

// lookAgain is Segmenter.lookAgain on the cached photo, itself cached
// beside the photo's saliency (it runs even when SHOWROOM_MASK_EVAL is
// "cached": about a fifth of the photos take a second look).
func (p cachedPhoto) lookAgain(crop image.Rectangle) plane {
	file := ""
	if p.file != "" {
		file = fmt.Sprintf("%s-look-%d_%d_%d_%d.f32", strings.TrimSuffix(p.file, ".f32"), crop.Min.X, crop.Min.Y, crop.Max.X, crop.Max.Y)
		if look, ok := readPlane(p.tb, file, crop.Dx(), crop.Dy()); ok {
			return look
		}
	}
	look, _, err := p.seg.get().lookAgain(context.Background(), p.img, crop, p.sal.W, p.sal.H)
	if err != nil {
		p.tb.Fatal(err)
	}
	if file != "" {
		writePlane(p.tb, file, look)
	}
	return look
}

// glassPhotos lists the annotated dealer photos of set (glass or
// glass-more), or skips.
func glassPhotos(tb testing.TB, set string) []string {
	photos, _ := filepath.Glob(filepath.Join("../../../shared/testdata", set, "*.jpg"))
	if len(photos) == 0 {
		tb.Skipf("skipping: ../shared/testdata/%s is not there (the annotated photos are not in the repository)", set)
	}
	sort.Strings(photos)
	return onlyPhotos(photos)
}

// onlyPhotos keeps of photos those whose file name starts with one of the
// comma-separated prefixes in SHOWROOM_MASK_EVAL_ONLY (all without it):
// a measurement of a few photos while a rule is studied.
func onlyPhotos(photos []string) []string {
	only := os.Getenv("SHOWROOM_MASK_EVAL_ONLY")
	if only == "" {
		return photos
	}
	var out []string
	for _, p := range photos {
		for _, prefix := range strings.Split(only, ",") {
			if prefix != "" && strings.HasPrefix(filepath.Base(p), prefix) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

type keptRow struct {
	name string
	kept float64
	// found is the share of the parts the model found (saliency at
	// least one half) that the mask keeps: what the cleanup lost.
	found float64
	// lost counts the annotated pixels lost by the model's saliency
	// there: below 0.3, 0.3-0.5 (the model missed them), 0.5-0.7, at
	// least 0.7 (the cleanup cut them).
	lost [4]int
	// extra is the share of the mask kept far outside the hull of all
	// annotated parts (KeptOutside): what is kept that is not car.
	extra float64
	// tile is the photo's diagnostic picture, for the contact sheets.
	tile *image.NRGBA
}

// extraMargin is how far outside the annotated parts' hull, as a share of
// its larger side, the mask may reach before what it keeps counts as not
// car: the rounding of a roof and doors above and beside the glass.
const extraMargin = 0.05

// lostBySaliency splits the annotated pixels alpha loses by the model's
// saliency on them (nearest working-grid pixel), and returns the share of
// those the model found (saliency at least one half) that alpha keeps.
func lostBySaliency(alpha, parts *image.Gray, sal plane) (lost [4]int, found float64) {
	W, H := alpha.Rect.Dx(), alpha.Rect.Dy()
	nFound := 0
	for y := range H {
		for x := range W {
			if parts.Pix[y*parts.Stride+x] < 128 {
				continue
			}
			v := sal.Pix[(y*sal.H/H)*sal.W+x*sal.W/W]
			if v >= 0.5 {
				nFound++
			}
			if alpha.Pix[y*alpha.Stride+x] >= 128 {
				continue
			}
			switch {
			case v < 0.3:
				lost[0]++
			case v < 0.5:
				lost[1]++
			case v < 0.7:
				lost[2]++
			default:
				lost[3]++
			}
		}
	}
	found = 1
	if nFound > 0 {
		found = 1 - float64(lost[2]+lost[3])/float64(nFound)
	}
	return lost, found
}

// measureKept returns the parts kept per photo, worst first, and the mean.
func measureKept(tb testing.TB, seg *lazySegmenter, photos []string) ([]keptRow, float64) {
	var rows []keptRow
	var sum float64
	for _, p := range photos {
		base := strings.TrimSuffix(p, ".jpg")
		cp := saliencyOf(tb, seg, p)
		if cp.sal.Pix == nil {
			continue
		}
		alpha, _ := matteOf(cp)
		parts := union(readMask(tb, base+".windows.png"), readMask(tb, base+".never.png"))
		all := union(parts, readMask(tb, base+".wheels.png"))
		var tile *image.NRGBA
		if os.Getenv("SHOWROOM_MASK_EVAL_OUT") != "" || os.Getenv("SHOWROOM_MASK_SHEET") != "" {
			tile = diagnostic(cp, alpha, parts, nearParts(all, extraMargin))
		}
		if dir := os.Getenv("SHOWROOM_MASK_EVAL_OUT"); dir != "" {
			writePNG(tb, filepath.Join(dir, filepath.Base(base)+".png"), tile)
		}
		k, ok := PartsKept(alpha, parts)
		// The wheels count for the hull: a side view's tyres are its
		// lowest, outermost parts.
		extra, _ := KeptOutside(alpha, all, extraMargin)
		lost, found := lostBySaliency(alpha, parts, cp.sal)
		cp.sal.Release(floatPool{})
		for _, w := range cp.work {
			w.Release(floatPool{})
		}
		if !ok {
			continue
		}
		rows = append(rows, keptRow{filepath.Base(base), k, found, lost, extra, tile})
		sum += k
	}
	slices.SortFunc(rows, func(a, b keptRow) int {
		if a.kept != b.kept {
			if a.kept < b.kept {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	return rows, sum / float64(max(len(rows), 1))
}

// cachedDevIoU is devIoU on cached saliency.
func cachedDevIoU(tb testing.TB, seg *lazySegmenter, photos []string) (mean, lowest float64, worst string) {
	lowest = 1
	n := 0
	for _, p := range photos {
		cp := saliencyOf(tb, seg, p)
		if cp.sal.Pix == nil {
			continue
		}
		alpha, _ := matteOf(cp)
		truth := readMask(tb, strings.TrimSuffix(p, ".jpg")+".mask.png")
		if dir := os.Getenv("SHOWROOM_MASK_EVAL_OUT"); dir != "" {
			writePNG(tb, filepath.Join(dir, filepath.Base(p)+".png"), diagnostic(cp, alpha, truth, nil))
		}
		n++
		s := Compare(alpha, truth).IoU
		if os.Getenv("SHOWROOM_MASK_EVAL_EACH") != "" {
			tb.Logf("each %s IoU %.5f", filepath.Base(p), s)
		}
		mean += s
		if s < lowest {
			lowest, worst = s, filepath.Base(p)
		}
	}
	return mean / float64(max(n, 1)), lowest, worst
}

// TestPartsKept measures on a sample of the annotated dealer photos
// (every fifth of ../shared/testdata/glass and every twentieth of
// glass-more, 21 photos) how much of the annotated car parts (glass,
// lights, bumpers, bonnet, wheels) the mask keeps. The cleanup must lose
// none of them where the model found them (at least 96% of those on
// every photo): where IS-Net misses a part (a dark bumper over a dark
// floor, a mirror), no cleanup brings it back, and the mean over the
// sample must stay at least 97%. SHOWROOM_MASK_EVAL=all measures all 313
// and the dev photos' IoU (with the saliency cache, a pass takes seconds;
// SHOWROOM_MASK_EVAL=fill fills it) and prints the worst photos;
// SHOWROOM_MASK_EVAL_OUT=DIR writes a picture of each;
// SHOWROOM_MASK_EVAL_ONLY=115_,162_ measures the photos whose names start
// so; SHOWROOM_MASK_EVAL_EACH=1 logs every photo's numbers.
func TestPartsKept(t *testing.T) {
	all := os.Getenv("SHOWROOM_MASK_EVAL") != ""
	seg := &lazySegmenter{tb: t}
	defer seg.close()
	var sum float64
	n := 0
	for _, set := range []struct {
		name  string
		every int
	}{{"glass", 5}, {"glass-more", 20}} {
		photos := glassPhotos(t, set.name)
		if !all {
			var sample []string
			for i := 0; i < len(photos); i += set.every {
				sample = append(sample, photos[i])
			}
			photos = sample
		}
		rows, mean := measureKept(t, seg, photos)
		if len(rows) == 0 {
			continue
		}
		sum += mean * float64(len(rows))
		n += len(rows)
		var worstNames []string
		for _, r := range rows[:min(8, len(rows))] {
			worstNames = append(worstNames, fmt.Sprintf("%s %.4f (of what the model found %.4f; pixels lost %v)", r.name, r.kept, r.found, r.lost))
		}
		below := 0
		for _, r := range rows {
			if r.kept < 0.96 {
				below++
			}
			if r.found < 0.96 {
				t.Errorf("%s: the cleanup lost %.1f%% of the annotated car parts the model found, want at most 4%%", r.name, 100*(1-r.found))
			}
		}
		t.Logf("%s: %d photos, parts kept mean %.4f, min %.4f, %d below 0.96; worst (pixels lost at saliency <0.3, <0.5, <0.7, >=0.7):\n  %s",
			set.name, len(rows), mean, rows[0].kept, below, strings.Join(worstNames, "\n  "))
		logExtra(t, set.name, rows)
		if os.Getenv("SHOWROOM_MASK_EVAL_EACH") != "" {
			logEach(t, rows)
		}
	}
	if dev := onlyPhotos(devPhotos(t)); all && len(dev) > 0 {
		mean, lowest, name := cachedDevIoU(t, seg, dev)
		t.Logf("dev: IoU mean %.4f, min %.4f (%s)", mean, lowest, name)
	}
	if mean := sum / float64(max(n, 1)); n > 0 && mean < 0.97 {
		t.Errorf("the mask keeps %.4f of the annotated car parts on average, want at least 0.97", mean)
	}
}

// logEach logs every photo's parts kept and share kept outside the hull,
// a line each in name order (SHOWROOM_MASK_EVAL_EACH): two passes, before
// and after a change, compared line by line name the photos it changed.
func logEach(t *testing.T, rows []keptRow) {
	byName := slices.Clone(rows)
	slices.SortFunc(byName, func(a, b keptRow) int { return strings.Compare(a.name, b.name) })
	var lines []string
	for _, r := range byName {
		lines = append(lines, fmt.Sprintf("each %s kept %.5f outside %.5f", r.name, r.kept, r.extra))
	}
	t.Log("\n" + strings.Join(lines, "\n"))
}

// extraBar is the share of a mask kept outside the annotated parts' hull
// from which a photo counts as keeping something that is not car.
const extraBar = 0.02

// logExtra logs how much of the masks of rows lies far outside the
// annotated parts (KeptOutside) and, with SHOWROOM_MASK_SHEET=DIR, writes
// contact sheets of the photos that keep the most there and of those that
// lose the most parts, for looking at.
func logExtra(t *testing.T, set string, rows []keptRow) {
	byExtra := slices.Clone(rows)
	slices.SortStableFunc(byExtra, func(a, b keptRow) int {
		switch {
		case a.extra > b.extra:
			return -1
		case a.extra < b.extra:
			return 1
		}
		return 0
	})
	var sum float64
	over := 0
	for _, r := range rows {
		sum += r.extra
		if r.extra > extraBar {
			over++
		}
	}
	var worst []string
	for _, r := range byExtra[:min(10, len(byExtra))] {
		worst = append(worst, fmt.Sprintf("%s %.4f", r.name, r.extra))
	}
	t.Logf("%s: kept outside the parts' hull, mean %.4f, %d above %.2f; most: %s",
		set, sum/float64(max(len(rows), 1)), over, extraBar, strings.Join(worst, ", "))
	dir := os.Getenv("SHOWROOM_MASK_SHEET")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sheet := range []struct {
		name string
		rows []keptRow
	}{{"extra", byExtra}, {"lost", rows}} {
		n := min(16, len(sheet.rows))
		for page := 0; page*n < len(sheet.rows) && page < 2; page++ {
			var tiles []*image.NRGBA
			var names []string
			for _, r := range sheet.rows[page*n : min((page+1)*n, len(sheet.rows))] {
				tiles = append(tiles, r.tile)
				names = append(names, fmt.Sprintf("%s (kept %.3f, outside %.3f)", r.name, r.kept, r.extra))
			}
			file := filepath.Join(dir, fmt.Sprintf("%s-%s-%d.png", set, sheet.name, page+1))
			writePNG(t, file, contactSheet(tiles, 2))
			t.Logf("%s, left to right, top to bottom: %s", file, strings.Join(names, ", "))
		}
	}
}

// contactSheet lays tiles out in cols columns, each row as high as its
// tallest tile.
func contactSheet(tiles []*image.NRGBA, cols int) *image.NRGBA {
	const gap = 6
	tw, rowsH := 0, []int{}
	for i, tl := range tiles {
		tw = max(tw, tl.Rect.Dx())
		if i%cols == 0 {
			rowsH = append(rowsH, 0)
		}
		rowsH[len(rowsH)-1] = max(rowsH[len(rowsH)-1], tl.Rect.Dy())
	}
	H := 0
	for _, h := range rowsH {
		H += h + gap
	}
	out := image.NewNRGBA(image.Rect(0, 0, cols*(tw+gap), H))
	y := 0
	for r, h := range rowsH {
		for c := range cols {
			if i := r*cols + c; i < len(tiles) {
				draw.Draw(out, tiles[i].Rect.Add(image.Pt(c*(tw+gap), y)), tiles[i], image.Point{}, draw.Src)
			}
		}
		y += h + gap
	}
	return out
}

// union is 255 where a or b is at least 128.
func union(a, b *image.Gray) *image.Gray {
	out := image.NewGray(a.Rect)
	for i := range out.Pix {
		if a.Pix[i] >= 128 || b.Pix[i] >= 128 {
			out.Pix[i] = 255
		}
	}
	return out
}

// diagnostic is a picture for looking at one photo's mask: the photo, the
// model's saliency (grey), and the final matte over the annotation (white:
// kept and annotated; blue: annotated but lost; red: kept, not annotated;
// the photo dimmed elsewhere). Where the annotation outlines parts only,
// near is where the car may be (nearParts): what is kept there, not
// annotated, is light grey, and only what is kept beyond it red.
func diagnostic(cp cachedPhoto, alpha, truth *image.Gray, near []bool) *image.NRGBA {
	W, H := cp.img.Rect.Dx(), cp.img.Rect.Dy()
	side := 400
	if os.Getenv("SHOWROOM_MASK_SHEET") != "" {
		side = 200
	}
	w, h := side, max(H*side/W, 1)
	out := image.NewNRGBA(image.Rect(0, 0, 3*w+8, h))
	for y := range h {
		for x := range w {
			sx, sy := x*W/w, y*H/h
			o := cp.img.PixOffset(sx, sy)
			r, g, b := cp.img.Pix[o], cp.img.Pix[o+1], cp.img.Pix[o+2]
			out.SetNRGBA(x, y, color.NRGBA{r, g, b, 255})
			v := uint8(255 * cp.sal.Pix[(y*cp.sal.H/h)*cp.sal.W+x*cp.sal.W/w])
			out.SetNRGBA(w+4+x, y, color.NRGBA{v, v, v, 255})
			a, t := alpha.Pix[sy*alpha.Stride+sx] >= 128, truth.Pix[sy*truth.Stride+sx] >= 128
			l := uint8((uint32(r)*54 + uint32(g)*183 + uint32(b)*19) / 256 / 3)
			e := color.NRGBA{l, l, l, 255}
			switch {
			case a && t:
				e = color.NRGBA{235, 235, 235, 255}
			case t:
				e = color.NRGBA{0, 90, 255, 255}
			case a && near != nil && near[sy*W+sx]:
				e = color.NRGBA{170, 170, 170, 255}
			case a:
				e = color.NRGBA{255, 60, 60, 255}
			}
			out.SetNRGBA(2*(w+4)+x, y, e)
		}
	}
	return out
}

// writePNG writes img to path.
func writePNG(tb testing.TB, path string, img image.Image) {
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		tb.Fatal(err)
	}
}

// TestFillSaliencyCache runs the model on every photo the measurements
// use, when SHOWROOM_MASK_EVAL=fill, so that later passes find them all
// cached: the dev photos first, then the glass photos, then glass-more
// spread over its range, so that a pass interrupted early still has a
// sample of each.
func TestFillSaliencyCache(t *testing.T) {
	if os.Getenv("SHOWROOM_MASK_EVAL") != "fill" {
		t.Skip("skipping: set SHOWROOM_MASK_EVAL=fill to run the model on every measured photo")
	}
	seg := &lazySegmenter{tb: t}
	defer seg.close()
	photos := append(devPhotos(t), glassPhotos(t, "glass")...)
	more := glassPhotos(t, "glass-more")
	for k := range 4 {
		for i := k; i < len(more); i += 4 {
			photos = append(photos, more[i])
		}
	}
	for _, p := range photos {
		cp := saliencyOf(t, seg, p)
		cp.sal.Release(floatPool{})
	}
}

// BenchmarkCleanupCPU is the cleanup on the first dev photo's cached
// saliency, brought to a 12 MP photo's working grid (1024×768), and
// reports the CPU time per run beside the wall time: on a shared machine
// the CPU time is the steadier measure of a change.
func BenchmarkCleanupCPU(b *testing.B) {
	seg := &lazySegmenter{tb: b}
	defer seg.close()
	cp := saliencyOf(b, seg, devPhotos(b)[0])
	sal := cp.sal.Resize(floatPool{}, 1024, 768)
	var work [3]plane
	for c := range work {
		work[c] = cp.work[c].Resize(floatPool{}, 1024, 768)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	for b.Loop() {
		c := cleanup(sal, work, plane{})
		c.matte.Release(floatPool{})
	}
	b.ReportMetric(float64(cpu()-start)/float64(b.N)/1e6, "cpu-ms/op")
}
