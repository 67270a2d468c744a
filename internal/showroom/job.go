package showroom

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// JobStatus is where a processing job is in its life.
type JobStatus string

// The statuses a job passes through: queued → running → succeeded or
// failed. A job whose worker died goes from running back to running when it
// is retried.
const (
	JobQueued    JobStatus = "queued"
	JobRunning   JobStatus = "running"
	JobSucceeded JobStatus = "succeeded"
	JobFailed    JobStatus = "failed"
)

// Job is one run of a configuration on a photo. The configuration is copied
// into the job when it is accepted, so that editing the configuration later
// does not change what a queued job does.
type Job struct {
	ID            string
	CompanyID     int64
	Company       string
	CreatedBy     string
	Configuration string          // the configuration's name
	Processors    json.RawMessage // the configuration's processors as accepted
	Cost          int64
	Format        string // requested output format; "" = automatic
	Quality       int    // 0 = default
	Status        JobStatus
	Priority      int // place in the fair order between companies, set on admission (JobPriority); lower runs first
	Attempts      int
	InputKey      string // blob key of the photo
	ResultKey     string // blob key of the result, once succeeded
	ResultType    string // media type of the result
	ResultSize    int64
	Error         *JobError
	Timings       []Timing
	// Warnings are what a dealer should check in a succeeded job's result
	// (cut by the frame, low confidence...); empty for a clean photo.
	Warnings   []Warning
	CreatedAt  time.Time
	StartedAt  time.Time
	FinishedAt time.Time
	// CallbackURL is where the job record is POSTed when the job finishes
	// ("" for nowhere); Delivery, set with it, is how that went.
	CallbackURL string
	Delivery    *WebhookDelivery
}

// JobError is why a job failed, as the client would have been told.
type JobError struct {
	Code    string `json:"errorCode"`
	Message string `json:"message"`
}

// Warning is something about a result a person should look at before
// publishing it: the photo's fault, not a failure. Code is one of the
// Warn* constants, a fixed set (the metrics count them by code); Message
// says it for a person.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// WarningsJSON is how a store keeps a job's warnings: as the API shows
// them, "[]" for none.
func WarningsJSON(ws []Warning) string {
	if len(ws) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ws)
	return string(b)
}

// ParseWarnings reads what WarningsJSON wrote, never nil: a job has none
// until it succeeds.
func ParseWarnings(s string) []Warning {
	out := []Warning{}
	json.Unmarshal([]byte(s), &out)
	return out
}

// Warning codes, in the order a run finds them.
const (
	// WarnCarCutByFrame: the car's outline runs along the photo's border.
	WarnCarCutByFrame = "CAR_CUT_BY_FRAME"
	// WarnLowConfidence: the model was not sure it found one car.
	WarnLowConfidence = "LOW_CONFIDENCE"
	// WarnCarSmallInPhoto: the car was enlarged more than twice to fill
	// its canvas, so the result is soft.
	WarnCarSmallInPhoto = "CAR_SMALL_IN_PHOTO"
	// WarnTilted: the line through the tyres' contact points is not level.
	WarnTilted = "TILTED"
	// WarnWindowsNotFound: the configuration treats the windows, but no
	// window glass was found, so they are left as photographed.
	WarnWindowsNotFound = "WINDOWS_NOT_FOUND"
	// WarnBackgroundEnlarged: the company's background image was enlarged
	// more than twice to cover the canvas, so it may look soft.
	WarnBackgroundEnlarged = "BACKGROUND_ENLARGED"
)

// WarningCodes are every warning code, for metrics and docs.
var WarningCodes = []string{WarnCarCutByFrame, WarnLowConfidence, WarnCarSmallInPhoto, WarnTilted, WarnWindowsNotFound, WarnBackgroundEnlarged}

// Timing is how long one step of a run took. In JSON, the job record's and
// the stores' alike, it is {"name": ..., "ms": ...}: milliseconds with a
// fraction, to the microsecond.
type Timing struct {
	Name     string
	Duration time.Duration
}

// timingJSON is Timing's one JSON shape.
type timingJSON struct {
	Name string  `json:"name"`
	MS   float64 `json:"ms"`
}

// MS is the duration in milliseconds, to the microsecond.
func (t Timing) MS() float64 { return float64(t.Duration.Microseconds()) / 1000 }

