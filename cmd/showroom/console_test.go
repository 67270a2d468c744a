package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg"
	"image/png"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/showroom/showroom/internal/drawncar"
	"github.com/showroom/showroom/internal/syncbuf"
)

// TestConsole uses the web console as a dealer's employee would, in
// headless Chromium against 'showroom serve': logs in with the keyboard
// only, uploads a background, builds a configuration with the form (its
// steps and settings in the dealer's words, the background picked by its
// picture, the floor line and the space around the car dragged on the
// live preview, a size out of range first, whose error must show at its
// field), processes a drawn photo and a folder of 20 and downloads them as
// a ZIP, picks results across pages of the history and downloads them,
// reads the usage, sees the pages in German, and looks at them on a
// phone-sized screen. Throughout, the page may log no error, throw
// nothing and ask no host but the service's own. Each page's screenshot
// is written to $SHOWROOM_CONSOLE_ARTIFACTS (default artifacts/console at
// the repository's root) to be looked at. Every photo is drawn here.
func TestConsole(t *testing.T) {
	chrome, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("skipping: no chromium on PATH; 'make test' installs it (scripts/chromium.sh)")
	}
	if _, err := os.Stat(filepath.Join(defaultModelDir(), "u2netp.onnx")); err != nil {
		t.Skipf("skipping: no model files in %s; run 'make models'", defaultModelDir())
	}
	dir := t.TempDir()
	env := map[string]string{"SHOWROOM_DATA_DIR": dir}
	run(t, env, "", "admin", "company", "add", "acme")
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--warm-up", "0", "--model", "u2netp", "--log-format", "text")
	photo := testPNG(t, dir, "redcar.png", drawncar.New(480, 300, 0).Photo)
	background := testPNG(t, dir, "floor.png", drawnStudio(640, 400))
	// The batch: a folder of 20 drawn cars of a few sizes, some slightly
	// tilted, half of them in a folder inside it, and a note that is no
	// photo.
	folder := filepath.Join(dir, "batch")
	if err := os.MkdirAll(filepath.Join(folder, "more"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(folder, "notes.txt"), []byte("not a photo"), 0o644)
	for i := range 20 {
		w := 360 + 40*(i%4)
		tilt := 0.012 * float64(i%3)
		if i%5 == 4 {
			tilt = 0.055 // over 3 degrees: a TILTED warning
		}
		sub := folder
		if i >= 10 {
			sub = filepath.Join(folder, "more")
		}
		testPNG(t, sub, fmt.Sprintf("car%02d.png", i+1), drawncar.New(w, w*2/3, tilt).Photo)
	}

	b := newBrowser(t, chrome, base)
	b.do("open the console", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS("#username")))
	b.shot("login")

	// Keyboard only: the username field has the focus; Tab to the
	// password, Enter to log in.
	if id := eval[string](b, `document.activeElement.id`); id != "username" {
		t.Fatalf("focus on the login page: %q, want the username field", id)
	}
	b.do("log in with the keyboard", chromedp.KeyEvent("alice"), chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent("hunter2hunter2"), chromedp.KeyEvent(kb.Enter))
	b.wait("the configurations after login", `document.querySelector('#configurations-title') !== null && document.querySelectorAll('.card img[src^="blob:"]').length >= 4`)
	if got := eval[string](b, `document.getElementById('who').textContent`); got != "alice · acme" {
		t.Errorf("header names %q, want alice · acme", got)
	}
	if c := eval[string](b, `document.cookie`); c != "" {
		t.Errorf("the console set cookies: %q", c)
	}
	// Keyboard on through the navigation: Tab from the page to the nav's
	// links is the browser's; following one with Enter is the console's.
	b.do("open Usage with the keyboard", chromedp.Focus(chromedp.CSS(`#nav a[data-page="usage"]`)), chromedp.KeyEvent(kb.Enter))
	b.wait("the usage page", `document.getElementById('balance')?.textContent.includes('Unlimited')`)

	// Content: a background, uploaded through the drop zone's file input.
	b.do("open Content", chromedp.Click(chromedp.CSS(`#nav a[data-page="content"]`)), chromedp.WaitVisible(chromedp.CSS("#name-BACKGROUND_SIMPLE")))
	b.do("upload a background", chromedp.SendKeys(chromedp.CSS("#name-BACKGROUND_SIMPLE"), "floor"),
		chromedp.SetUploadFiles(chromedp.CSS("#file-BACKGROUND_SIMPLE"), []string{background}))
	b.wait("the background's preview", `document.querySelector('#content-BACKGROUND_SIMPLE [data-name="floor"] img')?.naturalWidth > 0`)
	if got := eval[string](b, `document.querySelector('.kind .status').textContent`); got != "Uploaded floor (640 × 400)." {
		t.Errorf("upload status %q", got)
	}
	b.shot("content")

	// A configuration built with the form, its steps by their names.
	b.do("open the editor", chromedp.Click(chromedp.CSS(`#nav a[data-page="configurations"]`)), chromedp.WaitVisible(chromedp.CSS("#new-configuration")),
		chromedp.Click(chromedp.CSS("#new-configuration")), chromedp.WaitVisible(chromedp.CSS("#config-name")))
	b.do("fill in the form",
		chromedp.SendKeys(chromedp.CSS("#config-name"), "lot"),
		chromedp.SendKeys(chromedp.CSS("#nd-en-name"), "Dealer lot"),
		chromedp.SendKeys(chromedp.CSS("#nd-de-name"), "Hof"),
		chromedp.SetValue(chromedp.CSS("#add-processor"), "SemiTransparentWindowsProcessor"),
		chromedp.Click(chromedp.CSS("#add-step")),
		chromedp.SetValue(chromedp.CSS("#add-processor"), "AddBackgroundAndCropProcessor"),
		chromedp.Click(chromedp.CSS("#add-step")))
	if got := eval[string](b, `[...document.querySelectorAll('#steps h3')].map(h => h.textContent).join(' | ')`); got !=
		"1. Find the car DetectCarMaskProcessor | 2. See-through windows SemiTransparentWindowsProcessor | 3. Showroom background AddBackgroundAndCropProcessor" {
		t.Errorf("the steps' titles: %q", got)
	}
	if got := eval[string](b, `document.getElementById('p-1-windowTransparency-label').textContent + ' / ' + document.getElementById('p-1-windowTransparency').type`); got != "How see-throughwindowTransparency / range" {
		t.Errorf("window transparency's label and control: %q", got)
	}
	// The background by its picture: both the upload and the built-in
	// studio are offered.
	b.wait("the background pictures", `[...document.querySelectorAll('#p-2-background img')].filter(i => i.naturalWidth > 0).length === 2`)
	b.do("pick the background", chromedp.Click(chromedp.CSS(`label[for="p-2-background-floor"]`)))
	b.wait("the preview on the background", `document.getElementById('p-2-background-floor')?.checked`)
	// An output width under the least, which the service refuses at
	// that field.
	b.typeOver("#p-2-outputWidth", "10")
	b.do("save", chromedp.Click(chromedp.CSS("#save")))
	b.wait("the error at its field", `document.getElementById('p-2-outputWidth-error')?.textContent !== ''`)
	if got := eval[string](b, `document.getElementById('p-2-outputWidth-error').textContent`); got != "must be between 64 and 8192" {
		t.Errorf("error at outputWidth: %q", got)
	}
	if got := eval[string](b, `document.activeElement.id + ' ' + document.activeElement.getAttribute('aria-invalid')`); got != "p-2-outputWidth true" {
		t.Errorf("focus after the refused save: %q, want the invalid field", got)
	}
	b.shot("editor-error")
	b.do("empty the width", chromedp.Evaluate[chromedp.Void](`document.querySelector('#p-2-outputWidth').select()`), chromedp.KeyEvent(kb.Backspace))
	if got := eval[string](b, `document.getElementById('p-2-outputWidth-error').textContent + '|' + document.getElementById('p-2-outputWidth').getAttribute('aria-invalid')`); got != "|null" {
		t.Errorf("the width's error after changing it: %q, want none", got)
	}
	// The floor line, dragged on the preview from 75% down to 80% of its
	// height, and the space on the left from 5% to 20% of its width.
	box := eval[[]float64](b, `(() => { const c = document.querySelector('[data-processor="AddBackgroundAndCropProcessor"] .preview-canvas'); c.scrollIntoView({ block: 'center' }); const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`)
	at := func(fx, fy float64) (float64, float64) { return box[0] + fx*box[2], box[1] + fy*box[3] }
	b.drag(at(0.5, 0.75))(at(0.5, 0.80))
	b.drag(at(0.05, 0.5))(at(0.20, 0.5))
	if got := eval[string](b, `['horizonLine', 'marginLeft'].map(n => document.querySelector('#p-2-' + n).value).join(',')`); got != "80,20" {
		t.Errorf("the sliders after dragging the floor line and the left side: %q, want 80,20", got)
	}
	b.shot("editor")
	b.docShot("console-editor", `[data-processor="AddBackgroundAndCropProcessor"]`, 700)
	b.do("save again", chromedp.Click(chromedp.CSS("#save")))
	b.wait("the saved configuration in the list", `document.querySelector('#own-configurations [data-name="lot"] img')?.naturalWidth > 0`)
	if got := eval[string](b, `document.querySelector('.flash').textContent + ' / ' + document.querySelector('[data-name="lot"] h3').textContent`); got != "Saved lot. / Dealer lot" {
		t.Errorf("after saving: %q", got)
	}
	b.shot("configurations")
	var saved struct {
		Configurations []map[string]any `json:"configurations"`
	}
	b.apiJSON("/v1/configuration/lot", &saved)
	if len(saved.Configurations) != 3 || saved.Configurations[1]["windowTransparency"] != 0.5 || saved.Configurations[2]["background"] != "floor" ||
		saved.Configurations[2]["horizonLine"] != 0.8 || saved.Configurations[2]["marginLeft"] != 0.2 || saved.Configurations[2]["outputWidth"] != nil {
		t.Errorf("saved configuration %+v", saved.Configurations)
	}

	// The car's size, dragged at a corner of its box on PlaceCarProcessor's
	// preview (in a copy of default_white, not saved): from 80% × 70% of
	// the canvas, the box's bottom on the floor line at 75%, to 60% × 50%.
	b.do("open a copy of default_white", chromedp.Navigate(base+"/#/copy/default_white"))
	b.wait("its preview", `document.querySelector('[data-processor="PlaceCarProcessor"] .preview-canvas') !== null`)
	box = eval[[]float64](b, `(() => { const c = document.querySelector('[data-processor="PlaceCarProcessor"] .preview-canvas'); c.scrollIntoView({ block: 'center' }); const r = c.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`)
	b.drag(at(0.9, 0.05))(at(0.8, 0.25))
	if got := eval[string](b, `['carWidth', 'carHeight', 'horizonLine'].map(n => document.querySelector('#p-4-' + n).value).join(',')`); got != "60,50,75" {
		t.Errorf("the sliders after dragging the car's box: %q, want 60,50,75", got)
	}
	b.docShot("console-place", `[data-processor="PlaceCarProcessor"]`, 700)

	// One photo cut out: the result keeps the photo's frame, so the two
	// sides of the slider line up, pixel over pixel.
	b.downloads()
	b.do("open the processing page", chromedp.Click(chromedp.CSS(`#nav a[data-page="try"]`)), chromedp.WaitVisible(chromedp.CSS("#try-config")),
		chromedp.SetValue(chromedp.CSS("#try-config"), "default_transparent"),
		chromedp.SetUploadFiles(chromedp.CSS("#try-photos"), []string{photo}))
	b.wait("the result", `document.querySelector('.result.succeeded .compare img.after')?.naturalWidth > 0 && document.querySelector('.compare img.before').naturalWidth > 0`)
	if got := eval[[]float64](b, `(() => { const [a, c] = [...document.querySelectorAll('.compare img')].map(i => i.getBoundingClientRect()); const box = document.querySelector('.compare').getBoundingClientRect(); return [box.width / box.height, 480 / 300, a.width - c.width, a.height - c.height]; })()`); math.Abs(got[0]-got[1]) > 0.01 || got[2] != 0 || got[3] != 0 {
		t.Errorf("before/after: the box's shape %.3f for a photo of %.3f, the images differ by %v×%v px", got[0], got[1], got[2], got[3])
	}
	// "Done in": the run from its start to its end, not the sum of the
	// steps, which holds the model's wait twice.
	var job struct {
		StartedDate, FinishedDate int64
		Timings                   []struct {
			Name string
			MS   float64
		}
	}
	b.apiJSON("/v1/process/jobs/"+eval[string](b, `document.querySelector('.result.succeeded').dataset.job`), &job)
	// The console rounds a half up (toLocaleString), where %.1f of a
	// float64 would round 0.85 s down: tenths from the whole milliseconds.
	tenths := (job.FinishedDate - job.StartedDate + 50) / 100
	if want := fmt.Sprintf("Done in %d.%d s", tenths/10, tenths%10); !strings.HasPrefix(eval[string](b, `document.querySelector('.result.succeeded .job-status').textContent`), want) {
		t.Errorf("status %q, want it to begin %q", eval[string](b, `document.querySelector('.result.succeeded .job-status').textContent`), want)
	}
	if got := eval[string](b, `[...document.querySelectorAll('.result.succeeded .timings td:first-child')].map(td => td.textContent).join(',')`); !strings.Contains(got, "Find the car DetectCarMaskProcessor") || !strings.Contains(got, "See-through windows") {
		t.Errorf("timings shown: %q", got)
	}
	// The slider, by keyboard: Home shows all of the result.
	before := eval[string](b, `document.querySelector('.compare img.before').style.clipPath`)
	b.do("move the slider", chromedp.Focus(chromedp.CSS(".result.succeeded .slider")), chromedp.KeyEvent(kb.Home))
	if after := eval[string](b, `document.querySelector('.compare img.before').style.clipPath`); before != "inset(0px 50% 0px 0px)" || after != "inset(0px 100% 0px 0px)" {
		t.Errorf("slider: clip %q, then %q after Home", before, after)
	}
	b.do("back to the middle", chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('.slider'); s.value = 50; s.dispatchEvent(new Event('input')); })()`))
	b.shot("try")
	b.docShot("console", "main", 820)

	// Dropped on the zone: a 4x4 PNG the page draws itself, refused.
	b.do("drop a tiny photo", chromedp.Evaluate[chromedp.Void](`(async () => {
		const c = document.createElement('canvas');
		c.width = c.height = 4;
		const blob = await new Promise((resolve) => c.toBlob(resolve, 'image/png'));
		const dt = new DataTransfer();
		dt.items.add(new File([blob], 'tiny.png', { type: 'image/png' }));
		document.querySelector('label.drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
	})()`, chromedp.EvalAwaitPromise))
	b.wait("the failure", `document.querySelector('.result.failed') !== null`)
	if got := eval[string](b, `document.querySelector('.result.failed .job-status').textContent`); !strings.HasPrefix(got, "Failed: ") || !strings.Contains(got, "(INVALID_IMAGE)") {
		t.Errorf("failed photo's status: %q", got)
	}

	// A folder of 20 through "lot": each photo with its progress, then
	// all of them in one ZIP.
	start := time.Now()
	b.do("send a folder of 20 photos", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#try-config")),
		chromedp.SetValue(chromedp.CSS("#try-config"), "lot"),
		chromedp.SetUploadFiles(chromedp.CSS("#try-photos-folder"), []string{folder}))
	b.wait("the batch's progress", `document.querySelectorAll('.result progress').length > 0 && document.getElementById('batch-count').textContent.endsWith('of 20 photos done')`)
	// Minutes only on a machine busy with much else: the model runs on
	// the two cores a photo or two at a time.
	b.waitFor("the batch done", `document.getElementById('batch-count').textContent === '20 of 20 photos done'`, 5*time.Minute)
	t.Logf("20 photos in %v", time.Since(start).Round(100*time.Millisecond))
	if got := eval[string](b, `document.getElementById('download-all').textContent`); got != "Download all (20 results, ZIP)" {
		t.Errorf("the batch's button: %q", got)
	}
	// A configuration that moves the car: the two stand side by side at
	// one height.
	b.do("open a result", chromedp.Click(chromedp.CSS(`.result[data-file="car01.png"] summary`)))
	b.wait("before and after side by side", `[...document.querySelectorAll('.result[data-file="car01.png"] .side-by-side img')].filter(i => i.naturalWidth > 0).length === 2`)
	if got := eval[[]float64](b, `[...document.querySelectorAll('.result[data-file="car01.png"] .side-by-side img')].flatMap(i => { const r = i.getBoundingClientRect(); return [r.top, r.height]; })`); got[0] != got[2] || got[1] != got[3] {
		t.Errorf("side by side: tops and heights %v", got)
	}
	b.shot("batch")
	b.docShot("console-batch", "main", 900)
	b.do("download all", chromedp.Click(chromedp.CSS("#download-all")))
	entries := b.zipEntries(b.downloaded(".zip"))
	if len(entries) != 20 || entries[0] != "car01-lot.jpg" || entries[19] != "car20-lot.jpg" {
		t.Errorf("the batch's ZIP holds %q", entries)
	}

	// The history: every job, newest first, 20 a page; results picked on
	// two pages and kept over a later visit, then saved as one ZIP.
	b.do("open the history", chromedp.Click(chromedp.CSS(`#nav a[data-page="history"]`)))
	b.wait("the first page of jobs", `document.querySelectorAll('#history .job').length === 20 && !document.getElementById('more-jobs').hidden`)
	b.wait("the thumbnails in view", `[...document.querySelectorAll('#history .job img')].slice(0, 4).every(i => i.naturalWidth > 0)`)
	if got := eval[string](b, `[...document.querySelectorAll('#history .job .job-name')].slice(0, 2).map(l => l.textContent).join(',')`); !regexp.MustCompile(`^car(1[7-9]|20)\.png,car(1[7-9]|20)\.png$`).MatchString(got) {
		t.Errorf("the newest jobs: %q", got)
	}
	// The photos drawn tilted carry their warning, the others none.
	if got := eval[string](b, `[...document.querySelectorAll('#history .job')].filter(c => c.querySelector('.warnings li[data-code="TILTED"]')).map(c => c.querySelector('.job-name').textContent).sort().join(',')`); got != "car05.png,car10.png,car15.png,car20.png" {
		t.Errorf("the jobs with a TILTED warning: %q", got)
	}
	b.do("pick two", chromedp.Click(chromedp.CSS(`#history .job:nth-child(1) input[type="checkbox"]`)), chromedp.Click(chromedp.CSS(`#history .job:nth-child(2) input[type="checkbox"]`)))
	b.do("show older jobs", chromedp.Click(chromedp.CSS("#more-jobs")))
	b.wait("the older jobs", `document.querySelectorAll('#history .job').length === 21 && document.getElementById('more-jobs').hidden`)
	b.wait("two picked", `document.getElementById('selection-count')?.textContent === '2 results selected'`)
	b.do("pick the cutout", chromedp.Click(chromedp.CSS(`#history .job:nth-child(21) input[type="checkbox"]`)))
	// On a machine loaded far beyond its cores the browser has been seen
	// to lose this click (the box stayed unticked, the page unchanged):
	// a user would click again, and so does the test, once, saying so.
	const three = `document.getElementById('selection-count')?.textContent === '3 results selected'`
	if !eval[bool](b, three) {
		time.Sleep(time.Second)
		if !eval[bool](b, three) {
			t.Log("the click on the cutout's box did not register; clicking again")
			b.do("pick the cutout again", chromedp.Click(chromedp.CSS(`#history .job:nth-child(21) input[type="checkbox"]`)))
		}
	}
	b.wait("three picked", three)
	// Thumbnails load as their cards come into view: from the top, scroll
	// down half a window at a time, as a person does. (Ticking the 21st
	// card's box jumped past the middle cards, which were never in view.)
	b.do("to the top", chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`))
	for range 40 {
		if eval[bool](b, `innerHeight + scrollY >= document.body.scrollHeight - 1`) {
			break
		}
		b.do("scroll through the history", chromedp.Evaluate[chromedp.Void](`scrollBy(0, innerHeight / 2)`))
		time.Sleep(100 * time.Millisecond)
	}
	b.wait("every thumbnail", `[...document.querySelectorAll('#history .job img')].every(i => i.naturalWidth > 0)`)
	b.do("back to the top", chromedp.Evaluate[chromedp.Void](`scrollTo(0, 0)`))
	b.shot("history")
	b.docShot("console-history", "main", 760)
	b.do("visit again", chromedp.Reload())
	b.wait("the selection kept", `document.getElementById('selection-count')?.textContent === '3 results selected'`)
	b.do("download the selection", chromedp.Click(chromedp.CSS("#download-selected")))
	if got := b.zipEntries(b.downloaded(".zip")); len(got) != 3 || !slices.Contains(got, "redcar-default_transparent.png") {
		t.Errorf("the selection's ZIP holds %q", got)
	}
	one := chromedp.Click(chromedp.CSS(`#history .job:nth-child(3) button.download`))
	b.do("download one", one)
	// Under load the browser has been seen to save nothing after this
	// click (the page unchanged, no error shown; the ZIP just before was
	// saved): a user would click again, and so does the test, once,
	// saying so.
	file, ok := b.downloadedWithin(".jpg", 20*time.Second)
	if !ok {
		t.Log("the click on a result's download saved nothing in 20 s; clicking again")
		b.do("download one again", one)
		file = b.downloaded(".jpg")
	}
	if name := filepath.Base(file); !regexp.MustCompile(`^car\d\d-lot\.jpg$`).MatchString(name) {
		t.Errorf("one result downloaded as %q", name)
	}

	// Usage: the jobs (the tiny photo was refused before it became one)
	// and their charges.
	b.do("open Usage", chromedp.Click(chromedp.CSS(`#nav a[data-page="usage"]`)))
	b.wait("the jobs", `document.querySelectorAll('#jobs tbody tr').length === 20`)
	if got := eval[string](b, `document.querySelector('#charges tbody tr td:nth-child(2)').textContent`); got != "lot" {
		t.Errorf("charge for %q, want lot", got)
	}
	b.shot("usage")

	// Content in use cannot go, and the page says why.
	b.do("delete the background", chromedp.Click(chromedp.CSS(`#nav a[data-page="content"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-name="floor"] .confirm button`)),
		chromedp.Click(chromedp.CSS(`[data-name="floor"] .confirm button`)),
		chromedp.Click(chromedp.CSS(`[data-name="floor"] .confirm button.danger`)))
	b.wait("the in-use message", `document.querySelector('[data-name="floor"] .error')?.textContent !== ''`)
	if got := eval[string](b, `document.querySelector('[data-name="floor"] .error').textContent`); !strings.Contains(got, "cannot be deleted while a configuration uses it. It is used by: lot.") {
		t.Errorf("in-use message: %q", got)
	}

	// German first: every page in German, with no English text of the
	// console's left on it.
	b.do("prefer German", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: eval[string](b, `navigator.userAgent`), AcceptLanguage: "de-DE,de"})
		return err
	}), chromedp.Navigate(base+"/#/configurations"), chromedp.Reload())
	b.wait("the German name", `document.querySelector('[data-name="lot"] h3')?.textContent === 'Hof'`)
	for _, c := range []struct{ page, ready, shot string }{
		{"configurations", `document.querySelector('main h1')?.textContent === 'Konfigurationen'`, ""},
		{"edit/lot", `document.querySelector('[data-processor="AddBackgroundAndCropProcessor"] h3')?.textContent.startsWith('3. Showroom-Hintergrund') && document.querySelector('#p-2-background-floor + img')?.naturalWidth > 0`, "de-editor"},
		{"content", `document.querySelector('main h1')?.textContent === 'Inhalte'`, ""},
		{"try", `document.querySelector('main h1')?.textContent === 'Fotos bearbeiten'`, ""},
		{"history", `document.querySelectorAll('#history .job img[src^="blob:"]').length >= 4 && document.querySelector('#history .warnings li')?.textContent === 'Das Auto steht schief.'`, "de-history"},
		{"usage", `document.querySelector('main h1')?.textContent === 'Verbrauch'`, ""},
	} {
		b.do("open "+c.page+" in German", chromedp.Navigate(base+"/#/"+c.page))
		b.wait(c.page+" in German", c.ready)
		if english := b.englishLeft(); len(english) > 0 {
			t.Errorf("#/%s in German shows English: %q", c.page, english)
		}
		if c.shot != "" {
			b.shot(c.shot)
			sel := "main"
			if c.page == "edit/lot" {
				// The preview with the company's own car: the photo cut
				// out earlier.
				if got := eval[string](b, `[...document.querySelectorAll('#preview-sample option')].map(o => o.textContent).join(',')`); got != "Ein gezeichnetes Auto,redcar.png" {
					t.Errorf("the samples offered: %q", got)
				}
				sample := eval[string](b, `document.querySelector('#preview-sample option:nth-child(2)').value`)
				b.choose("#preview-sample", sample)
				b.wait("the photo as the sample", fmt.Sprintf(`document.querySelector('.sample-field').dataset.shown === %q`, sample))
				if got := eval[string](b, `document.querySelector('.sample-field .field-error').textContent`); got != "" {
					t.Errorf("the photo as the sample: %q", got)
				}
				sel = `[data-processor="AddBackgroundAndCropProcessor"]`
			}
			b.docShot("console-"+c.shot, sel, 760)
		}
	}
	if got := eval[string](b, `document.documentElement.lang + ' ' + document.querySelector('#nav a[data-page="history"]').textContent`); got != "de Verlauf" {
		t.Errorf("German page: %q", got)
	}

	// A link to no page, a name that is not well-formed and a name every
	// object has all show the page that is not there.
	for _, hash := range []string{"edit/%E0%A4", "nothing", "toString"} {
		b.do("open #/"+hash, chromedp.Navigate(base+"/#/"+hash))
		b.wait("no page at #/"+hash, `document.querySelector('main h1')?.textContent === 'Nicht gefunden'`)
	}

	// A phone: every page fits its width.
	b.do("a phone's screen", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
	for _, page := range []string{"configurations", "edit/lot", "content", "try", "history", "usage"} {
		b.do("open "+page, chromedp.Navigate(base+"/#/"+page))
		b.wait(page+" on a phone", `document.querySelector('main section, main form') !== null`)
		if w := eval[[]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1] {
			t.Errorf("%s on a phone: %d px wide in a %d px window", page, w[0], w[1])
		}
		if page == "configurations" || page == "edit/lot" || page == "history" {
			b.wait("thumbnails", `[...document.querySelectorAll('main img')].every(i => i.complete)`)
			b.shot("phone-" + strings.ReplaceAll(page, "/", "-"))
		}
	}
	b.do("a desktop's screen again", chromedp.EmulateViewport(1280, 900))

	// Deleting: the configuration first, then its background can go.
	b.do("delete the configuration", chromedp.Navigate(base+"/#/configurations"),
		chromedp.WaitVisible(chromedp.CSS(`[data-name="lot"] .confirm button`)),
		chromedp.Click(chromedp.CSS(`[data-name="lot"] .confirm button`)),
		chromedp.Click(chromedp.CSS(`[data-name="lot"] .confirm button.danger`)))
	b.wait("the configuration gone", `document.querySelector('[data-name="lot"]') === null`)
	b.do("delete the background", chromedp.Navigate(base+"/#/content"),
		chromedp.WaitVisible(chromedp.CSS(`[data-name="floor"] .confirm button`)),
		chromedp.Click(chromedp.CSS(`[data-name="floor"] .confirm button`)),
		chromedp.Click(chromedp.CSS(`[data-name="floor"] .confirm button.danger`)))
	b.wait("the background gone", `document.querySelector('[data-name="floor"]') === null`)
	for _, path := range []string{"/v1/configuration/lot", "/v1/content/floor"} {
		if code := b.apiStatus(path); code != 404 {
			t.Errorf("GET %s after deleting it: %d", path, code)
		}
	}

	// The access token is refreshed before it expires: pretend it is
	// about to.
	var s struct{ Access, Refresh string }
	json.Unmarshal([]byte(eval[string](b, `sessionStorage.getItem('showroom.session')`)), &s)
	b.do("an access token about to expire", chromedp.Evaluate[chromedp.Void](`(() => {
		const s = JSON.parse(sessionStorage.getItem('showroom.session'));
		s.expiresAt = Date.now() + 5000;
		sessionStorage.setItem('showroom.session', JSON.stringify(s));
	})()`), chromedp.Reload())
	b.wait("a new access token", fmt.Sprintf(`JSON.parse(sessionStorage.getItem('showroom.session')).access !== %q`, s.Access))

	// Logout revokes the refresh token; the login page is German too.
	b.do("log out", chromedp.Click(chromedp.CSS("#logout")), chromedp.WaitVisible(chromedp.CSS("#username")))
	b.wait("the session gone", `sessionStorage.getItem('showroom.session') === null`)
	if got := eval[string](b, `document.getElementById('login-title').textContent`); got != "Bei Showroom anmelden" {
		t.Errorf("German login: %q", got)
	}
	b.shot("de-login")
	var errBody map[string]any
	if code := post(t, base+"/auth/refresh", map[string]string{"refresh_token": s.Refresh}, &errBody); code != 401 {
		t.Errorf("refresh after logout: %d %v", code, errBody)
	}
	// Logging out leaves the login form to type into at once; logging in
	// again works.
	b.do("log in again", chromedp.SendKeys(chromedp.CSS("#username"), "alice"), chromedp.SendKeys(chromedp.CSS("#password"), "hunter2hunter2"),
		chromedp.Focus(chromedp.CSS("#password")), chromedp.KeyEvent(kb.Enter))
	b.wait("logged in again", `document.querySelector('#configurations-title') !== null`)
	// A logout while a refresh is on its way stays a logout: the refresh's
	// answer must not bring the session back.
	raced, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const api = await import('/console/api.js');
		// Its refusal is handled at once: the refresh may answer before
		// the logout does, and a rejection with no handler yet is an
		// uncaught exception to the browser (which the test fails on).
		const refreshing = api.refresh().catch(() => {});
		await api.logout();
		await refreshing;
		return String(sessionStorage.getItem('showroom.session')) + ' ' + api.loggedIn();
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.fail("a logout during a refresh", err)
	}
	if raced != "null false" {
		t.Errorf("after a logout during a refresh: session %s", raced)
	}
	b.check()
}

