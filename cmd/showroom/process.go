package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
	"golang.org/x/term"
)

// processOptions are the flags of `showroom process`.
type processOptions struct {
	config   string
	out      string
	format   string
	quality  int
	jobs     int
	force    bool
	server   string
	username string
	system   string
	dataDir  string
	blobURL  string
	db       databaseFlags
	company  string
	model    string
	modelDir string
}

// photoRunner runs the configuration on one photo and returns the result's
// bytes and media type.
type photoRunner func(ctx context.Context, photo []byte) ([]byte, string, error)

var extensions = map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp"}

func (m *Main) runProcess(ctx context.Context, args []string) error {
	var o processOptions
	fs := m.newFlagSet("process")
	fs.String(&o.config, "config", "", "configuration to run (required): a predefined one, or the company's own")
	fs.String(&o.out, "out", "processed", "directory for the results")
	fs.String(&o.format, "format", "", "result format: jpeg, png or webp (default: JPEG, PNG when the result is transparent)")
	fs.Int(&o.quality, "quality", 0, "JPEG/WebP quality 1-100 (default 90)")
	fs.Int(&o.jobs, "jobs", 1, "photos processed at once")
	fs.Bool(&o.force, "force", false, "process photos whose result exists already")
	fs.String(&o.server, "server", "", "base URL of a running Showroom; without it the photos are processed here")
	fs.String(&o.username, "username", "", "with --server: the user to log in as (password from SHOWROOM_PASSWORD or stdin)")
	fs.String(&o.system, "system", "showroom", "with --server: the system to log in to")
	fs.String(&o.dataDir, "data-dir", "./data", "without --server: data directory, for a company's own configurations and content")
	fs.String(&o.blobURL, "blob-url", "", "without --server: "+blobURLUsage)
	o.db.registerURL(fs)
	fs.String(&o.company, "company", "", "without --server: the company whose configurations and content to use")
	fs.String(&o.model, "model", "isnet", "without --server: segmentation model, isnet or u2netp")
	fs.String(&o.modelDir, "model-dir", defaultModelDir(), "without --server: where the model files are")
	fs.Usage = func() {
		fmt.Fprintln(m.Stderr, "Usage: showroom process --config NAME [--out DIR] [--format jpeg|png|webp] [--jobs N] [--force] FILES...")
		fs.PrintDefaults()
	}
	files, err := fs.Parse(args)
	if err != nil {
		return err
	}
	switch {
	case o.config == "":
		return usageError("process needs --config NAME")
	case len(files) == 0:
		return usageError("process needs photos: FILES... or directories")
	case o.jobs < 1 || o.jobs > 64:
		return usageError("--jobs must be from 1 to 64")
	case o.format != "" && o.format != "jpeg" && o.format != "png" && o.format != "webp":
		return usageError("--format must be jpeg, png or webp")
	case o.quality != 0 && (o.quality < 1 || o.quality > 100):
		return usageError("--quality must be from 1 to 100")
	}
	photos, err := expandPhotos(files)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	var run photoRunner
	if o.server != "" {
		run, err = m.remoteRunner(ctx, o)
	} else {
		var closeFn func()
		run, closeFn, err = m.localRunner(ctx, o)
		if closeFn != nil {
			defer closeFn()
		}
	}
	if err != nil {
		return err
	}
	return m.batch(ctx, o, photos, run)
}