// MarshalJSON implements json.Marshaler.
func (t Timing) MarshalJSON() ([]byte, error) { return json.Marshal(timingJSON{t.Name, t.MS()}) }

// UnmarshalJSON implements json.Unmarshaler.
func (t *Timing) UnmarshalJSON(b []byte) error {
	var v timingJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = Timing{Name: v.Name, Duration: time.Duration(v.MS * float64(time.Millisecond))}
	return nil
}

// TimingsJSON is how the stores keep a job's timings: "[]" for none.
func TimingsJSON(ts []Timing) string {
	if len(ts) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(ts)
	return string(b)
}

// ParseTimings reads what TimingsJSON wrote, never nil.
func ParseTimings(s string) []Timing {
	out := []Timing{}
	json.Unmarshal([]byte(s), &out)
	return out
}

// Charge is one debit of a company's credits for a succeeded job.
type Charge struct {
	JobID         string
	Configuration string
	Amount        int64
	CreatedAt     time.Time
}

// Usage is a company's credit balance and recent charges.
type Usage struct {
	Unlimited bool
	Balance   int64 // meaningful unless Unlimited
	Charges   []Charge
}

// JobStore keeps jobs and credits. A store also puts each job it admits
// into the job queue, in the transaction that stores the job, so that a
// crash never leaves a job the queue does not know (and that would hold a
// place in the queue for good) nor a queued run without its job.
type JobStore interface {
	// CreateJob stores j as queued with its Priority set and enqueues it,
	// unless limits refuses it (EServiceOverloaded) or the company's
	// balance is below j.Cost (EInsufficientCredits). Counting the jobs,
	// setting the priority, storing j and enqueueing it are one step:
	// concurrent calls never admit more than limits allow nor give two jobs
	// the same place, and a job that could not be enqueued is not stored.
	CreateJob(ctx context.Context, j *Job, limits Admission) error
	FindJob(ctx context.Context, companyID int64, id string) (*Job, error)
	// ListJobs returns a company's jobs, newest first, starting after the
	// job with ID after ("" for the first page).
	ListJobs(ctx context.Context, companyID int64, after string, limit int) ([]*Job, error)
	// StartJob marks j running and counts an attempt. It returns the job as
	// stored; a job already succeeded or failed is returned unchanged, and
	// so is a queued one whose company has maxRunning jobs running already
	// (maxRunning > 0), in every process: counting and starting are one
	// step, so concurrent starts never run more of a company's jobs than
	// that. A job running already (a retry) is started again regardless.
	StartJob(ctx context.Context, id string, at time.Time, maxRunning int) (*Job, error)
	// RequeueJob puts a running job back in the queue and uncounts the
	// attempt StartJob counted: its run could not begin (the blob store
	// did not answer). A job that is not running is left as it is.
	RequeueJob(ctx context.Context, id string) error
	// SucceedJob records the result and charges the job's cost, exactly once
	// however often it is called (a run retried after a crash calls it
	// again, and a rescued job may be run by two workers at once). When the
	// balance no longer covers the cost it fails the job with
	// EInsufficientCredits instead. finished reports whether this call
	// finished the job, either way: false when an earlier call, or a
	// failure or cancellation, had; only the call that finished it counts
	// it in the metrics.
	SucceedJob(ctx context.Context, j *Job) (finished bool, err error)
	// FailJob records a failure of a job that has not finished; finished
	// reports whether this call finished it (false when it had finished
	// before, or does not exist), as for SucceedJob.
	//
	// SucceedJob and FailJob, when they finish a job that has a callback
	// URL, enqueue its webhook delivery in the same transaction.
	FailJob(ctx context.Context, id string, jerr *JobError, timings []Timing, at time.Time) (finished bool, err error)
	// CountActiveJobs counts queued and running jobs: of all companies, and
	// of the company companyID (0 when companyID is 0).
	CountActiveJobs(ctx context.Context, companyID int64) (all, company int, err error)
	// DeleteJobsFinishedBefore removes finished jobs and returns their blob
	// keys, for the caller to delete.
	DeleteJobsFinishedBefore(ctx context.Context, t time.Time, limit int) (keys []string, err error)

	// SetCredits sets a company's balance; nil makes it unlimited.
	SetCredits(ctx context.Context, companyID int64, balance *int64) error
	// AddCredits adds n (which may be negative) to a finite balance.
	AddCredits(ctx context.Context, companyID int64, n int64) error
	Usage(ctx context.Context, companyID int64, recent int) (*Usage, error)
}

