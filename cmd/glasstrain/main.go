// Command glasstrain trains the glass model on the glass dev set and
// writes it as JSON for the pipeline to embed; `make glass-model` runs it.
// It first reports the model's scores under cross-validation (each photo
// scored by a model that never saw it), which is what
// docs/glass-and-shadow.md quotes, then trains on every photo.
//
// Usage: go run ./cmd/glasstrain --images DIR[,DIR...] [--out FILE] [--folds N] [--mask-cache DIR]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"

	"golang.org/x/image/draw"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/showroom/showroom/internal/cliflag"
	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/glasstrain"
	"github.com/showroom/showroom/internal/maskcache"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// synopsis is the command's usage line.
const synopsis = "glasstrain --images DIR[,DIR...] [--out FILE] [--folds N] [--mask-cache DIR]"

func main() {
	fs := flag.NewFlagSet("glasstrain", flag.ContinueOnError)
	images := fs.String("images", "", "folders (comma-separated) of NAME.jpg with NAME.windows.png and NAME.never.png; required")
	out := fs.String("out", "", "where to write the deep model (default: nowhere; make glass-model writes internal/pipeline/glass_probe.json)")
	folds := fs.Int("folds", 5, "cross-validation folds (0: none)")
	prepare := fs.Bool("prepare", false, "only segment the photos into -mask-cache")
	baseline := fs.Bool("baseline", false, "also cross-validate the hand-made-feature model, for comparison")
	sheet := fs.String("sheet", "", "write the deep model's cross-validated glass of every photo to PNGs named after this one (outside the repository)")
	scale := fs.Float64("scale", 0, "score every photo enlarged this many times instead (the segmenter's mask enlarged with it)")
	from := fs.Int("from", 0, "with -prepare, start at the N-th photo (those before are in the cache)")
	check := fs.Int("check", 0, "score the model trained on every photo on the first N (in-sample)")
	limit := fs.Int("limit", 0, "use only the first N photos (0: all), e.g. those already in -mask-cache")
	cache := fs.String("mask-cache", "", "folder to keep the segmenter's masks in between runs")
	grow := fs.Float64("grow", -1, "override the probability glass grows over (tuning)")
	confidence := fs.Float64("confidence", -1, "override the least mean probability of a region drawn as glass (tuning)")
	snap := fs.Int("snap", -1, "override the guided filter's radius on the probability (tuning)")
	snapEps := fs.Float64("snap-eps", 2e-3, "its regularisation, with -snap")
	footDrop := fs.Float64("foot-drop", -1, "override the fall of the probability across a pane's seal under which the band below is cut (tuning; 0: no cut)")
	sealFoot := fs.Float64("seal-foot", -1, "override the least step of the lightness across a region's foot that puts it on the pane's frame, under which the body below the seal is cut (tuning; 0: no cut)")
	sealValley := fs.Float64("seal-valley", -1, "override the least depth of the probability's valley between a pane and the panel under it, where a region whose foot lies on plain paint is cut (tuning; 0: no cut)")
	paintBelow := fs.Float64("paint-below", -1, "override the least share of the car's paint in a region's rows under its seal at which they are cut (tuning; 0: no cut)")
	slantSeal := fs.Float64("slant-seal", -1, "override the steepest slope (rows per column) along which a region whose foot lies on plain paint is cut at its seal (tuning; 0: no cut)")
	sealLighter := fs.Float64("seal-lighter", -1, "override how much lighter than a region's part above its seal the part under it must be for less sure at all to cut it (tuning; 0: never)")
	paneSure := fs.Float64("pane-sure", -1, "override the smoothed probability under which a pixel is sure not to be glass when a region is taken out to its frame (tuning)")
	softSure := fs.Float64("soft-sure", -1, "override the smoothed probability from which a region's border, read a few cells out, runs over glass (tuning)")
	softEdge := fs.Float64("soft-edge", -1, "override the share of a region's border over glass above which the region is left as photographed, as stopped inside its pane (tuning; 0: none is)")
	reach := fs.Float64("reach", -1, "override how far glass grows, a share of the car's size (tuning; 0: no limit)")
	neverWeight := fs.Float64("never-weight", 1, "the deep model's training weight of never-glass candidates (tuning)")
	neverDensity := fs.Int("never-density", 1, "how many times more never-glass candidates than others it trains on (tuning)")
	nearReach := fs.Float64("never-near", 0, "with -never-weight and -never-density, only the never-glass within this share of the car's size of annotated glass (tuning; 0: all)")
	roofWeight := fs.Float64("roof-weight", 0, "train the deep model on the car over each annotated pane as not glass at this weight (tuning; 0: as the rest of the car)")
	roofMargin := fs.Int("roof-margin", 0, "with -roof-weight, how many glass-grid cells over a pane's top are left out (tuning; 0: the default)")
	neverPrior := fs.Bool("never-prior", false, "give back the log-odds shift of -never-weight and -never-density in the model's bias (tuning)")
	hand := fs.String("hand", "", "the hand-made features the deep model reads, by index, comma-separated (tuning; empty: the default ones)")
	scoreModel := fs.String("score", "", "only score this model file on the photos (no training), e.g. glass_probe.json on the dev set")
	foldModels := fs.String("fold-models", "", "keep the cross-validation's fold models in this folder (outside the repository): written after training, read instead of training when all are there (tuning the pane decisions on the same models)")
	only := fs.String("only", "", "with --folds, score only the photos whose names start with these (comma-separated); the folds are still those of all the photos (tuning)")
	seed := fs.Uint64("seed", 0, "override the deep model's first seed (tuning)")
	members := fs.Int("members", 0, "override how many networks, from seeds seed, seed+1, ..., the deep model averages (tuning)")
	augment := fs.Bool("augment", false, "train on a relit, mirrored copy of each photo too, segmented into -mask-cache (with -prepare too)")
	cmd := cliflag.Command{Name: "glasstrain", Synopsis: synopsis}
	if err := cmd.Parse(fs, os.Args[1:], os.Stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "glasstrain:", err)
		os.Exit(2)
	}
	// Required, not defaulted: a bare glasstrain is a question, and
	// trains for many minutes.
	if *images == "" {
		fmt.Fprintln(os.Stderr, "glasstrain:", cmd.Mistake("--images DIR[,DIR...] is needed, the folders of annotated photos"))
		os.Exit(2)
	}
	var handList []int
	for _, f := range strings.Split(*hand, ",") {
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < 0 || v >= pipeline.GlassFeatureCount {
			log.Fatalf("glasstrain: --hand: %q is not a feature index", f)
		}
		handList = append(handList, v)
	}
	glasstrain.TuneProbe(float32(*neverWeight), *neverDensity, float32(*nearReach), handList)
	glasstrain.TuneMembers(*seed, *members)
	glasstrain.ShiftProbePrior(*neverPrior)
	glasstrain.TuneRoof(float32(*roofWeight), *roofMargin)
	if *snap >= 0 {
		pipeline.SetGlassSnap(*snap, float32(*snapEps))
	}
	if *sealFoot >= 0 {
		pipeline.SetSealFoot(float32(*sealFoot))
	}
	if *sealValley >= 0 {
		pipeline.SetSealValley(float32(*sealValley))
	}
	if *paintBelow >= 0 {
		pipeline.SetPaintBelow(float32(*paintBelow))
	}
	if *slantSeal >= 0 {
		pipeline.SetSlantSeal(float32(*slantSeal))
	}
	if *sealLighter >= 0 {
		pipeline.SetSealLighter(float32(*sealLighter))
	}
	if *paneSure >= 0 {
		pipeline.SetPaneSure(float32(*paneSure))
	}
	if *softSure >= 0 {
		pipeline.SetPaneSoftSure(float32(*softSure))
	}
	if *softEdge >= 0 {
		pipeline.SetPaneSoftEdge(float32(*softEdge))
	}
	if *reach >= 0 {
		pipeline.SetGlassReach(float32(*reach))
	}
	if *grow >= 0 {
		pipeline.SetGlassGrow(float32(*grow))
	}
	if *confidence >= 0 {
		pipeline.SetGlassConfidence(float32(*confidence))
	}
	if *footDrop >= 0 {
		pipeline.SetFootDrop(float32(*footDrop))
	}
	o := options{foldModels: *foldModels, augment: *augment}
	for _, p := range strings.Split(*only, ",") {
		if p != "" {
			o.only = append(o.only, p)
		}
	}
	if err := run(*images, *out, *folds, *cache, *prepare, *baseline, *limit, *sheet, *scale, *from, *check, *scoreModel, o); err != nil {
		log.Fatal(err)
	}
}

