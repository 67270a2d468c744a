// Command glasstrain trains the glass model on the glass dev set and
// writes it as JSON for the pipeline to embed; `make glass-model` runs it. It first reports the model's scores under
// cross-validation (each photo scored by a model that never saw it),
// which is what docs/glass-and-shadow.md quotes, then trains on every
// photo.
//
// Usage: go run ./internal/pipeline/glasstrain [-images DIR] [-out FILE] [-folds N] [-mask-cache DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

func main() {
	images := flag.String("images", "../../../shared/testdata/glass", "folders (comma-separated) of NAME.jpg with NAME.windows.png and NAME.never.png")
	out := flag.String("out", "glass_model.json", "where to write the model")
	folds := flag.Int("folds", 5, "cross-validation folds (0: none)")
	prepare := flag.Bool("prepare", false, "only segment the photos into -mask-cache")
	cache := flag.String("mask-cache", "", "folder to keep the segmenter's masks in between runs")
	flag.Parse()
	if err := run(*images, *out, *folds, *cache, *prepare); err != nil {
		log.Fatal(err)
	}
}

func run(dir, out string, folds int, cache string, prepare bool) error {
	var paths []string
	for _, d := range strings.Split(dir, ",") {
		p, err := filepath.Glob(filepath.Join(d, "*.jpg"))
		if err != nil {
			return err
		}
		slices.Sort(p)
		paths = append(paths, p...)
	}
	if len(paths) == 0 {
		return fmt.Errorf("glasstrain: no photos in %s (the glass dev set lives in ../shared, outside the repository)", dir)
	}
	seg, err := vision.New(vision.DefaultConfig(vision.DefaultModelDir()))
	if err != nil {
		return err
	}
	defer seg.Close()
	cs := &pipeline.CachingSegmenter{Segmenter: seg, Dir: cache}
	var examples []pipeline.GlassExample
	for i, p := range paths {
		if i%20 == 0 {
			fmt.Fprintf(os.Stderr, "glasstrain: %d of %d photos\n", i, len(paths))
		}
		base := strings.TrimSuffix(p, ".jpg")
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		photo, err := vision.Decode(context.Background(), data, vision.Limits{MaxPixels: 100_000_000})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		mask, err := cs.Segment(context.Background(), photo)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if prepare {
			continue
		}
		windows, err := vision.ReadMask(base + ".windows.png")
		if err != nil {
			return err
		}
		never, err := vision.ReadMask(base + ".never.png")
		if err != nil {
			return err
		}
		examples = append(examples, pipeline.GlassExample{Name: filepath.Base(base), Photo: photo, Mask: mask, Windows: windows, Never: never})
	}
	if prepare {
		return nil
	}
	if folds > 1 {
		scores := pipeline.CrossValidateGlass(examples, folds)
		for i, s := range scores {
			fmt.Printf("%-18s recall %.3f  false %.4f\n", examples[i].Name, s.Recall, s.False)
		}
		sum := vision.SummarizeGlass(scores)
		fmt.Printf("%d-fold cross-validation: mean recall %.3f (median %.3f), found %d of %d, mean false %.4f, max false %.4f\n",
			folds, sum.MeanRecall, sum.MedianRecall, sum.Found, sum.Scored, sum.MeanFalse, sum.MaxFalse)
	}
	model, err := pipeline.TrainGlassModel(examples)
	if err != nil {
		return err
	}
	return os.WriteFile(out, append(model, '\n'), 0o644)
}