// Submission is a photo to run through a configuration: what a client
// sends, before it is a Job.
type Submission struct {
	Company    *Company
	User       string
	Name       string          // configuration name
	Processors json.RawMessage // the configuration's processors
	Cost       int64
	Format     string
	Quality    int
	Photo      io.Reader // the photo's bytes, already size-limited by the caller
	// CallbackURL, when set, is where the finished job is POSTed.
	CallbackURL string
}

// Admission bounds the jobs queued or running at once. The company share
// keeps one company's flood from filling the queue for everybody: beyond
// it that company is refused while others are still admitted.
type Admission struct {
	// MaxQueued bounds all companies' jobs; 0 is no bound.
	MaxQueued int
	// CompanyShare bounds one company's jobs; 0 is no bound.
	CompanyShare int
}

// Admit returns nil when a job may join all jobs queued or running, own of
// them its company's, and otherwise the SERVICE_OVERLOADED error to answer.
func (a Admission) Admit(all, own int) error {
	switch {
	case a.CompanyShare > 0 && own >= a.CompanyShare:
		return &Error{Code: EServiceOverloaded, RetryAfter: 5 * time.Second, Message: fmt.Sprintf(
			"this company's share of the processing queue is full (%d jobs queued or running); try again when one has finished", a.CompanyShare)}
	case a.MaxQueued > 0 && all >= a.MaxQueued:
		return &Error{Code: EServiceOverloaded, RetryAfter: 5 * time.Second, Message: "the processing queue is full; try again shortly"}
	}
	return nil
}

// Job priorities: the job queue runs lower ones first, and it knows four
// (River's range, on SQLite and PostgreSQL alike).
const (
	JobPriorityFirst = 1
	JobPriorityLast  = 4
)

// JobPriority is the priority of a company's new job when ahead of the
// company's jobs are queued or running and waiting is the largest priority
// among its queued ones (0 when none waits). A company's first job gets the
// first priority and each job ahead puts the new one a step later, down to
// the last: a company with one photo in the queue is served before the
// backlog of one that sent fifty. A new job never goes before its own
// company's queued ones, so each company's jobs start in the order it sent
// them (a retried one apart).
func JobPriority(ahead, waiting int) int {
	return max(min(JobPriorityFirst+ahead, JobPriorityLast), waiting, JobPriorityFirst)
}

// MinPhotoSide is the least width and height of a photo that can be
// processed.
const MinPhotoSide = 8

// DefaultMaxPixels is the default bound on an image's pixels (width x
// height), photo or content: 60 megapixels, past the largest phone and
// most camera photos. The decoder (codec), the library and the flags all
// take it from here.
const DefaultMaxPixels = 60_000_000

// DefaultMaxBytes is the default bound on the memory one decode takes,
// from its header: 256 MiB holds a 60-megapixel 8-bit photo (240 MB as
// RGBA), but not a 16-bit PNG or a progressive JPEG that large.
const DefaultMaxBytes = 256 << 20

// CheckPhotoSize refuses a photo of w×h pixels that cannot be processed:
// under MinPhotoSide on a side (INVALID_IMAGE), or over maxPixels pixels
// when maxPixels > 0 (PAYLOAD_TOO_LARGE, as an upload over the limit is).
// Both come from the photo's header, before any pixel is decoded.
func CheckPhotoSize(w, h, maxPixels int) error {
	if w < MinPhotoSide || h < MinPhotoSide {
		return Errorf(EInvalidImage, "the photo is %dx%d; each side must be at least %d pixels", w, h, MinPhotoSide)
	}
	if maxPixels > 0 && int64(w)*int64(h) > int64(maxPixels) {
		return Errorf(EPayloadTooLarge, "the photo is %dx%d, %.1f megapixels; at most %.1f are accepted",
			w, h, float64(w)*float64(h)/1e6, float64(maxPixels)/1e6)
	}
	return nil
}

// InsufficientCredits is the error of a job whose cost is over the
// company's balance, worded the same by every store.
func InsufficientCredits(cost, balance int64) *Error {
	unit := "credits"
	if cost == 1 {
		unit = "credit"
	}
	return Errorf(EInsufficientCredits, "this configuration costs %d %s and the balance is %d", cost, unit, balance)
}