// report prints the cross-validated scores of each photo (named names)
// and their summary, in the terms of issue 27's bars.
func report(what string, folds int, names []string, res []glasstrain.Result) {
	var scores []vision.GlassScore
	var panes pipeline.PaneScore
	var roof float64
	roofs, roofOver := 0, 0
	for i, r := range res {
		fmt.Printf("%-20s recall %.3f  false %.4f  torn %d/%d  roof %.4f\n", names[i], r.Score.Recall, r.Score.False, r.Panes.Torn, r.Panes.Panes, r.Roof)
		scores = append(scores, r.Score)
		panes = panes.Add(r.Panes)
		if r.Roof >= 0 {
			roof += r.Roof
			roofs++
			if r.Roof > 0.1 {
				roofOver++
			}
		}
	}
	sum := vision.SummarizeGlass(scores)
	fmt.Printf("%s, %d-fold cross-validation on %d photos: mean recall %.3f (median %.3f), found on %d of %d (%.1f%%), never-glass made glass mean %.2f%% max %.2f%%, torn panes %d of %d (%.1f%%)\n",
		what, folds, len(res), sum.MeanRecall, sum.MedianRecall, sum.Found, sum.Scored, 100*float64(sum.Found)/float64(max(sum.Scored, 1)),
		100*sum.MeanFalse, 100*sum.MaxFalse, panes.Torn, panes.Panes, 100*float64(panes.Torn)/float64(max(panes.Panes, 1)))
	fmt.Printf("glass over the annotated panes (a roof, a spoiler made see-through), in the panes' area: mean %.1f%% on %d photos, %d over 10%%\n", 100*roof/float64(max(roofs, 1)), roofs, roofOver)
}

