package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// runGallery renders every predefined configuration and one configuration
// per processor on every photo of a folder (and its extras/ subfolder)
// into one contact sheet PNG per configuration, to look at.
func (m *Main) runGallery(ctx context.Context, args []string) error {
	var images, out, model, modelDir, maskCache, only string
	fs := m.newFlagSet("gallery")
	fs.String(&images, "images", "", "folders of car photos (JPEG, PNG, WebP), comma-separated; each one's extras/ subfolder too; required")
	fs.String(&out, "out", "gallery", "folder for the contact sheets, one PNG per configuration")
	fs.String(&only, "configs", "", "only these gallery configurations, comma-separated (default: all)")
	fs.String(&maskCache, "mask-cache", "", "folder to keep the photos' masks in between runs (clear it after changing the segmentation)")
	fs.String(&model, "model", vision.ModelISNet, "segmentation model: isnet or u2netp")
	fs.String(&modelDir, "model-dir", vision.DefaultModelDir(), "folder with the model files (make models)")
	fs.synopsis = "showroom gallery --images DIR[,DIR...] [--out gallery] [--configs A,B] [--mask-cache DIR]"
	if _, err := fs.Parse(args); err != nil {
		return err
	}
	// Required, not defaulted: a bare 'showroom gallery' is a question, and
	// renders every configuration on every photo for many minutes.
	if images == "" {
		return fs.usageError("gallery needs --images DIR[,DIR...], the folders of photos to render")
	}
	dirs := strings.Split(images, ",")
	sets := make([][]pipeline.GalleryPhoto, len(dirs))
	for i, dir := range dirs {
		var err error
		if sets[i], err = galleryPhotos(dir); err != nil {
			return err
		}
	}
	configs := pipeline.GalleryConfigurations()
	if only != "" {
		names := strings.Split(only, ",")
		configs = slices.DeleteFunc(configs, func(c pipeline.NamedConfig) bool { return !slices.Contains(names, c.Name) })
		if len(configs) == 0 {
			return fmt.Errorf("gallery: none of the configurations %s is in the gallery", only)
		}
	}
	seg, err := openSegmenter(model, modelDir)
	if err != nil {
		return err
	}
	defer seg.Close()
	engine, err := pipeline.NewEngine(pipeline.EngineConfig{
		Segmenter: &pipeline.CachingSegmenter{Segmenter: seg, Dir: maskCache},
		Content:   &pipeline.BuiltinContent{},
		MaxPixels: codec.DefaultMaxPixels,
	})
	if err != nil {
		return err
	}
	// One folder of sheets per photo folder: a sheet stays small enough to
	// look at, and the sets (studio shots, glass, 12 MP) are seen apart.
	for i, dir := range dirs {
		sub := out
		if len(dirs) > 1 {
			sub = filepath.Join(out, filepath.Base(filepath.Clean(dir)))
		}
		err := pipeline.WriteGallery(ctx, engine, sets[i], configs, sub, func(path string) {
			fmt.Fprintln(m.Stdout, path)
		})
		if err != nil {
			return err
		}
	}
	return nil
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
