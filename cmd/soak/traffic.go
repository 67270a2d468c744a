package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"net/http"
	"strings"
	"sync"
	"time"
)

// company is one dealer in the soak, with its users.
type company struct {
	name     string
	flood    bool
	bomb     bool  // sends the hostile requests of bombs.go
	credits  int64 // 0: unlimited
	users    []string
	password string
	tint     uint8
}

// The configurations each company saves: a cheap one (the car cut out and
// made small) and the whole studio look on its own background and poster.
const (
	cutoutConfig = `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"ResizeProcessor","width":640}]`
	studioConfig = `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"DetectCarShadowProcessor"},
{"processorName":"SemiTransparentWindowsProcessor","windowTransparency":%.2f},
{"processorName":"AddBackgroundAndCropProcessor","background":"backdrop","horizonLine":0.7,"outputWidth":1280},
{"processorName":"PlaceShadowProcessor"},{"processorName":"AddPosterProcessor","poster":"logo","scale":0.15}]`
)

// processRefusals are the documented answers a processing run may end in
// with the soak's photos and budgets.
var processRefusals = []string{"NO_CAR_DETECTED", "CAR_CROPPED", "INSUFFICIENT_CREDITS"}

// op is one kind of call a client makes, with its share of the mix.
type op struct {
	weight int
	run    func(c *client, ctx context.Context)
}

// processMix is a dealer's user sending photos, waiting for some and
// leaving others to run, and looking at the company's jobs and credits.
var processMix = []op{
	{55, (*client).processSync},
	{35, (*client).processAsync},
	{5, (*client).listJobs},
	{5, (*client).usage},
}

// editMix is a dealer's user working on the company's content and
// configurations while the queue is full: these calls must stay quick.
var editMix = []op{
	{12, (*client).listContent},
	{16, (*client).getBackground},
	{6, (*client).uploadScratch},
	{6, (*client).deleteScratch},
	{12, (*client).listConfigs},
	{8, (*client).getConfig},
	{8, (*client).saveDraft},
	{4, (*client).deleteDraft},
	{10, (*client).listJobs},
	{6, (*client).usage},
	{4, (*client).renewOp},
	{8, (*client).processors},
}

// floodMix is the flooding company: nothing but photos, as fast as the
// service lets it.
var floodMix = []op{
	{50, (*client).processSync},
	{50, (*client).processAsync},
}

func (c *client) url(path string) string { return c.s.baseURL + path }

// run makes calls from mix until the traffic stops.
func (c *client) run(ctx context.Context, mix []op) {
	total := 0
	for _, o := range mix {
		total += o.weight
	}
	for !c.s.stopped() && ctx.Err() == nil {
		n := c.rng.IntN(total)
		for _, o := range mix {
			if n -= o.weight; n < 0 {
				o.run(c, ctx)
				break
			}
		}
		if think := c.s.cfg.think; think > 0 && !c.co.flood {
			c.sleep(time.Duration(c.rng.Int64N(int64(2 * think))))
		}
	}
}

// sleep waits d or until the traffic stops.
func (c *client) sleep(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-c.s.stop:
	}
}

// work picks a configuration and a photo.
func (c *client) work() (string, photo) {
	configs := []string{"cutout", "cutout", "studio", "studio", "default_white"}
	return configs[c.rng.IntN(len(configs))], c.s.photos[c.rng.IntN(len(c.s.photos))]
}

func (c *client) processSync(ctx context.Context) {
	config, p := c.work()
	res, _ := c.do(ctx, request{op: "process (sync)", method: "POST", url: c.url("/v1/process/single/" + config),
		body: p.data, ctype: http.DetectContentType(p.data), success: []int{200}, expect: processRefusals,
		check: func(h http.Header, body []byte) string {
			if h.Get("X-Job-ID") == "" {
				return "no X-Job-ID"
			}
			return checkImage(h, body)
		}})
	if id := res.header.Get("X-Job-ID"); id != "" {
		c.s.jobs.sawSync(id, c.co)
	}
}

// jobRecord is the part of a job record the soak reads.
type jobRecord struct {
	ID       string     `json:"id"`
	Status   string     `json:"status"`
	Attempts int        `json:"attempts"`
	Href     string     `json:"href"`
	Error    *errorBody `json:"error"`
}

func checkJob(_ http.Header, body []byte) string {
	var j jobRecord
	if err := json.Unmarshal(body, &j); err != nil || j.ID == "" {
		return "not a job record"
	}
	switch j.Status {
	case "queued", "running", "succeeded":
	case "failed":
		if j.Error == nil || j.Error.ErrorCode == "" {
			return "a failed job without its error"
		}
	default:
		return fmt.Sprintf("job status %q", j.Status)
	}
	return ""
}

func (c *client) processAsync(ctx context.Context) {
	config, p := c.work()
	at := time.Now()
	res, a := c.do(ctx, request{op: "process (async)", method: "POST", url: c.url("/v1/process/single/" + config + "?async=true"),
		body: p.data, ctype: http.DetectContentType(p.data), success: []int{202}, expect: []string{"INSUFFICIENT_CREDITS"},
		check: func(h http.Header, body []byte) string {
			if why := checkJob(h, body); why != "" {
				return why
			}
			var j jobRecord
			json.Unmarshal(body, &j)
			if h.Get("Location") != j.Href {
				return "Location is not the job's href"
			}
			return ""
		}})
	if a.class == ok {
		c.acceptJob(res.body, at)
	}
}