// sheetWriter draws the glass of photos scored one after another onto
// sheets of six photos a file (a sheet a viewer shows without shrinking
// it away), named after path; an empty path draws nothing. Only the
// photos of the sheet being drawn are held.
type sheetWriter struct {
	path     string
	first    int
	examples []glasstrain.Example
	res      []glasstrain.Result
}

// add draws photo i (scored in order) and writes a sheet once it holds six.
func (s *sheetWriter) add(i int, ex glasstrain.Example, r glasstrain.Result) error {
	if s.path == "" {
		return nil
	}
	if len(s.examples) == 0 {
		s.first = i
	}
	s.examples, s.res = append(s.examples, ex), append(s.res, r)
	if len(s.examples) < 6 {
		return nil
	}
	return s.flush()
}

// flush writes the sheet of the photos held.
func (s *sheetWriter) flush() error {
	if s.path == "" || len(s.examples) == 0 {
		return nil
	}
	err := writeSheet(fmt.Sprintf("%s-%03d.png", strings.TrimSuffix(s.path, ".png"), s.first), s.examples, s.res)
	s.examples, s.res = nil, nil
	return err
}

// writeSheet writes one row per photo: the photo, its glass over magenta,
// and the errors (green glass on windows, blue windows missed, red glass on
// never-glass, white glass elsewhere), 256 pixels across each. It is for
// looking, not for the repository: the photos are licensed.
func writeSheet(path string, examples []glasstrain.Example, res []glasstrain.Result) error {
	const side, gap = 256, 4
	var height int
	for _, ex := range examples {
		height += ex.Photo.Rect.Dy()*side/ex.Photo.Rect.Dx() + gap
	}
	img := image.NewNRGBA(image.Rect(0, 0, 3*side+2*gap, height))
	top := 0
	for i, ex := range examples {
		W, H := ex.Photo.Rect.Dx(), ex.Photo.Rect.Dy()
		h := H * side / W
		for y := range h {
			for x := range side {
				sx, sy := x*W/side, y*H/h
				c := ex.Photo.NRGBAAt(sx, sy)
				c.A = 255
				img.SetNRGBA(x, top+y, c)
				in := func(m *image.Gray) bool { return m != nil && m.GrayAt(sx, sy).Y >= 128 }
				o, e := glasstrain.SheetPixel(c, res[i].Layer.GrayAt(sx, sy).Y, in(ex.Windows), in(ex.Never))
				img.SetNRGBA(side+gap+x, top+y, o)
				img.SetNRGBA(2*(side+gap)+x, top+y, e)
			}
		}
		top += h + gap
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// lazySegmenter loads the segmentation model the first time a photo is
// not in the mask cache: a run over cached photos does not hold it.
type lazySegmenter struct {
	seg *vision.Segmenter
}

func (l *lazySegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	if l.seg == nil {
		seg, err := vision.New(vision.DefaultConfig(vision.DefaultModelDir()))
		if err != nil {
			return nil, err
		}
		l.seg = seg
	}
	return l.seg.Segment(ctx, img)
}

// options are run's tuning settings: the folder the fold models are kept
// in, and the name prefixes of the photos to score (nil: all).
type options struct {
	foldModels string
	only       []string
	// augment trains on a relit, mirrored copy of each photo too
	// (augment.go); the copies are scored nowhere.
	augment bool
}

// picks reports whether photo name is one to score.
func (o options) picks(name string) bool {
	if len(o.only) == 0 {
		return true
	}
	for _, p := range o.only {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// loadFoldModels reads the fold models from dir; ok is false when any is
// missing.
func loadFoldModels(dir string, folds int) (models []pipeline.ProbeModel, ok bool, err error) {
	models = make([]pipeline.ProbeModel, folds)
	for f := range folds {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("fold-%d.json", f)))
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		if err := json.Unmarshal(data, &models[f]); err != nil {
			return nil, false, err
		}
	}
	return models, true, nil
}

// saveFoldModels writes the fold models into dir.
func saveFoldModels(dir string, models []pipeline.ProbeModel) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for f := range models {
		data, err := json.Marshal(&models[f])
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("fold-%d.json", f)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// The photos are read one at a time, used and dropped (a photo's cached
// activations are about 17 MB, and enlarged 4 times its photo and masks
// take 30 MB more): only the training rows, a sample of each photo's
// candidates, and the scores are kept for all of them.
func run(dir, out string, folds int, cache string, prepare, baseline bool, limit int, sheet string, scale float64, from, check int, scoreModel string, o options) error {
	var paths []string
	for _, d := range strings.Split(dir, ",") {
		p, err := filepath.Glob(filepath.Join(d, "*.jpg"))
		if err != nil {
			return err
		}
		slices.Sort(p)
		paths = append(paths, p...)
	}
	if limit > 0 && limit < len(paths) {
		paths = paths[:limit]
	}
	if prepare && from > 0 {
		paths = paths[min(from, len(paths)):]
	}
	if len(paths) == 0 {
		return fmt.Errorf("glasstrain: no photos in %s (the glass dev set lives in ../shared, outside the repository)", dir)
	}
	seg := &lazySegmenter{}
	defer func() {
		if seg.seg != nil {
			seg.seg.Close()
		}
	}()
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = filepath.Base(strings.TrimSuffix(p, ".jpg"))
	}
	// segment gives photo its mask, from the cache or segmented into it.
	// A cache of its own per photo: the in-memory one would keep every
	// photo's activations.
	segment := func(photo *image.NRGBA) (glasstrain.Example, error) {
		cs := &maskcache.Cache{Segmenter: seg, Dir: cache}
		mask, err := cs.Segment(context.Background(), photo)
		return glasstrain.Example{Photo: photo, Mask: mask}, err
	}
	// load reads photo i, its mask (from the cache, or segmented into it)
	// and its annotations.
	load := func(i int) (glasstrain.Example, error) {
		p := paths[i]
		base := strings.TrimSuffix(p, ".jpg")
		data, err := os.ReadFile(p)
		if err != nil {
			return glasstrain.Example{}, err
		}
		photo, err := codec.Decode(context.Background(), data, codec.Limits{MaxPixels: 100_000_000})
		if err != nil {
			return glasstrain.Example{}, fmt.Errorf("%s: %w", p, err)
		}
		ex, err := segment(photo)
		if err != nil {
			return glasstrain.Example{}, fmt.Errorf("%s: %w", p, err)
		}
		ex.Name = names[i]
		if prepare && !o.augment {
			return ex, nil
		}
		if ex.Windows, err = vision.ReadMask(base + ".windows.png"); err != nil {
			return glasstrain.Example{}, err
		}
		if ex.Never, err = vision.ReadMask(base + ".never.png"); err != nil {
			return glasstrain.Example{}, err
		}
		return ex, nil
	}
	progress := func(i int) {
		if i%20 == 0 {
			fmt.Fprintf(os.Stderr, "glasstrain: %d of %d photos\n", i, len(paths))
		}
	}
	if prepare {
		for i := range paths {
			progress(i)
			ex, err := load(i)
			if err != nil {
				return err
			}
			if o.augment {
				if _, err := augmented(ex, i, segment); err != nil {
					return err
				}
			}
		}
		return nil
	}
	// score runs each of the first n photos through the processor's glass
	// path with the model model(i), enlarged scale times when scale > 1,
	// and draws them on the sheet.
	score := func(n int, model func(i int) *pipeline.ProbeModel, scale float64, sheet string) ([]glasstrain.Result, error) {
		sw := &sheetWriter{path: sheet}
		res := make([]glasstrain.Result, n)
		for i := range n {
			if !o.picks(names[i]) {
				continue
			}
			progress(i)
			ex, err := load(i)
			if err != nil {
				return nil, err
			}
			if scale > 1 {
				ex = scaleExample(ex, scale)
			}
			res[i] = glasstrain.ScoreProbe(ex, model(i))
			if err := sw.add(i, ex, res[i]); err != nil {
				return nil, err
			}
			res[i].Layer = nil
		}
		return res, sw.flush()
	}
	enlarged := ""
	if scale > 1 {
		enlarged = fmt.Sprintf(", scored on the photos enlarged %g times", scale)
	}
	// picked keeps the scores (and names) of the photos scored.
	picked := func(res []glasstrain.Result) ([]string, []glasstrain.Result) {
		var n []string
		var r []glasstrain.Result
		for i := range res {
			if o.picks(names[i]) {
				n, r = append(n, names[i]), append(r, res[i])
			}
		}
		return n, r
	}
	if scoreModel != "" {
		data, err := os.ReadFile(scoreModel)
		if err != nil {
			return err
		}
		var m pipeline.ProbeModel
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		res, err := score(len(paths), func(int) *pipeline.ProbeModel { return &m }, scale, sheet)
		if err != nil {
			return err
		}
		n, r := picked(res)
		report("deep features of "+scoreModel+enlarged, 0, n, r)
		return nil
	}
	if folds > 1 && baseline {
		// The hand-made model's trainer takes every photo at once.
		examples := make([]glasstrain.Example, len(paths))
		for i := range paths {
			ex, err := load(i)
			if err != nil {
				return err
			}
			examples[i] = ex
		}
		report("hand-made features (glass_model.json's)", folds, names, glasstrain.CrossValidateGlass(examples, folds))
	}
	if folds > 1 && out == "" && o.foldModels != "" {
		models, ok, err := loadFoldModels(o.foldModels, folds)
		if err != nil {
			return err
		}
		if ok {
			res, err := score(len(paths), func(i int) *pipeline.ProbeModel { return &models[i%folds] }, scale, sheet)
			if err != nil {
				return err
			}
			n, r := picked(res)
			report("deep features (fold models of "+o.foldModels+")"+enlarged, folds, n, r)
			return nil
		}
	}
	rows := make([]glasstrain.ProbeRows, len(paths))
	var channels []int
	for i := range paths {
		progress(i)
		ex, err := load(i)
		if err != nil {
			return err
		}
		if channels == nil {
			channels = glasstrain.Channels(ex)
		}
		rows[i] = glasstrain.PrepareProbe(ex)
		if o.augment {
			ax, err := augmented(ex, i, segment)
			if err != nil {
				return err
			}
			rows[i] = rows[i].With(glasstrain.PrepareProbe(ax))
		}
	}
	if folds > 1 {
		models := glasstrain.TrainProbeFolds(rows, folds, channels)
		if o.foldModels != "" {
			if err := saveFoldModels(o.foldModels, models); err != nil {
				return err
			}
		}
		res, err := score(len(paths), func(i int) *pipeline.ProbeModel { return &models[i%folds] }, scale, sheet)
		if err != nil {
			return err
		}
		n, r := picked(res)
		report("deep features (glass_probe.json's)"+enlarged, folds, n, r)
	}
	if out == "" {
		return nil
	}
	model, err := glasstrain.TrainProbe(rows, channels)
	if err != nil {
		return err
	}
	if check > 0 {
		// The model trained on every photo, on the first check of them
		// (the glass dev set, which TestGlassDevSet holds to its bars).
		var m pipeline.ProbeModel
		if err := json.Unmarshal(model, &m); err != nil {
			return err
		}
		n := min(check, len(paths))
		res, err := score(n, func(int) *pipeline.ProbeModel { return &m }, 1, "")
		if err != nil {
			return err
		}
		report("deep features trained on every photo, on the first photos", 0, names[:n], res)
	}
	return os.WriteFile(out, append(model, '\n'), 0o644)
}

// scaleExample enlarges an example f times, as a larger photo of the same
// scene: the photo and the segmenter's matte bilinearly, its model-grid
// answer and the annotations by nearest neighbour. The activations cover
// the photo stretched to a square whatever its size, so they stay; the
// model would see almost the same input from the larger photo.
func scaleExample(ex glasstrain.Example, f float64) glasstrain.Example {
	size := func(r image.Rectangle) image.Rectangle {
		return image.Rect(0, 0, int(float64(r.Dx())*f+0.5), int(float64(r.Dy())*f+0.5))
	}
	photo := image.NewNRGBA(size(ex.Photo.Rect))
	draw.BiLinear.Scale(photo, photo.Rect, ex.Photo, ex.Photo.Rect, draw.Src, nil)
	gray := func(g *image.Gray, s draw.Scaler, r image.Rectangle) *image.Gray {
		if g == nil {
			return nil
		}
		out := image.NewGray(r)
		s.Scale(out, out.Rect, g, g.Rect, draw.Src, nil)
		return out
	}
	m := *ex.Mask
	m.Alpha = gray(ex.Mask.Alpha, draw.BiLinear, photo.Rect)
	if ex.Mask.Raw != nil {
		// Raw is on the working grid: the photo's own size up to 1024.
		ww, wh := photo.Rect.Dx(), photo.Rect.Dy()
		if long := max(ww, wh); long > 1024 {
			ww, wh = max(ww*1024/long, 1), max(wh*1024/long, 1)
		}
		m.Raw = gray(ex.Mask.Raw, draw.NearestNeighbor, image.Rect(0, 0, ww, wh))
	}
	m.Box = image.Rect(int(float64(m.Box.Min.X)*f), int(float64(m.Box.Min.Y)*f), int(float64(m.Box.Max.X)*f+0.999), int(float64(m.Box.Max.Y)*f+0.999)).Intersect(photo.Rect)
	return glasstrain.Example{Name: ex.Name, Photo: photo, Mask: &m,
		Windows: gray(ex.Windows, draw.NearestNeighbor, photo.Rect), Never: gray(ex.Never, draw.NearestNeighbor, photo.Rect)}
}
