// Command gallery renders every predefined configuration and one
// configuration per processor on every photo of some folders (and their
// extras/ subfolders) into one contact sheet PNG per configuration, to
// look at after changing a processor: make gallery runs it. It is a tool
// apart from the service's binary, which does not link it.
//
// Usage: gallery --images DIR[,DIR...] [--out gallery] [--configs A,B] [--mask-cache DIR]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/showroom/showroom/internal/cliflag"
	"github.com/showroom/showroom/internal/gallery"
	"github.com/showroom/showroom/internal/maskcache"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

func main() { cliflag.Main("gallery", run) }

// synopsis is the command's usage line.
const synopsis = "gallery --images DIR[,DIR...] [--out gallery] [--configs A,B] [--mask-cache DIR]"

// run renders the sheets; progress (each sheet written) and the help go
// to stdout, usage and flag errors to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gallery", flag.ContinueOnError)
	images := fs.String("images", "", "folders of car photos (JPEG, PNG, WebP), comma-separated; each one's extras/ subfolder too; required")
	out := fs.String("out", "gallery", "folder for the contact sheets, one PNG per configuration")
	only := fs.String("configs", "", "only these gallery configurations, comma-separated (default: all)")
	maskCache := fs.String("mask-cache", "", "folder to keep the photos' masks in between runs (clear it after changing the segmentation)")
	model := fs.String("model", vision.ModelISNet, "segmentation model: isnet or u2netp")
	modelDir := fs.String("model-dir", vision.DefaultModelDir(), "folder with the model files (make models)")
	cmd := cliflag.Command{Name: "gallery", Synopsis: synopsis}
	if err := cmd.ParseTool(fs, args, stdout, stderr); err != nil {
		return err
	}
	// Required, not defaulted: a bare 'gallery' is a question, and
	// renders every configuration on every photo for many minutes.
	if *images == "" {
		return cmd.Refuse(stderr, "--images DIR[,DIR...] is needed, the folders of photos to render")
	}
	dirs := strings.Split(*images, ",")
	sets := make([][]gallery.Photo, len(dirs))
	for i, dir := range dirs {
		var err error
		if sets[i], err = galleryPhotos(dir); err != nil {
			return err
		}
	}
	configs := gallery.Configurations()
	if *only != "" {
		names := strings.Split(*only, ",")
		configs = slices.DeleteFunc(configs, func(c gallery.Config) bool { return !slices.Contains(names, c.Name) })
		if len(configs) == 0 {
			return fmt.Errorf("gallery: none of the configurations %s is in the gallery", *only)
		}
	}
	cfg := vision.DefaultConfig(*modelDir)
	cfg.Model = *model
	seg, err := vision.New(cfg)
	if err != nil {
		return err
	}
	defer seg.Close()
	engine, err := pipeline.NewEngine(pipeline.EngineConfig{
		Segmenter: &maskcache.Cache{Segmenter: seg, Dir: *maskCache},
		Content:   &pipeline.BuiltinContent{},
		MaxPixels: showroom.DefaultMaxPixels,
	})
	if err != nil {
		return err
	}
	// One folder of sheets per photo folder: a sheet stays small enough to
	// look at, and the sets (studio shots, glass, 12 MP) are seen apart.
	for i, dir := range dirs {
		sub := *out
		if len(dirs) > 1 {
			sub = filepath.Join(*out, filepath.Base(filepath.Clean(dir)))
		}
		err := gallery.Write(ctx, engine, sets[i], configs, sub, func(path string) {
			fmt.Fprintln(stdout, path)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// galleryPhotos reads the photos of dir and dir/extras, sorted by name;
// annotation files (*.mask.png, *.windows.png, *.wheels.png) are skipped.
func galleryPhotos(dir string) ([]gallery.Photo, error) {
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
	photos := make([]gallery.Photo, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, p)
		photos = append(photos, gallery.Photo{Name: rel, Bytes: b})
	}
	return photos, nil
}