// acceptJob books the job of a 202's body, for the follower to see end.
func (c *client) acceptJob(body []byte, at time.Time) {
	var j jobRecord
	json.Unmarshal(body, &j)
	c.s.jobs.accept(j.ID, c.co, at.Sub(c.s.ledger.t0))
}

func (c *client) listContent(ctx context.Context) {
	c.do(ctx, request{op: "list content", method: "GET", url: c.url("/v1/content/"), success: []int{200}, check: checkJSONArray})
}

func (c *client) getBackground(ctx context.Context) {
	r := request{op: "get content", method: "GET", url: c.url("/v1/content/backdrop"), success: []int{200}}
	if c.etag != "" {
		r.header = map[string]string{"If-None-Match": c.etag}
		r.success = []int{200, 304}
	}
	r.check = func(h http.Header, body []byte) string {
		if len(body) == 0 && r.header != nil {
			return "" // 304
		}
		return checkImage(h, body)
	}
	if res, a := c.do(ctx, r); a.class == ok && res.status == 200 {
		c.etag = res.header.Get("ETag")
	}
}

func (c *client) uploadScratch(ctx context.Context) {
	img, _ := poster(64, 64, color.NRGBA{uint8(c.rng.IntN(256)), 80, 160, 255})
	c.do(ctx, request{op: "upload content", method: "POST", url: c.url("/v1/content/upload/scratch/POSTER"),
		body: img, ctype: "image/png", success: []int{200, 201}, check: checkJSONObject})
}

func (c *client) deleteScratch(ctx context.Context) {
	c.do(ctx, request{op: "delete content", method: "DELETE", url: c.url("/v1/content/scratch"),
		success: []int{204}, expect: []string{"CONTENT_NOT_FOUND"}})
}

func (c *client) listConfigs(ctx context.Context) {
	c.do(ctx, request{op: "list configurations", method: "GET", url: c.url("/v1/configuration/"), success: []int{200}, check: checkJSONArray})
}

func (c *client) getConfig(ctx context.Context) {
	name := []string{"studio", "draft", "default_white"}[c.rng.IntN(3)]
	r := request{op: "get configuration", method: "GET", url: c.url("/v1/configuration/" + name), success: []int{200}, check: checkJSONObject}
	if name == "draft" {
		r.expect = []string{"CONFIGURATION_NOT_FOUND"} // another user of the company may have deleted it
	}
	c.do(ctx, r)
}

func (c *client) saveDraft(ctx context.Context) {
	body := fmt.Sprintf(studioConfig, 0.3+0.6*c.rng.Float64())
	c.do(ctx, request{op: "save configuration", method: "POST", url: c.url("/v1/configuration/draft"),
		body: []byte(body), ctype: "application/json", success: []int{200, 201}, check: checkJSONObject})
}

func (c *client) deleteDraft(ctx context.Context) {
	c.do(ctx, request{op: "delete configuration", method: "DELETE", url: c.url("/v1/configuration/draft"),
		success: []int{204}, expect: []string{"CONFIGURATION_NOT_FOUND"}})
}

func (c *client) listJobs(ctx context.Context) {
	c.do(ctx, request{op: "list jobs", method: "GET", url: c.url("/v1/process/jobs?limit=20"), success: []int{200}, check: checkJSONObject})
}

func (c *client) usage(ctx context.Context) {
	c.do(ctx, request{op: "usage", method: "GET", url: c.url("/v1/usage"), success: []int{200}, check: checkJSONObject})
}

func (c *client) renewOp(ctx context.Context) { c.renew(ctx) }

func (c *client) processors(ctx context.Context) {
	c.do(ctx, request{op: "processors", method: "GET", url: c.url("/v1/processors"), success: []int{200}, check: checkJSONArray})
}

// setup gives a company what its users' calls need: a background, a
// poster and the two configurations.
func (c *client) setup(ctx context.Context) error {
	bg, err := studioBackground(c.co.tint)
	if err != nil {
		return err
	}
	logo, err := poster(240, 90, color.NRGBA{20, 40, c.co.tint, 255})
	if err != nil {
		return err
	}
	steps := []request{
		{method: "POST", url: c.url("/v1/content/upload/backdrop/BACKGROUND_SIMPLE"), body: bg, ctype: "image/jpeg"},
		{method: "POST", url: c.url("/v1/content/upload/logo/POSTER"), body: logo, ctype: "image/png"},
		{method: "POST", url: c.url("/v1/configuration/cutout"), body: []byte(cutoutConfig), ctype: "application/json"},
		{method: "POST", url: c.url("/v1/configuration/studio"), body: []byte(fmt.Sprintf(studioConfig, 0.6)), ctype: "application/json"},
	}
	if err := c.setupSteps(ctx, steps); err != nil {
		return err
	}
	if c.co.bomb {
		return c.setupBombs(ctx)
	}
	return nil
}