// expandPhotos lists the photos named: files as given, directories' JPEG,
// PNG and WebP files in name order.
func expandPhotos(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			switch strings.ToLower(filepath.Ext(e.Name())) {
			case ".jpg", ".jpeg", ".png", ".webp":
				if !e.IsDir() {
					out = append(out, filepath.Join(a, e.Name()))
				}
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// existingResult returns the result file of photo in out, if there is one:
// in format, or in any format when format is "" (automatic).
func existingResult(out, photo, format string) string {
	base := strings.TrimSuffix(filepath.Base(photo), filepath.Ext(photo))
	exts := []string{".jpg", ".png", ".webp"}
	if format != "" {
		exts = []string{extensions["image/"+format]}
	}
	for _, ext := range exts {
		p := filepath.Join(out, base+ext)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

type batchResult struct {
	photo string
	err   error
}

// batch runs photos through run with o.jobs at a time, showing progress,
// and prints a summary. It fails when any photo failed.
func (m *Main) batch(ctx context.Context, o processOptions, photos []string, run photoRunner) error {
	start := time.Now()
	var todo []string
	skipped := 0
	for _, p := range photos {
		if !o.force && existingResult(o.out, p, o.format) != "" {
			skipped++
			continue
		}
		todo = append(todo, p)
	}
	progress := m.progress(len(todo))
	work := make(chan string)
	results := make(chan batchResult)
	var wg sync.WaitGroup
	for range min(o.jobs, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				results <- batchResult{p, processOne(ctx, o, p, run)}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, p := range todo {
			select {
			case work <- p:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	var failed []batchResult
	done := 0
	for r := range results {
		if r.err != nil {
			failed = append(failed, r)
		} else {
			done++
		}
		progress(r)
	}
	fmt.Fprintf(m.Stdout, "\n%d done, %d skipped (result exists; --force redoes them), %d failed, in %s\n",
		done, skipped, len(failed), time.Since(start).Round(100*time.Millisecond))
	for _, f := range failed {
		fmt.Fprintf(m.Stdout, "  failed: %s: %v\n", f.photo, message(f.err))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d photos failed", len(failed), len(todo))
	}
	return nil
}

func processOne(ctx context.Context, o processOptions, photo string, run photoRunner) error {
	data, err := os.ReadFile(photo)
	if err != nil {
		return err
	}
	img, mediaType, err := run(ctx, data)
	if err != nil {
		return err
	}
	ext, ok := extensions[mediaType]
	if !ok {
		return fmt.Errorf("unexpected result type %q", mediaType)
	}
	base := strings.TrimSuffix(filepath.Base(photo), filepath.Ext(photo))
	dst := filepath.Join(o.out, base+ext)
	tmp := dst + ".part"
	if err := os.WriteFile(tmp, img, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

// progress returns a function called once per finished photo: a bar with
// rate and ETA on a terminal, one plain line per photo otherwise.
func (m *Main) progress(total int) func(batchResult) {
	if f, ok := m.Stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && total > 0 {
		bar := progressbar.NewOptions(total,
			progressbar.OptionSetWriter(f),
			progressbar.OptionSetDescription("processing"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("photos"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionFullWidth(),
		)
		return func(batchResult) { bar.Add(1) }
	}
	n := 0
	return func(r batchResult) {
		n++
		status := "ok"
		if r.err != nil {
			status = "failed: " + message(r.err)
		}
		fmt.Fprintf(m.Stdout, "[%d/%d] %s %s\n", n, total, r.photo, status)
	}
}

// remoteRunner logs in to a running Showroom and sends each photo to it.
func (m *Main) remoteRunner(ctx context.Context, o processOptions) (photoRunner, error) {
	if o.username == "" {
		return nil, usageError("--server needs --username")
	}
	password := m.Getenv("SHOWROOM_PASSWORD")
	if password == "" {
		var err error
		if password, err = m.readPassword(); err != nil {
			return nil, err
		}
	}
	c := &remote{base: strings.TrimSuffix(o.server, "/"), http: &http.Client{Timeout: 10 * time.Minute}}
	if err := c.login(ctx, o.username, password, o.system); err != nil {
		return nil, err
	}
	q := url.Values{}
	if o.format != "" {
		q.Set("format", o.format)
	}
	if o.quality != 0 {
		q.Set("quality", strconv.Itoa(o.quality))
	}
	path := "/v1/process/single/" + url.PathEscape(o.config)
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	return func(ctx context.Context, photo []byte) ([]byte, string, error) {
		return c.process(ctx, path, photo)
	}, nil
}

// remote is a client of a running Showroom.
type remote struct {
	base string
	http *http.Client

	mu      sync.Mutex
	access  string
	refresh string
}

// apiError is an error answer of the service.
type apiError struct {
	Status  int    `json:"status"`
	Code    string `json:"errorCode"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return fmt.Sprintf("%s (%d): %s", e.Code, e.Status, e.Message) }

func readAPIError(res *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	e := &apiError{Status: res.StatusCode}
	if json.Unmarshal(b, e) != nil || e.Code == "" {
		e.Code, e.Message = "HTTP_"+strconv.Itoa(res.StatusCode), strings.TrimSpace(string(b))
	}
	return e
}

func (c *remote) tokenCall(ctx context.Context, path string, body any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/auth"+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return readAPIError(res)
	}
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil {
		return err
	}
	c.mu.Lock()
	c.access, c.refresh = tok.AccessToken, tok.RefreshToken
	c.mu.Unlock()
	return nil
}

func (c *remote) login(ctx context.Context, username, password, system string) error {
	err := c.tokenCall(ctx, "/login", map[string]string{"username": username, "password": password, "system": system})
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	return nil
}

// process sends one photo; it refreshes an expired token once and waits as
// told when the service is busy (429, 503), a few times.
func (c *remote) process(ctx context.Context, path string, photo []byte) ([]byte, string, error) {
	refreshed := false
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		token := c.access
		c.mu.Unlock()
		req, err := http.NewRequestWithContext(ctx, "POST", c.base+path, bytes.NewReader(photo))
		if err != nil {
			return nil, "", err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/octet-stream")
		res, err := c.http.Do(req)
		if err != nil {
			return nil, "", err
		}
		if res.StatusCode == http.StatusOK {
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			return b, res.Header.Get("Content-Type"), err
		}
		apiErr := readAPIError(res)
		res.Body.Close()
		var e *apiError
		errors.As(apiErr, &e)
		switch {
		case e.Code == "TOKEN_EXPIRED" && !refreshed:
			refreshed = true
			c.mu.Lock()
			rt := c.refresh
			c.mu.Unlock()
			if err := c.tokenCall(ctx, "/refresh", map[string]string{"refresh_token": rt}); err != nil {
				return nil, "", err
			}
			continue
		case (e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable) && attempt < 5:
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(max(1, wait)) * time.Second):
			case <-ctx.Done():
				return nil, "", ctx.Err()
			}
			continue
		}
		return nil, "", apiErr
	}
}

// localRunner runs the pipeline in this process on the data directory's
// library: a predefined configuration, or with --company one of that
// company's own, with its content.
func (m *Main) localRunner(ctx context.Context, o processOptions) (photoRunner, func(), error) {
	if _, ok := pipeline.PredefinedConfiguration(o.config); !ok && o.company == "" {
		return nil, nil, fmt.Errorf("%q is not a predefined configuration; to run a company's own, give --company (and --data-dir)", o.config)
	}
	db, err := o.db.open(ctx, o.dataDir)
	if err != nil {
		return nil, nil, err
	}
	closers := []func(){func() { db.Close() }}
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	blobs, err := openBlobs(ctx, o.blobURL, o.dataDir)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	lib, err := library.New(library.DefaultConfig(), library.Deps{Companies: db, Content: db, Configurations: db, Blobs: blobs})
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	config, err := lib.Configuration(ctx, &showroom.Principal{Company: o.company}, o.config)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	e := engineFlags{model: o.model, modelDir: o.modelDir, ortThreads: 2, maxPixels: 60_000_000, maxDecodeBytes: vision.DefaultMaxBytes}
	engine, closeEngine, err := newEngine(e, lib, nil)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	closers = append(closers, closeEngine)
	return func(ctx context.Context, photo []byte) ([]byte, string, error) {
		res, err := engine.Run(ctx, pipeline.Request{
			Company: o.company, Processors: config.Processors, Photo: photo, Format: o.format, Quality: o.quality,
		})
		if err != nil {
			return nil, "", err
		}
		return res.Image, res.MediaType, nil
	}, closeAll, nil
}
