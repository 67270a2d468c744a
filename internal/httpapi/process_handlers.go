package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/showroom"
)

// ConfigResolver finds the configuration a caller may run by name: a
// predefined one or the own of the company in ctx. Another company's is
// not found.
type ConfigResolver interface {
	Configuration(ctx context.Context, name string) (*showroom.Configuration, error)
}

// JobQueue runs processing jobs: what the processing endpoints ask of the
// queue.
type JobQueue interface {
	// Submit stores the photo and queues a job for it.
	Submit(ctx context.Context, s showroom.Submission) (*showroom.Job, error)
	// Wait waits until the job has finished and returns it.
	Wait(ctx context.Context, companyID int64, id string) (*showroom.Job, error)
	// Cancel gives up on a job whose client went away.
	Cancel(ctx context.Context, id string) error
	// Result opens a succeeded job's result.
	Result(ctx context.Context, j *showroom.Job) (io.ReadCloser, error)
}

// Processing is what the processing endpoints need.
type Processing struct {
	Queue   JobQueue
	Jobs    showroom.JobStore
	Configs ConfigResolver
	// MaxPhotoBytes bounds the photo's size.
	MaxPhotoBytes int64
	// MaxPixels bounds the photo's pixels, read from its header before the
	// job is queued (0: left to the worker's decoder alone).
	MaxPixels int
	// RateLimit limits processing requests per company, in buckets Limiter
	// keeps (needed unless RateLimit is off).
	RateLimit showroom.RateLimit
	Limiter   showroom.RateLimiter
	// Ready, when set, keeps /readyz at 503 while it fails: the model's
	// warm-up.
	Ready func(context.Context) error
	// Webhooks, when set, serves /v1/webhook and lets asynchronous
	// requests name a callbackUrl (webhook_handlers.go).
	Webhooks showroom.WebhookStore
	// WebhookAllowPrivate accepts callback URLs whose host is a loopback,
	// private or other non-public address.
	WebhookAllowPrivate bool
}

func (p *Processing) register(rt *router, authed func(handlerFunc) handlerFunc) {
	rt.handle("POST", "/v1/process/single/{configuration_name}", authed(p.process), "async", "format", "quality", "callbackUrl")
	rt.handle("GET", "/v1/process/jobs", authed(p.listJobs), "limit", "after")
	rt.handle("GET", "/v1/process/jobs/{id}", authed(p.getJob))
	rt.handle("GET", "/v1/process/jobs/{id}/result", authed(p.getResult))
	rt.handle("GET", "/v1/usage", authed(p.usage))
	if p.Webhooks != nil {
		p.registerWebhooks(rt, authed)
	}
}

// outputFormat reads ?format= or, without it, the Accept header. "" lets
// the pipeline choose (JPEG, or PNG when the result has transparency).
func outputFormat(r *http.Request) (string, error) {
	if f := r.URL.Query().Get("format"); f != "" {
		format, ok := codec.ParseFormat(f)
		if !ok {
			return "", showroom.Errorf(showroom.EInvalidParameter, "format %q is not one of jpeg, png, webp", f)
		}
		return string(format), nil
	}
	accept := r.Header.Get("Accept")
	if accept == "" {
		return "", nil
	}
	best, bestQ := "", -1.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q <= 0 {
			continue
		}
		f := "auto"
		if mt != "*/*" && mt != "image/*" {
			format, ok := codec.FormatOf(mt)
			if !ok {
				continue
			}
			f = string(format)
		}
		if q > bestQ {
			best, bestQ = f, q
		}
	}
	switch best {
	case "":
		return "", showroom.Errorf(showroom.ENotAcceptable, "results are image/jpeg, image/png or image/webp; the Accept header allows none of them")
	case "auto":
		return "", nil
	}
	return best, nil
}

func quality(r *http.Request) (int, error) {
	s := r.URL.Query().Get("quality")
	if s == "" {
		return 0, nil
	}
	q, err := strconv.Atoi(s)
	if err != nil || q < 1 || q > 100 {
		return 0, showroom.Errorf(showroom.EInvalidParameter, "quality must be a whole number from 1 to 100")
	}
	return q, nil
}