// TestConsoleSplitRoles: 'showroom api' serves the console too, and the
// console's login reaches the auth service running apart through the API's
// own /auth, so the page never asks another origin.
func TestConsoleSplitRoles(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{}
	run(t, env, "", "admin", "--data-dir", dir, "company", "add", "acme")
	if _, _, err := run(t, env, "hunter2hunter2\n", "admin", "--data-dir", dir, "user", "add", "--company", "acme", "--username", "alice"); err != nil {
		t.Fatal(err)
	}
	// The API forwards the console's logins from 127.0.0.1; the auth
	// service is told to believe the client address it passes on.
	var authLog syncbuf.Buffer
	authURL, _ := startServerLogging(t, env, &authLog, "auth", "--addr", "127.0.0.1:0", "--data-dir", dir,
		"--trusted-proxies", "127.0.0.1")
	apiURL, _ := startServer(t, env, "api", "--addr", "127.0.0.1:0", "--data-dir", dir, "--auth-url", authURL)
	// A link to the console may carry parameters of its own (a mail's
	// utm_source): the page opens, though the API refuses unknown ones.
	for _, page := range []string{"/", "/?utm_source=mail"} {
		res, err := http.Get(apiURL + page)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") ||
			!strings.Contains(res.Header.Get("Content-Security-Policy"), "connect-src 'self'") {
			t.Errorf("GET %s on the API: %d %q, policy %q", page, res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Content-Security-Policy"))
		}
	}
	if code, body := get(t, apiURL+"/v1/processors?utm_source=mail", ""); code != 400 || !strings.Contains(string(body), "UNKNOWN_PARAMETER") {
		t.Errorf("GET /v1/processors?utm_source=mail: %d %s, want 400 UNKNOWN_PARAMETER", code, body)
	}
	var tok tokens
	if code := post(t, apiURL+"/auth/login", map[string]string{"username": "alice", "password": "hunter2hunter2", "system": "showroom"}, &tok); code != 200 {
		t.Fatalf("login through the API's /auth: %d", code)
	}
	if code, body := get(t, apiURL+"/v1/me", tok.AccessToken); code != 200 {
		t.Errorf("/v1/me with that token: %d %s", code, body)
	}
	var errBody map[string]any
	if code := post(t, apiURL+"/auth/login", map[string]string{"username": "alice", "password": "wrong", "system": "showroom"}, &errBody); code != 403 || errBody["errorCode"] != "INVALID_CREDENTIALS" {
		t.Errorf("wrong password through the API's /auth: %d %v", code, errBody)
	}
	// A failed login through the API counts against the browser's address
	// (here 127.0.0.2, another loopback address), not the API's, so one
	// user's failures cannot lock every console user out; and the address
	// a client writes into X-Forwarded-For itself is not believed.
	from127002 := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.2")}}).DialContext}}
	req, _ := http.NewRequest("POST", apiURL+"/auth/login",
		strings.NewReader(`{"username":"alice","password":"wrong","system":"showroom"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", "192.0.2.1")
	res, err := from127002.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	var failed map[string]any
	for _, line := range strings.Split(authLog.String(), "\n") {
		if strings.Contains(line, `"msg":"login failed"`) && strings.Contains(line, "127.0.0.2") {
			json.Unmarshal([]byte(line), &failed)
		}
	}
	if res.StatusCode != 403 || failed["remote"] != "127.0.0.2" {
		t.Errorf("wrong password from 127.0.0.2 through the API: %d, auth logged %v; log:\n%s", res.StatusCode, failed, authLog.String())
	}
	// Paths beside the console keep the API's answers.
	if code, body := get(t, apiURL+"/nothing", ""); code != 404 || !strings.Contains(string(body), `"errorCode":"NOT_FOUND"`) {
		t.Errorf("GET /nothing: %d %s", code, body)
	}
	if _, _, err := run(t, env, "", "api", "--data-dir", dir, "--auth-url", "not a url"); err == nil || !strings.Contains(err.Error(), "--auth-url") {
		t.Errorf("api with a bad --auth-url: %v", err)
	}
	for _, role := range []string{"auth", "serve"} {
		if _, _, err := run(t, env, "", role, "--data-dir", dir, "--trusted-proxies", "10.0.0.0/33"); err == nil || !strings.Contains(err.Error(), "--trusted-proxies") {
			t.Errorf("%s with a bad --trusted-proxies: %v", role, err)
		}
	}
}

// browser is a headless Chromium tab on the console, which records what
// the page must never do: log an error, throw, or ask another host.
type browser struct {
	t     *testing.T
	ctx   context.Context
	base  *url.URL
	shots string

	// saved is the folder downloads go to; taken, those already read.
	saved string
	taken map[string]bool

	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T, chrome, base string) *browser {
	t.Helper()
	u, _ := url.Parse(base)
	shots := os.Getenv("SHOWROOM_CONSOLE_ARTIFACTS")
	if shots == "" {
		shots = filepath.Join("..", "..", "artifacts", "console")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(shots, "failed.png")) // an earlier run's
	// Not t.TempDir: Chromium's helpers may still write there for a moment
	// after it stops, so removing it takes retries.
	profile, err := os.MkdirTemp("", "showroom-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove Chromium's profile %s", profile)
	})
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("lang", "en-US"), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 8*time.Minute)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	b := &browser{t: t, ctx: ctx, base: u, shots: shots}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	if err := chromedp.Listen(ctx, b.watch); err != nil {
		t.Fatal(err)
	}
	return b
}

// watch runs on the tab's reader goroutine: record, never block.
func (b *browser) watch(ev any) {
	var problem string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		problem = "exception: " + (&chromedp.ExceptionError{ExceptionDetails: ev.ExceptionDetails}).Error()
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			args := make([]string, len(ev.Args))
			for i, a := range ev.Args {
				args[i] = string(a.Value) + a.Description
			}
			problem = fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " "))
		}
	case *log.EventEntryAdded:
		// A 4xx answer the test asks for is logged by the network source;
		// everything else at error level (a CSP violation, say) is not
		// expected.
		if ev.Entry.Level == log.EntryLevelError && ev.Entry.Source != log.EntrySourceNetwork {
			problem = fmt.Sprintf("log (%s): %s %s", ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
		}
	case *network.EventRequestWillBeSent:
		u, err := url.Parse(ev.Request.URL)
		if err != nil || (u.Scheme != "data" && u.Scheme != "blob" && u.Host != b.base.Host) {
			problem = "request to another host: " + ev.Request.URL
		}
	case *network.EventResponseReceived:
		if ev.Response.Status >= 500 {
			problem = fmt.Sprintf("%d from %s", ev.Response.Status, ev.Response.URL)
		}
	}
	if problem != "" {
		b.mu.Lock()
		b.problems = append(b.problems, problem)
		b.mu.Unlock()
	}
}

// check fails the test for each problem the page had.
func (b *browser) check() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		b.t.Error(p)
	}
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.fail(what, err)
	}
}

// fail stops the test, with a screenshot of where it stopped.
func (b *browser) fail(what string, err error) {
	b.t.Helper()
	b.check()
	if png, serr := chromedp.Run(context.WithoutCancel(b.ctx), chromedp.CaptureScreenshot()); serr == nil {
		os.WriteFile(filepath.Join(b.shots, "failed.png"), png, 0o644)
	}
	b.t.Fatalf("%s: %v (screenshot: %s)", what, err, filepath.Join(b.shots, "failed.png"))
}

// wait waits until the JavaScript expression is true.
func (b *browser) wait(what, expr string) {
	b.t.Helper()
	b.waitFor(what, expr, 60*time.Second)
}

// waitFor waits until the JavaScript expression is true, at most limit.
func (b *browser) waitFor(what, expr string, limit time.Duration) {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(limit), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		b.fail("waiting for "+what, err)
	}
}

// typeOver replaces a field's text by typing, as a user would.
func (b *browser) typeOver(sel, text string) {
	b.t.Helper()
	b.do("type into "+sel, chromedp.Focus(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).select()`, sel)),
		chromedp.KeyEvent(text))
}

