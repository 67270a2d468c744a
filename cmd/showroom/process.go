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
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/catalog"
	"github.com/showroom/showroom/internal/codec"
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

// photoRunner runs the configuration on one photo and returns its result.
type photoRunner func(ctx context.Context, photo []byte) (photoResult, error)

// photoResult is a processed photo: the image, its media type, and the
// codes of the result's warnings (what a person should check).
type photoResult struct {
	image     []byte
	mediaType string
	warnings  []string
}

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
	fs.synopsis = "showroom process --config NAME [--out DIR] [--format jpeg|png|webp] [--jobs N] [--force] FILES|DIRS..."
	fs.about = "A folder's JPEG, PNG and WebP photos are taken; masks (NAME.mask.png and the like), hidden files and\nother files are skipped. The result of PHOTO.jpg is OUT/PHOTO.CONFIG.jpg (.png, .webp)."
	files, err := fs.Parse(args)
	if err != nil {
		return err
	}
	switch {
	case o.config == "":
		return usageError("process needs --config NAME")
	case !configNameRE.MatchString(o.config):
		// It becomes part of the results' file names.
		return usageError(fmt.Sprintf("--config: %q is not a configuration name", o.config))
	case len(files) == 0:
		return usageError("process needs photos: FILES... or directories")
	case o.jobs < 1 || o.jobs > 64:
		return usageError("--jobs must be from 1 to 64")
	case o.format != "" && o.format != "jpeg" && o.format != "png" && o.format != "webp":
		return usageError("--format must be jpeg, png or webp")
	case o.quality != 0 && (o.quality < 1 || o.quality > 100):
		return usageError("--quality must be from 1 to 100")
	}
	photos, skipped, err := expandPhotos(files, o.config)
	if err != nil {
		return err
	}
	// The runner finds the configuration (or fails) before the results'
	// folder is made: a typo in --config leaves no empty ./processed.
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
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	return m.batch(ctx, o, photos, skipped, run)
}

// configNameRE is what a configuration's name may be: a company's are
// letters and digits, the predefined ones have underscores.
var configNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// maskSuffixes end the names of the files that sit beside photos without
// being photos: the hand-made masks and annotations of the evaluation sets
// (NAME.mask.png, NAME.windows.png, ...) and what cmd/maskeval writes.
var maskSuffixes = []string{".mask.png", ".windows.png", ".never.png", ".wheels.png", ".pred.png", ".glass.png"}

// photoExts are the extensions of the photos taken from a folder.
var photoExts = []string{".jpg", ".jpeg", ".png", ".webp"}

// skipCounts counts, by reason, the files a run did not take as photos.
type skipCounts struct {
	masks, hidden, notPhotos, results int
}

func (s skipCounts) total() int { return s.masks + s.hidden + s.notPhotos + s.results }

// String is the summary's line: "skipped 3: 2 masks, 1 hidden".
func (s skipCounts) String() string {
	var parts []string
	for _, c := range []struct {
		n           int
		one, plural string
	}{
		{s.masks, "mask", "masks"},
		{s.hidden, "hidden", "hidden"},
		{s.notPhotos, "not a photo", "not photos"},
		{s.results, "result of this configuration", "results of this configuration"},
	} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.plural))
		}
	}
	return fmt.Sprintf("skipped %d: %s", s.total(), strings.Join(parts, ", "))
}

// expandPhotos lists the photos named, in name order: files as given, and
// from a folder its JPEG, PNG and WebP files, by extension and by their
// bytes. Hidden files, masks and the results of config (a folder that is
// also --out) are skipped wherever they come from; a folder's other files
// are skipped too, while a file named on its own is taken, and fails with
// its reason if it is not a photo.
func expandPhotos(args []string, config string) ([]string, skipCounts, error) {
	var out []string
	var skipped skipCounts
	// take counts name out or lets it in; listed says it came from a folder.
	take := func(path string, listed bool) error {
		name := strings.ToLower(filepath.Base(path))
		switch {
		case strings.HasPrefix(name, "."):
			skipped.hidden++
		case slices.ContainsFunc(maskSuffixes, func(s string) bool { return strings.HasSuffix(name, s) }):
			skipped.masks++
		case isResult(name, config):
			skipped.results++
		case !listed:
			out = append(out, path)
		default:
			ok, err := isPhoto(path)
			if err != nil {
				return err
			}
			if ok {
				out = append(out, path)
			} else {
				skipped.notPhotos++
			}
		}
		return nil
	}
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, skipped, err
		}
		if !st.IsDir() {
			if err := take(a, false); err != nil {
				return nil, skipped, err
			}
			continue
		}
		entries, err := os.ReadDir(a)
		if err != nil {
			return nil, skipped, err
		}
		for _, e := range entries {
			if e.IsDir() {
				continue // folders inside are not searched
			}
			if err := take(filepath.Join(a, e.Name()), true); err != nil {
				return nil, skipped, err
			}
		}
	}
	sort.Strings(out)
	// Two photos with one result name would overwrite each other's result.
	seen := map[string]string{}
	for _, p := range out {
		base := strings.ToLower(photoBase(p))
		if other, ok := seen[base]; ok {
			return nil, skipped, usageError(fmt.Sprintf("%s and %s would have the same result file; process them in separate runs", other, p))
		}
		seen[base] = p
	}
	return out, skipped, nil
}