// wantsAsync reports whether the client asked not to wait.
func wantsAsync(r *http.Request) (bool, error) {
	if v := r.URL.Query().Get("async"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, showroom.Errorf(showroom.EInvalidParameter, "async must be true or false")
		}
		return b, nil
	}
	for _, pref := range r.Header.Values("Prefer") {
		for _, p := range strings.Split(pref, ",") {
			if strings.EqualFold(strings.TrimSpace(p), "respond-async") {
				return true, nil
			}
		}
	}
	return false, nil
}

// sniffPhoto reads the photo's first bytes and refuses anything that is not
// JPEG, PNG or WebP before it is stored or queued.
func sniffPhoto(body io.Reader) (io.Reader, error) {
	head := make([]byte, 16)
	n, err := io.ReadFull(body, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, err
	}
	head = head[:n]
	if n == 0 {
		return nil, showroom.Errorf(showroom.EInvalidBody, "the request body is empty; send the photo's bytes")
	}
	if _, ok := codec.Sniff(head); !ok {
		return nil, showroom.Errorf(showroom.EUnsupportedMedia, "the photo must be JPEG, PNG or WebP")
	}
	return io.MultiReader(bytes.NewReader(head), body), nil
}

// checkPhotoHeader reads the photo's size from its header and refuses,
// before anything is stored or queued, a photo too small to process or
// over the pixel limit, or a JPEG with no frame header, which no decoder
// reads: the answer is the same for a synchronous and an asynchronous
// request, and no worker's time goes to it. It reads as far as the header
// is, however much metadata a JPEG has before it (up to the upload limit
// body is bounded by); a PNG or WebP whose header it cannot find is left to
// the worker's decoder, which refuses what is broken. The reader returned
// gives the whole photo.
func checkPhotoHeader(body io.Reader, maxPixels int) (io.Reader, error) {
	head, h, ok, err := codec.ReadHeader(body)
	if err != nil {
		return nil, err
	}
	if ok {
		if err := showroom.CheckPhotoSize(h.Width, h.Height, maxPixels); err != nil {
			return nil, err
		}
	}
	return io.MultiReader(bytes.NewReader(head), body), nil
}

// process runs a photo through a configuration: at once, answering the
// result, or asynchronously, answering the accepted job. Every answer
// after the company is known carries the credits' headers, errors
// included, and the rate limit's once the configuration is found: a
// request for one the company does not have (404) spends none of its
// requests, as it asks nothing of the workers.
func (p *Processing) process(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	company := showroom.CompanyFromContext(ctx)
	config, err := p.Configs.Configuration(ctx, r.PathValue("configuration_name"))
	if err != nil {
		p.credits(ctx, w.Header(), company, nil)
		return err
	}
	if err := p.limit(ctx, w.Header(), company); err != nil {
		p.credits(ctx, w.Header(), company, nil)
		return err
	}
	job, async, err := p.run(w, r, company, config)
	if errors.Is(err, errClientGone) {
		return nil // nobody to answer
	}
	p.credits(ctx, w.Header(), company, job)
	if err != nil {
		return err
	}
	if async {
		w.Header().Set("Location", jobPath(job.ID))
		writeJSON(w, http.StatusAccepted, jobRecord(job))
		return nil
	}
	return p.writeResult(w, r, job)
}

// run submits the photo and, unless the client asked not to wait, waits
// for its job to finish. A synchronous job whose client went away is
// cancelled, rather than run for nobody.
func (p *Processing) run(w http.ResponseWriter, r *http.Request, company *showroom.Company, config *showroom.Configuration) (job *showroom.Job, async bool, err error) {
	ctx := r.Context()
	name := r.PathValue("configuration_name")
	format, err := outputFormat(r)
	if err != nil {
		return nil, false, err
	}
	q, err := quality(r)
	if err != nil {
		return nil, false, err
	}
	if async, err = wantsAsync(r); err != nil {
		return nil, false, err
	}
	callback, err := p.callbackURL(ctx, r, company, async)
	if err != nil {
		return nil, false, err
	}
	if r.ContentLength > p.MaxPhotoBytes {
		return nil, false, errTooLarge(p.MaxPhotoBytes)
	}
	photo, err := sniffPhoto(http.MaxBytesReader(w, r.Body, p.MaxPhotoBytes))
	if err != nil {
		return nil, false, bodyError(err, p.MaxPhotoBytes)
	}
	if photo, err = checkPhotoHeader(photo, p.MaxPixels); err != nil {
		return nil, false, bodyError(err, p.MaxPhotoBytes)
	}
	job, err = p.Queue.Submit(ctx, showroom.Submission{
		Company: company, User: showroom.PrincipalFromContext(ctx).Username, Name: name, Processors: config.Processors, Cost: int64(config.Cost),
		Format: format, Quality: q, Photo: photo, CallbackURL: callback,
	})
	if err != nil {
		return nil, false, bodyError(err, p.MaxPhotoBytes)
	}
	noteJob(ctx, job.ID)
	if async {
		return job, true, nil
	}
	done, err := p.Queue.Wait(ctx, company.ID, job.ID)
	if err != nil && ctx.Err() != nil {
		p.Queue.Cancel(context.WithoutCancel(ctx), job.ID)
		return nil, false, errClientGone
	}
	return done, false, err
}