// choose picks an option of a select, as a user's choice does (with its
// change event).
func (b *browser) choose(sel, value string) {
	b.t.Helper()
	b.do("choose "+value, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		const s = document.querySelector(%q);
		s.value = %q;
		s.dispatchEvent(new Event('change', {bubbles: true}));
	})()`, sel, value)))
}

// shot saves the whole page as name.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	b.painted()
	png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.fail("screenshot "+name, err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// painted waits for the page's next two frames, so that a screenshot
// shows what the last change drew.
func (b *browser) painted() {
	b.t.Helper()
	b.do("wait for a frame", chromedp.Evaluate[chromedp.Void](`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`, chromedp.EvalAwaitPromise))
}

// docShot saves the part of the page the element sel covers (at most
// maxHeight CSS pixels of it, from its top), at three fifths of its size,
// as doc-name.png: the pictures of docs/console-*.png, copied there by
// hand after looking at them.
func (b *browser) docShot(name, sel string, maxHeight float64) {
	b.t.Helper()
	b.painted()
	r := eval[[]float64](b, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, r.height]; })()`, sel))
	clip := &page.Viewport{X: r[0], Y: r[1], Width: r[2], Height: min(r[3], maxHeight), Scale: 0.6}
	shot, err := chromedp.Run(b.ctx, chromedp.Action[[]byte](func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
		res, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{Clip: clip, CaptureBeyondViewport: ptrTo(true), FromSurface: ptrTo(true)})
		return res.Data, err
	}))
	if err != nil {
		b.fail("screenshot "+name, err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		b.t.Fatal(err)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b.shots, "doc-"+name+".png"), out.Bytes(), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// apiJSON reads a /v1 path with the page's own access token.
func (b *browser) apiJSON(path string, into any) {
	b.t.Helper()
	code, body := get(b.t, b.base.String()+path, b.accessToken())
	if code != 200 {
		b.t.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		b.t.Fatalf("GET %s: %v", path, err)
	}
}

// apiStatus is the status of GET path with the page's access token.
func (b *browser) apiStatus(path string) int {
	b.t.Helper()
	code, _ := get(b.t, b.base.String()+path, b.accessToken())
	return code
}

func (b *browser) accessToken() string {
	b.t.Helper()
	var s struct{ Access string }
	json.Unmarshal([]byte(eval[string](b, `sessionStorage.getItem('showroom.session')`)), &s)
	return s.Access
}

func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		b.fail("evaluate "+expr, err)
	}
	return v
}

