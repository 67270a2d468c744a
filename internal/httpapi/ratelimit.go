package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// The headers of a processing answer besides the result: the rate limit's
// state in the fields of the IETF draft "RateLimit header fields for HTTP"
// (draft-ietf-httpapi-ratelimit-headers, the separate RateLimit-Limit,
// -Remaining and -Reset fields in whole seconds), and the credits.
const (
	hRateLimit     = "RateLimit-Limit"
	hRateRemaining = "RateLimit-Remaining"
	hRateReset     = "RateLimit-Reset"
	// hCreditsCharged is what this answer cost the company: the job's cost
	// when it succeeded, else 0 (an accepted asynchronous job is charged
	// when it succeeds, and its record says so).
	hCreditsCharged = "Showroom-Credits-Charged"
	// hCreditsBalance is the company's balance after the answer, or
	// "unlimited".
	hCreditsBalance = "Showroom-Credits-Balance"
)

// limit spends one of the company's processing requests and sets the
// RateLimit-* headers; with none left it returns TOO_MANY_REQUESTS. The
// bucket is the limiter's, shared by every api process on the database.
func (p *Processing) limit(ctx context.Context, h http.Header, company *showroom.Company) error {
	if p.RateLimit.Off() {
		return nil
	}
	q, err := p.Limiter.TakeRate(ctx, "process/"+strconv.FormatInt(company.ID, 10), p.RateLimit)
	if err != nil {
		return err
	}
	h.Set(hRateLimit, strconv.Itoa(q.Limit))
	h.Set(hRateRemaining, strconv.Itoa(q.Remaining))
	h.Set(hRateReset, strconv.FormatInt(ceilSeconds(q.Reset), 10))
	if !q.Allowed {
		return &showroom.Error{Code: showroom.ETooManyRequests, Message: "too many processing requests for this company; slow down", RetryAfter: q.RetryAfter}
	}
	return nil
}

// ceilSeconds rounds d up to whole seconds: a client that waits that long
// finds what the header promised.
func ceilSeconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }

// credits sets the credit headers of a processing answer whose job is j
// (nil when none was accepted). The balance is read after the job
// finished; when it cannot be read, the answer goes without it rather
// than lose a processed photo.
func (p *Processing) credits(ctx context.Context, h http.Header, company *showroom.Company, j *showroom.Job) {
	var charged int64
	if j != nil && j.Status == showroom.JobSucceeded {
		charged = j.Cost
	}
	h.Set(hCreditsCharged, strconv.FormatInt(charged, 10))
	u, err := p.Jobs.Usage(ctx, company.ID, 0)
	switch {
	case err != nil:
	case u.Unlimited:
		h.Set(hCreditsBalance, "unlimited")
	default:
		h.Set(hCreditsBalance, strconv.FormatInt(u.Balance, 10))
	}
}