// errClientGone is run's word that the client of a synchronous request
// went away while its job ran: the job is cancelled and nothing answered.
var errClientGone = errors.New("the client went away")

func (p *Processing) writeResult(w http.ResponseWriter, r *http.Request, j *showroom.Job) error {
	w.Header().Set("X-Job-ID", j.ID)
	if st := serverTiming(j.Timings); st != "" {
		w.Header().Set("Server-Timing", st)
	}
	if j.Status == showroom.JobFailed {
		return jobError(j)
	}
	if j.Status != showroom.JobSucceeded {
		return &showroom.Error{Code: showroom.EConflict, Message: fmt.Sprintf("job %s is %s; its result is not ready", j.ID, j.Status), RetryAfter: time.Second}
	}
	body, err := p.Queue.Result(r.Context(), j)
	if err != nil {
		return err
	}
	defer body.Close()
	if len(j.Warnings) > 0 {
		w.Header().Set(WarningsHeader, warningCodes(j.Warnings))
	}
	w.Header().Set("Content-Type", j.ResultType)
	w.Header().Set("Content-Length", strconv.FormatInt(j.ResultSize, 10))
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, body)
	}
	return nil
}

// WarningsHeader carries a result's warning codes, comma-separated (the
// job record has their messages); absent for a clean photo.
const WarningsHeader = "Showroom-Warnings"

// warningCodes is the WarningsHeader value for ws.
func warningCodes(ws []showroom.Warning) string {
	codes := make([]string, len(ws))
	for i, w := range ws {
		codes[i] = w.Code
	}
	return strings.Join(codes, ",")
}

// jobError is the error a failed job answers with.
func jobError(j *showroom.Job) error {
	if j.Error == nil {
		return showroom.Internal(fmt.Errorf("job %s failed without an error", j.ID))
	}
	return &showroom.Error{Code: j.Error.Code, Message: j.Error.Message}
}