// drag presses the mouse at one point and lets it go at another, in
// steps, as a hand does: b.drag(x0, y0)(x1, y1).
func (b *browser) drag(x0, y0 float64) func(x1, y1 float64) {
	return func(x1, y1 float64) {
		b.t.Helper()
		steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, x0, y0),
			chromedp.MouseEvent(chromedp.MousePressed, x0, y0, chromedp.ButtonLeft, chromedp.ClickCount(1))}
		for i := 1; i <= 5; i++ {
			f := float64(i) / 5
			steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, x0+f*(x1-x0), y0+f*(y1-y0), chromedp.ButtonLeft))
		}
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseReleased, x1, y1, chromedp.ButtonLeft, chromedp.ClickCount(1)))
		b.do("drag", steps...)
	}
}

// downloads lets the page save files, into a folder of the test's; the
// files it saves are then read with downloaded.
func (b *browser) downloads() {
	b.t.Helper()
	b.saved = b.t.TempDir()
	yes := true
	b.do("allow downloads", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: b.saved, EventsEnabled: &yes})
		return err
	}))
}

// downloaded waits for the next file the page saves whose name ends in
// ext, and returns its path.
func (b *browser) downloaded(ext string) string {
	b.t.Helper()
	n, ok := b.downloadedWithin(ext, 60*time.Second)
	if !ok {
		b.fail("waiting for a download", fmt.Errorf("no new *%s in %s", ext, b.saved))
	}
	return n
}