// setupSteps makes each call in turn, waiting while the service pushes back.
func (c *client) setupSteps(ctx context.Context, steps []request) error {
	for _, r := range steps {
		r.op, r.success, r.check = "setup", []int{201}, checkJSONObject
		for try := 0; ; try++ {
			_, a := c.do(ctx, r)
			if a.class == ok {
				break
			}
			if a.class != pushback || try == 10 {
				return fmt.Errorf("setup of %s: %s %s: %d %s %s", c.co.name, r.method, r.url, a.status, a.code, a.why)
			}
		}
	}
	return nil
}

// asyncJob is a job accepted with 202, followed until it ends.
type asyncJob struct {
	id       string
	co       *company
	accepted time.Duration
	status   string // the last seen
	code     string // a failed job's errorCode
	done     bool   // its end and result were seen
}

// jobBook keeps the jobs the soak knows of: the accepted asynchronous ones
// and the synchronous ones that named their job.
type jobBook struct {
	mu    sync.Mutex
	async []*asyncJob
	sync  map[string]*company
}

func (b *jobBook) accept(id string, co *company, at time.Duration) {
	b.mu.Lock()
	b.async = append(b.async, &asyncJob{id: id, co: co, accepted: at, status: "queued"})
	b.mu.Unlock()
}

func (b *jobBook) sawSync(id string, co *company) {
	b.mu.Lock()
	b.sync[id] = co
	b.mu.Unlock()
}

// pending returns co's accepted jobs whose end has not been seen.
func (b *jobBook) pending(co *company) []*asyncJob {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []*asyncJob
	for _, j := range b.async {
		if j.co == co && !j.done {
			out = append(out, j)
		}
	}
	return out
}

// follow polls co's asynchronous jobs until each has ended and its result
// (or error) was fetched: during the traffic, and after it until every one
// has ended or ctx (the drain deadline) ends.
func (c *client) follow(ctx context.Context, clientsDone <-chan struct{}) {
	for ctx.Err() == nil {
		pending := c.s.jobs.pending(c.co)
		if len(pending) == 0 {
			select {
			case <-clientsDone:
				return
			default:
			}
		}
		for _, j := range pending {
			c.check(ctx, j)
		}
		t := time.NewTimer(c.s.cfg.pollEvery)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// check polls one job and, once it has ended, fetches its result: the
// image, or the failed job's own error.
func (c *client) check(ctx context.Context, j *asyncJob) {
	res, a := c.do(ctx, request{op: "job status", method: "GET", url: c.url("/v1/process/jobs/" + j.id), success: []int{200}, check: checkJob})
	if a.class != ok {
		return
	}
	var rec jobRecord
	json.Unmarshal(res.body, &rec)
	c.s.jobs.mu.Lock()
	j.status = rec.Status
	c.s.jobs.mu.Unlock()
	r := request{op: "job result", method: "GET", url: c.url("/v1/process/jobs/" + j.id + "/result"), success: []int{200}, check: checkImage}
	switch rec.Status {
	case "succeeded":
	case "failed":
		r.success, r.expect = nil, processRefusals
	default:
		return
	}
	if _, a := c.do(ctx, r); a.class == pushback {
		return // fetch it on the next round
	}
	c.s.jobs.mu.Lock()
	j.done = true
	if rec.Error != nil {
		j.code = rec.Error.ErrorCode
	}
	c.s.jobs.mu.Unlock()
}

// audit is what the service's own job list says at the end.
type audit struct {
	company    string
	jobs       int
	byStatus   map[string]int
	failedBy   map[string]int // errorCode of failed jobs
	retried    int            // attempts > 1: run again after a worker died or a run failed
	ids        map[string]bool
	incomplete string // why the list could not be read to its end
}

// audit reads the company's whole job list.
func (c *client) audit(ctx context.Context) audit {
	out := audit{company: c.co.name, byStatus: map[string]int{}, failedBy: map[string]int{}, ids: map[string]bool{}}
	next := "/v1/process/jobs?limit=200"
	for tries := 0; next != "" && tries < 100; tries++ {
		res, a := c.do(ctx, request{op: "list jobs (audit)", method: "GET", url: c.url(next), success: []int{200}, check: checkJSONObject})
		switch a.class {
		case pushback:
			continue
		case ok:
		default:
			out.incomplete = fmt.Sprintf("%d %s %s", a.status, a.code, a.why)
			return out
		}
		var page struct {
			Jobs []jobRecord `json:"jobs"`
			Next string      `json:"next"`
		}
		json.Unmarshal(res.body, &page)
		for _, j := range page.Jobs {
			out.jobs++
			out.byStatus[j.Status]++
			out.ids[j.ID] = true
			if j.Attempts > 1 {
				out.retried++
			}
			if j.Status == "failed" && j.Error != nil {
				out.failedBy[j.Error.ErrorCode]++
			}
		}
		next = page.Next
	}
	if next != "" {
		out.incomplete = "the list did not end"
	}
	return out
}

// userName is a company's i-th user.
func userName(co string, i int) string { return strings.ToLower(co) + "user" + fmt.Sprint(i) }
