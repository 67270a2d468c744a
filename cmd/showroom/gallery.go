package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// runGallery renders every predefined configuration and one configuration
// per processor on every photo of a folder (and its extras/ subfolder)
// into one contact sheet PNG per configuration, to look at.
func (m *Main) runGallery(ctx context.Context, args []string) error {
	var images, out, model, modelDir string
	fs := m.newFlagSet("gallery")
	fs.String(&images, "images", "../shared/testdata/cars", "folder of car photos (JPEG, PNG, WebP); its extras/ subfolder too")
	fs.String(&out, "out", "gallery", "folder for the contact sheets, one PNG per configuration")
	fs.String(&model, "model", vision.ModelISNet, "segmentation model: isnet or u2netp")
	fs.String(&modelDir, "model-dir", vision.DefaultModelDir(), "folder with the model files (make models)")
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	photos, err := galleryPhotos(images)
	if err != nil {
		return err
	}
	cfg := vision.DefaultConfig(modelDir)
	cfg.Model = model
	seg, err := vision.New(cfg)
	if err != nil {
		return err
	}
	defer seg.Close()
	engine, err := pipeline.NewEngine(pipeline.EngineConfig{
		Segmenter: &pipeline.CachingSegmenter{Segmenter: seg},
		Content:   &pipeline.BuiltinContent{},
		MaxPixels: 60_000_000,
	})
	if err != nil {
		return err
	}
	return pipeline.WriteGallery(ctx, engine, photos, pipeline.GalleryConfigurations(), out, func(path string) {
		fmt.Fprintln(m.Stdout, path)
	})
}

// galleryPhotos reads the photos of dir and dir/extras, sorted by name;
// annotation files (*.mask.png, *.windows.png, *.wheels.png) are skipped.
func galleryPhotos(dir string) ([]pipeline.GalleryPhoto, error) {
	var paths []string
	for _, d := range []string{dir, filepath.Join(dir, "extras")} {
		entries, err := os.ReadDir(d)
		if err != nil {
			if d != dir && os.IsNotExist(err) {
				continue
			}
			return nil, fmt.Errorf("gallery: %w", err)
		}
		for _, e := range entries {
			n := strings.ToLower(e.Name())
			if e.IsDir() || strings.Count(n, ".") > 1 {
				continue
			}
			if ext := filepath.Ext(n); ext == ".jpg" || ext == ".jpeg" || ext == ".png" || ext == ".webp" {
				paths = append(paths, filepath.Join(d, e.Name()))
			}
		}
	}
	slices.Sort(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("gallery: no photos in %s", dir)
	}
	photos := make([]pipeline.GalleryPhoto, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, p)
		photos = append(photos, pipeline.GalleryPhoto{Name: rel, Bytes: b})
	}
	return photos, nil
}