// downloadedWithin is downloaded, waiting at most d; ok is false when no
// new file came.
func (b *browser) downloadedWithin(ext string, d time.Duration) (path string, ok bool) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		names, _ := filepath.Glob(filepath.Join(b.saved, "*"+ext))
		for _, n := range names {
			if b.taken[n] {
				continue
			}
			if b.taken == nil {
				b.taken = map[string]bool{}
			}
			b.taken[n] = true
			return n, true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", false
}

// zipEntries lists a ZIP archive's files, sorted, each checked to decode
// as the image its name says.
func (b *browser) zipEntries(path string) []string {
	b.t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		b.t.Fatalf("%s: %v", path, err)
	}
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		r, err := f.Open()
		if err != nil {
			b.t.Errorf("%s in %s: %v", f.Name, path, err)
			continue
		}
		_, format, err := image.DecodeConfig(r)
		r.Close()
		if want := strings.TrimPrefix(strings.Replace(filepath.Ext(f.Name), "jpg", "jpeg", 1), "."); err != nil || format != want {
			b.t.Errorf("%s in %s: %q %v, want a %s", f.Name, path, format, err, want)
		}
	}
	slices.Sort(names)
	return names
}

// englishLeft lists the console's English texts (those German words
// differently) that the page shows.
func (b *browser) englishLeft() []string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(async () => {
		const all = await (await fetch('/console/strings.json')).json();
		const text = document.body.innerText;
		const texts = [];
		const add = (en, de) => {
			for (const part of String(en).split(/\{\w+\}/)) {
				if (part.trim().length > 4 && !String(de).includes(part.trim())) texts.push(part.trim());
			}
		};
		for (const [k, v] of Object.entries(all.en.ui)) {
			if (typeof v === 'string') add(v, all.de.ui[k]);
			else for (const f of Object.keys(v)) add(v[f], Object.values(all.de.ui[k]).join(' '));
		}
		for (const [p, w] of Object.entries(all.en.processors)) {
			add(w.name, all.de.processors[p].name);
			for (const [n, x] of Object.entries(w.parameters)) add(x.name, all.de.processors[p].parameters[n].name);
		}
		// Whole words only: an API name in small print (outputWidth,
		// default_white) is no English text.
		const shown = (s) => new RegExp('(?<![\\w])' + s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '(?![\\w])').test(text);
		return [...new Set(texts.filter(shown))];
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.fail("look for English", err)
	}
	return v
}

// testPNG writes img as dir/name and returns its path.
func testPNG(t testing.TB, dir, name string, img image.Image) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// drawnStudio is a background: a blue-grey wall over a lighter floor that
// meets it at three quarters of the height.
func drawnStudio(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		c := color.NRGBA{70, 90, 120, 255}
		if y >= h*3/4 {
			c = color.NRGBA{uint8(170 + 40*(y-h*3/4)/(h/4)), 170, 160, 255}
		}
		for x := range w {
			img.SetNRGBA(x, y, c)
		}
	}
	return img
}
