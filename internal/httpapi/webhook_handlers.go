package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// maxWebhookBody bounds PUT /v1/webhook's body: one URL.
const maxWebhookBody = 8 << 10

func (p *Processing) registerWebhooks(rt *router, authed func(handlerFunc) handlerFunc) {
	rt.handle("GET", "/v1/webhook", authed(p.getWebhook))
	rt.handle("PUT", "/v1/webhook", authed(p.putWebhook))
	rt.handle("DELETE", "/v1/webhook", authed(p.deleteWebhook))
	rt.handle("POST", "/v1/webhook/secret", authed(p.rotateWebhookSecret))
}

// webhookJSON is a company's webhook as the API shows it. The secret is
// shown only in the answer that issues it.
type webhookJSON struct {
	URL                       *string `json:"url"`
	Secret                    string  `json:"secret,omitempty"`
	SecretCreatedDate         int64   `json:"secretCreatedDate"`
	PreviousSecretExpiresDate *int64  `json:"previousSecretExpiresDate"`
	CreatedDate               int64   `json:"createdDate"`
	LastModifiedDate          int64   `json:"lastModifiedDate"`
}

func webhookRecord(w *showroom.Webhook, showSecret bool) webhookJSON {
	out := webhookJSON{SecretCreatedDate: w.SecretCreatedAt.UnixMilli(), CreatedDate: w.CreatedAt.UnixMilli(), LastModifiedDate: w.UpdatedAt.UnixMilli()}
	if w.URL != "" {
		out.URL = &w.URL
	}
	if w.PreviousSecret != "" && time.Now().Before(w.PreviousExpiresAt) {
		out.PreviousSecretExpiresDate = msPtr(w.PreviousExpiresAt)
	}
	if showSecret {
		out.Secret = w.Secret
	}
	return out
}

// writeWebhook answers w, 201 when this request created it and 200
// otherwise; an answer that shows the secret is not stored by caches.
func writeWebhook(rw http.ResponseWriter, w *showroom.Webhook, created, showSecret bool) {
	if showSecret {
		rw.Header().Set("Cache-Control", "no-store")
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(rw, status, webhookRecord(w, showSecret))
}

func (p *Processing) getWebhook(w http.ResponseWriter, r *http.Request) error {
	c := showroom.CompanyFromContext(r.Context())
	hook, err := p.Webhooks.FindWebhook(r.Context(), c.ID)
	if err != nil {
		return err
	}
	writeWebhook(w, hook, false, false)
	return nil
}

// putWebhook sets the company's default callback URL. The first one also
// issues the signing secret, shown in this answer only.
func (p *Processing) putWebhook(w http.ResponseWriter, r *http.Request) error {
	c := showroom.CompanyFromContext(r.Context())
	var body map[string]json.RawMessage
	if err := decodeJSON(w, r, maxWebhookBody, &body); err != nil {
		return err
	}
	var url string
	var details []showroom.Detail
	for k := range body {
		if k != "url" {
			details = append(details, showroom.Detail{Pointer: "/" + k, Problem: "is not a field of a webhook"})
		}
	}
	switch raw, ok := body["url"]; {
	case body == nil:
		return showroom.Errorf(showroom.EInvalidBody, `the body must be a JSON object: {"url": "https://..."}`)
	case !ok:
		details = append(details, showroom.Detail{Pointer: "/url", Problem: "is required"})
	case json.Unmarshal(raw, &url) != nil:
		details = append(details, showroom.Detail{Pointer: "/url", Problem: "must be a string"})
	}
	if len(details) > 0 {
		return &showroom.Error{Code: showroom.EInvalidBody, Message: `the body must be {"url": "https://..."}`, Details: details}
	}
	if err := showroom.CheckCallbackURL(url, p.WebhookAllowPrivate); err != nil {
		var e *showroom.Error
		if errors.As(err, &e) {
			e.Details = []showroom.Detail{{Pointer: "/url", Problem: e.Message}}
		}
		return err
	}
	hook := &showroom.Webhook{CompanyID: c.ID, URL: url, Secret: showroom.NewWebhookSecret(), UpdatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	created, err := p.Webhooks.PutWebhook(r.Context(), hook)
	if err != nil {
		return err
	}
	writeWebhook(w, hook, created, created)
	return nil
}

func (p *Processing) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	c := showroom.CompanyFromContext(r.Context())
	if err := p.Webhooks.DeleteWebhook(r.Context(), c.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// rotateWebhookSecret issues a new signing secret, shown in this answer
// only; the old one keeps signing beside it for WebhookSecretGrace.
func (p *Processing) rotateWebhookSecret(w http.ResponseWriter, r *http.Request) error {
	c := showroom.CompanyFromContext(r.Context())
	hook, created, err := p.Webhooks.RotateWebhookSecret(r.Context(), c.ID, showroom.NewWebhookSecret(), time.Now().UTC().Truncate(time.Millisecond))
	if err != nil {
		return err
	}
	writeWebhook(w, hook, created, true)
	return nil
}

// callbackURL is where an asynchronous job is POSTed when it finishes: the
// request's callbackUrl, else the company's default URL, else nowhere. A
// synchronous request gets its answer in the response and no callback.
func (p *Processing) callbackURL(ctx context.Context, r *http.Request, company *showroom.Company, async bool) (string, error) {
	named := r.URL.Query().Has("callbackUrl")
	switch {
	case named && !async:
		return "", showroom.Errorf(showroom.EInvalidParameter,
			"callbackUrl is for asynchronous requests: add async=true or the header Prefer: respond-async")
	case !async:
		return "", nil
	}
	url := r.URL.Query().Get("callbackUrl")
	if named {
		if err := showroom.CheckCallbackURL(url, p.WebhookAllowPrivate); err != nil {
			return "", err
		}
	}
	var hook *showroom.Webhook
	var err error = showroom.Errorf(showroom.EWebhookNotFound, "the company has no webhook")
	if p.Webhooks != nil {
		hook, err = p.Webhooks.FindWebhook(ctx, company.ID)
	}
	switch {
	case showroom.ErrorCode(err) == showroom.EWebhookNotFound && named:
		return "", showroom.Errorf(showroom.EWebhookMissing,
			"the company has no webhook secret to sign the callback with; create one with POST /v1/webhook/secret")
	case showroom.ErrorCode(err) == showroom.EWebhookNotFound:
		return "", nil
	case err != nil:
		return "", err
	case named:
		return url, nil
	}
	return hook.URL, nil
}

// jobCallback is a job's callback as the job record shows it.
type jobCallback struct {
	URL             string `json:"url"`
	Status          string `json:"status"`
	Attempts        int    `json:"attempts"`
	LastStatusCode  *int   `json:"lastStatusCode"`
	LastError       string `json:"lastError,omitempty"`
	LastAttemptDate *int64 `json:"lastAttemptDate"`
}

func callbackRecord(j *showroom.Job) *jobCallback {
	if j.CallbackURL == "" || j.Delivery == nil {
		return nil
	}
	d := j.Delivery
	out := &jobCallback{URL: j.CallbackURL, Status: string(d.Status), Attempts: d.Attempts, LastError: d.LastError,
		LastAttemptDate: msPtr(d.LastAttemptAt)}
	if d.LastStatusCode != 0 {
		out.LastStatusCode = &d.LastStatusCode
	}
	return out
}

// JobJSON is the job record exactly as GET /v1/process/jobs/{id} answers
// it: the body of the job's webhook delivery.
func JobJSON(j *showroom.Job) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jobRecord(j)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