// isResult says whether the (lower-case) name is a result of config:
// PHOTO.CONFIG.jpg, .png or .webp.
func isResult(name, config string) bool {
	ext := filepath.Ext(name)
	if !slices.Contains(resultExts, ext) {
		return false
	}
	return strings.HasSuffix(strings.TrimSuffix(name, ext), "."+strings.ToLower(config))
}

// isPhoto says whether the file at path is a JPEG, PNG or WebP photo: by
// its extension, then by its first bytes.
func isPhoto(path string) (bool, error) {
	if !slices.Contains(photoExts, strings.ToLower(filepath.Ext(path))) {
		return false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, 16)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return false, err
	}
	_, ok := codec.Sniff(head[:n])
	return ok, nil
}

// resultExts are the extensions a result may have.
var resultExts = func() (exts []string) {
	for _, f := range codec.Formats() {
		exts = append(exts, f.Extension())
	}
	return exts
}()

// photoBase is the photo's file name without its extension.
func photoBase(photo string) string {
	return strings.TrimSuffix(filepath.Base(photo), filepath.Ext(photo))
}

// resultPath is where the result of photo through config goes: the
// configuration is in the name, so that a run with another one does not
// take this one's results for its own.
func resultPath(out, photo, config, ext string) string {
	return filepath.Join(out, photoBase(photo)+"."+config+ext)
}