// serverTiming formats timings for the Server-Timing header: each step by
// its name, as in the job record's timings. A name that comes again (a
// processor listed twice) says which run it is in its description, so that
// a browser's timing view tells the entries apart.
func serverTiming(ts []showroom.Timing) string {
	parts := make([]string, 0, len(ts))
	seen := make(map[string]int, len(ts))
	for _, t := range ts {
		seen[t.Name]++
		part := fmt.Sprintf("%s;dur=%.1f", t.Name, t.MS())
		if n := seen[t.Name]; n > 1 {
			part += fmt.Sprintf(";desc=\"run %d\"", n)
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}

func jobPath(id string) string { return "/v1/process/jobs/" + id }

// jobJSON is a job as the API shows it.
type jobJSON struct {
	ID            string            `json:"id"`
	Status        string            `json:"status"`
	Configuration string            `json:"configuration"`
	Company       string            `json:"company"`
	CreatedBy     string            `json:"createdBy"`
	Cost          int64             `json:"cost"`
	Attempts      int               `json:"attempts"`
	Format        string            `json:"format,omitempty"`
	CreatedDate   int64             `json:"createdDate"`
	StartedDate   *int64            `json:"startedDate"`
	FinishedDate  *int64            `json:"finishedDate"`
	Timings       []showroom.Timing `json:"timings"`
	// Warnings is always there: [] until the job succeeds, and for a
	// clean photo.
	Warnings []showroom.Warning `json:"warnings"`
	Result   *resultJSON        `json:"result,omitempty"`
	Error    *errorBody         `json:"error,omitempty"`
	Callback *jobCallback       `json:"callback,omitempty"`
	Href     string             `json:"href"`
}

type resultJSON struct {
	Href      string `json:"href"`
	MediaType string `json:"mediaType"`
	Size      int64  `json:"size"`
}

func msPtr(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	v := t.UnixMilli()
	return &v
}

func jobRecord(j *showroom.Job) jobJSON {
	out := jobJSON{
		ID: j.ID, Status: string(j.Status), Configuration: j.Configuration, Company: j.Company, CreatedBy: j.CreatedBy,
		Cost: j.Cost, Attempts: j.Attempts, Format: j.Format,
		CreatedDate: j.CreatedAt.UnixMilli(), StartedDate: msPtr(j.StartedAt), FinishedDate: msPtr(j.FinishedAt),
		Timings: append([]showroom.Timing{}, j.Timings...), Warnings: append([]showroom.Warning{}, j.Warnings...),
		Href: jobPath(j.ID), Callback: callbackRecord(j),
	}
	if j.Status == showroom.JobSucceeded {
		out.Result = &resultJSON{Href: jobPath(j.ID) + "/result", MediaType: j.ResultType, Size: j.ResultSize}
	}
	if j.Status == showroom.JobFailed && j.Error != nil {
		status := statusOf[j.Error.Code]
		if status == 0 {
			status = http.StatusInternalServerError
		}
		out.Error = &errorBody{Status: status, Reason: http.StatusText(status), ErrorCode: j.Error.Code,
			Message: j.Error.Message, Timestamp: j.FinishedAt.UnixMilli()}
	}
	return out
}

func (p *Processing) findJob(r *http.Request) (*showroom.Job, error) {
	c := showroom.CompanyFromContext(r.Context())
	j, err := p.Jobs.FindJob(r.Context(), c.ID, r.PathValue("id"))
	if err == nil {
		noteJob(r.Context(), j.ID)
	}
	return j, err
}

func (p *Processing) getJob(w http.ResponseWriter, r *http.Request) error {
	j, err := p.findJob(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, jobRecord(j))
	return nil
}

func (p *Processing) getResult(w http.ResponseWriter, r *http.Request) error {
	j, err := p.findJob(r)
	if err != nil {
		return err
	}
	return p.writeResult(w, r, j)
}

func (p *Processing) listJobs(w http.ResponseWriter, r *http.Request) error {
	c := showroom.CompanyFromContext(r.Context())
	limit := 50
	if s := r.URL.Query().Get("limit"); s != "" {
		var err error
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > 200 {
			return showroom.Errorf(showroom.EInvalidParameter, "limit must be a whole number from 1 to 200")
		}
	}
	jobs, err := p.Jobs.ListJobs(r.Context(), c.ID, r.URL.Query().Get("after"), limit+1)
	if err != nil {
		return err
	}
	page := struct {
		Jobs []jobJSON `json:"jobs"`
		Next string    `json:"next,omitempty"`
	}{Jobs: []jobJSON{}}
	for i, j := range jobs {
		if i == limit {
			page.Next = fmt.Sprintf("/v1/process/jobs?limit=%d&after=%s", limit, jobs[i-1].ID)
			break
		}
		page.Jobs = append(page.Jobs, jobRecord(j))
	}
	writeJSON(w, http.StatusOK, page)
	return nil
}

func (p *Processing) usage(w http.ResponseWriter, r *http.Request) error {
	c := showroom.CompanyFromContext(r.Context())
	u, err := p.Jobs.Usage(r.Context(), c.ID, 50)
	if err != nil {
		return err
	}
	type charge struct {
		JobID         string `json:"jobId"`
		Configuration string `json:"configuration"`
		Amount        int64  `json:"amount"`
		Date          int64  `json:"date"`
	}
	out := struct {
		Company   string   `json:"company"`
		Unlimited bool     `json:"unlimited"`
		Balance   *int64   `json:"balance"`
		Charges   []charge `json:"recentCharges"`
	}{Company: c.Name, Unlimited: u.Unlimited, Charges: []charge{}}
	if !u.Unlimited {
		out.Balance = &u.Balance
	}
	for _, ch := range u.Charges {
		out.Charges = append(out.Charges, charge{ch.JobID, ch.Configuration, ch.Amount, ch.CreatedAt.UnixMilli()})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// EnableProcessing adds the processing endpoints to the API.
func (s *APIServer) EnableProcessing(p *Processing) {
	p.register(s.rt, s.authed)
	if p.Ready != nil {
		s.AddReadyCheck("model", p.Ready)
	}
}