// existingResult returns the result file of photo through config in out,
// if there is one: in format, or in any format when format is ""
// (automatic).
func existingResult(out, photo, config, format string) string {
	exts := resultExts
	if format != "" {
		exts = []string{codec.Format(format).Extension()}
	}
	for _, ext := range exts {
		p := resultPath(out, photo, config, ext)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

type batchResult struct {
	photo    string
	warnings []string // codes
	err      error
}

// batch runs photos through run with o.jobs at a time, showing progress,
// and prints a summary. It fails when any photo failed.
func (m *Main) batch(ctx context.Context, o processOptions, photos []string, skipped skipCounts, run photoRunner) error {
	start := time.Now()
	var todo []string
	done := 0
	for _, p := range photos {
		if !o.force && existingResult(o.out, p, o.config, o.format) != "" {
			done++
			continue
		}
		todo = append(todo, p)
	}
	progress := m.newProgress(len(todo))
	work := make(chan string)
	results := make(chan batchResult)
	var wg sync.WaitGroup
	for range min(o.jobs, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				progress.started(time.Now())
				warnings, err := processOne(ctx, o, p, run)
				results <- batchResult{p, warnings, err}
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

	var failed, warned []batchResult
	ok := 0
	for r := range results {
		if r.err != nil {
			failed = append(failed, r)
		} else {
			ok++
		}
		if len(r.warnings) > 0 {
			warned = append(warned, r)
		}
		progress.finished(r, time.Now())
	}
	fmt.Fprintf(m.Stdout, "\n%d done, %d already done (result exists; --force redoes them), %d failed, in %s\n",
		ok, done, len(failed), time.Since(start).Round(100*time.Millisecond))
	if skipped.total() > 0 {
		fmt.Fprintln(m.Stdout, skipped)
	}
	for _, f := range failed {
		fmt.Fprintf(m.Stdout, "  failed: %s: %v\n", f.photo, message(f.err))
	}
	for _, w := range warned {
		fmt.Fprintf(m.Stdout, "  check: %s: %s\n", w.photo, strings.Join(w.warnings, ", "))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if len(failed) > 0 {
		return fmt.Errorf("%d of %d photos failed", len(failed), len(todo))
	}
	return nil
}

// processOne runs photo and writes its result, returning the result's
// warning codes.
func processOne(ctx context.Context, o processOptions, photo string, run photoRunner) ([]string, error) {
	data, err := os.ReadFile(photo)
	if err != nil {
		return nil, err
	}
	res, err := run(ctx, data)
	if err != nil {
		return nil, err
	}
	f, ok := codec.FormatOf(res.mediaType)
	ext := f.Extension()
	if !ok {
		return nil, fmt.Errorf("unexpected result type %q", res.mediaType)
	}
	dst := resultPath(o.out, photo, o.config, ext)
	tmp := dst + ".part"
	if err := os.WriteFile(tmp, res.image, 0o644); err != nil {
		return nil, err
	}
	return res.warnings, os.Rename(tmp, dst)
}

// progress reports finished photos: a line redrawn in place on a terminal,
// one line per photo otherwise. Its rate counts finished photos over the
// wall time since the first photo started, so it is the batch's own pace,
// and is left out until a second has passed: a photo that fails at once
// would make a rate of thousands a second.
type progress struct {
	m        *Main
	total    int
	terminal *os.File // nil: not a terminal

	mu       sync.Mutex
	first    time.Time
	finishes int
}

func (m *Main) newProgress(total int) *progress {
	p := &progress{m: m, total: total}
	if f, ok := m.Stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && total > 0 {
		p.terminal = f
		fmt.Fprintf(f, "processing 0/%d", total)
	}
	return p
}

// started notes that a photo started at t.
func (p *progress) started(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.first.IsZero() {
		p.first = t
	}
}

// finished reports r, finished at t.
func (p *progress) finished(r batchResult, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.finishes++
	pace := rate(p.finishes, p.total, t.Sub(p.first))
	if p.terminal != nil {
		// \r and erase-to-end redraw the line in place.
		fmt.Fprintf(p.terminal, "\r\x1b[Kprocessing %d/%d%s", p.finishes, p.total, prefixed(", ", pace))
		return
	}
	status := "ok"
	if r.err != nil {
		status = "failed: " + message(r.err)
	} else if len(r.warnings) > 0 {
		status += " (check: " + strings.Join(r.warnings, ", ") + ")"
	}
	fmt.Fprintf(p.m.Stdout, "[%d/%d] %s %s%s\n", p.finishes, p.total, r.photo, status, prefixed(", ", pace))
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// minRateWindow is the least wall time a rate is given over.
const minRateWindow = time.Second

// rate formats the pace of n of total photos finished in elapsed: photos
// a second from one a second up, seconds a photo below, and the time left
// at that pace; "" while elapsed is under minRateWindow.
func rate(n, total int, elapsed time.Duration) string {
	if n == 0 || elapsed < minRateWindow {
		return ""
	}
	perSecond := float64(n) / elapsed.Seconds()
	var s string
	switch {
	case perSecond >= 10:
		s = fmt.Sprintf("%.0f photos/s", perSecond)
	case perSecond >= 1:
		s = fmt.Sprintf("%.1f photos/s", perSecond)
	default:
		s = fmt.Sprintf("%.1f s/photo", 1/perSecond)
	}
	if left := total - n; left > 0 {
		eta := time.Duration(float64(left) / perSecond * float64(time.Second))
		s += fmt.Sprintf(", about %s left", eta.Round(time.Second))
	}
	return s
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
	if err := c.configurationExists(ctx, o.config); err != nil {
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
	return func(ctx context.Context, photo []byte) (photoResult, error) {
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

// configurationExists asks the service for the configuration: nil when the
// company has it (its own or a predefined one), else the service's error
// (CONFIGURATION_NOT_FOUND), before any photo is sent.
func (c *remote) configurationExists(ctx context.Context, name string) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/v1/configuration/"+url.PathEscape(name), nil)
	if err != nil {
		return err
	}
	c.mu.Lock()
	req.Header.Set("Authorization", "Bearer "+c.access)
	c.mu.Unlock()
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return readAPIError(res)
	}
	io.Copy(io.Discard, res.Body)
	return nil
}

// process sends one photo; it refreshes an expired token once and waits as
// told when the service is busy (429, 503), a few times.
func (c *remote) process(ctx context.Context, path string, photo []byte) (photoResult, error) {
	refreshed := false
	for attempt := 0; ; attempt++ {
		c.mu.Lock()
		token := c.access
		c.mu.Unlock()
		req, err := http.NewRequestWithContext(ctx, "POST", c.base+path, bytes.NewReader(photo))
		if err != nil {
			return photoResult{}, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/octet-stream")
		res, err := c.http.Do(req)
		if err != nil {
			return photoResult{}, err
		}
		if res.StatusCode == http.StatusOK {
			b, err := io.ReadAll(res.Body)
			res.Body.Close()
			var warnings []string
			if h := res.Header.Get("Showroom-Warnings"); h != "" {
				warnings = strings.Split(h, ",")
			}
			return photoResult{b, res.Header.Get("Content-Type"), warnings}, err
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
				return photoResult{}, err
			}
			continue
		case (e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable) && attempt < 5:
			wait, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			select {
			case <-time.After(time.Duration(max(1, wait)) * time.Second):
			case <-ctx.Done():
				return photoResult{}, ctx.Err()
			}
			continue
		}
		return photoResult{}, apiErr
	}
}

// localRunner runs the pipeline in this process: a predefined
// configuration with its built-in content, or with --company one of that
// company's own, from the data directory's library, with its content.
func (m *Main) localRunner(ctx context.Context, o processOptions) (photoRunner, func(), error) {
	var closers []func()
	closeAll := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	var processors json.RawMessage
	var content pipeline.ContentLoader
	// company is --company's, found once: the library reads it from each
	// run's context.
	var company *showroom.Company
	if o.company == "" {
		// No data directory is needed, nor made: a predefined
		// configuration's content is built in.
		predefined, ok := catalog.PredefinedConfiguration(o.config)
		if !ok {
			return nil, nil, fmt.Errorf("%q is not a predefined configuration; to run a company's own, give --company (and --data-dir)", o.config)
		}
		processors, content = predefined.Processors, &pipeline.BuiltinContent{}
	} else {
		lib, co, closeLib, err := openLocalLibrary(ctx, o)
		if err != nil {
			return nil, nil, err
		}
		closers = append(closers, closeLib)
		company = co
		config, err := lib.Configuration(showroom.NewContextWithCompany(ctx, company), o.config)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		processors, content = config.Processors, lib
	}
	e := engineFlags{model: o.model, modelDir: o.modelDir, ortThreads: 2, ortKeep: vision.DefaultRecycleKeep >> 20,
		maxPixels: showroom.DefaultMaxPixels, maxDecodeBytes: showroom.DefaultMaxBytes}
	// Loading IS-Net takes seconds with nothing else to show.
	fmt.Fprintf(m.Stderr, "loading the model (%s)…\n", o.model)
	loading := time.Now()
	engine, closeEngine, err := newEngine(e, content, nil)
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	fmt.Fprintf(m.Stderr, "model loaded in %s\n", time.Since(loading).Round(100*time.Millisecond))
	closers = append(closers, closeEngine)
	return func(ctx context.Context, photo []byte) (photoResult, error) {
		if company != nil {
			ctx = showroom.NewContextWithCompany(ctx, company)
		}
		res, err := engine.Run(ctx, pipeline.Request{
			Processors: processors, Photo: photo, Format: o.format, Quality: o.quality,
		})
		if err != nil {
			return photoResult{}, err
		}
		var warnings []string
		for _, w := range res.Warnings {
			warnings = append(warnings, w.Code)
		}
		return photoResult{res.Image, res.MediaType, warnings}, nil
	}, closeAll, nil
}

// openLocalLibrary opens the data directory's database and blobs (--data-dir,
// --database, --blob-url) and the library over them, finds --company, and
// returns what closes them.
func openLocalLibrary(ctx context.Context, o processOptions) (*library.Service, *showroom.Company, func(), error) {
	// Only read from: a data directory without a database has no company,
	// and a mistyped --data-dir leaves no empty database behind.
	if o.db.url == "" {
		if _, err := os.Stat(sqlitePath(o.dataDir)); errors.Is(err, os.ErrNotExist) {
			return nil, nil, nil, fmt.Errorf("--company: %s holds no Showroom database; give --data-dir, the folder 'showroom serve' or 'showroom admin' used", o.dataDir)
		}
	}
	db, err := o.db.open(ctx, o.dataDir)
	if err != nil {
		return nil, nil, nil, err
	}
	blobs, err := openBlobs(ctx, o.blobURL, o.dataDir)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	lib, err := library.New(library.DefaultConfig(), library.Deps{Content: db, Configurations: db, Blobs: blobs, Images: pipeline.ContentImages{}, Art: builtinart.Art{}})
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	company, err := db.FindCompany(ctx, o.company)
	if err != nil {
		db.Close()
		if showroom.ErrorCode(err) == showroom.ENotFound {
			return nil, nil, nil, fmt.Errorf("--company: no company %q in %s", o.company, o.dataDir)
		}
		return nil, nil, nil, err
	}
	return lib, company, func() { db.Close() }, nil
}
