package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/webhook"
)

// echo is a small real run for HTTP tests: the photo comes back as the
// result; default_transparent finds no car.
func echo(_ context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
	if j.Configuration == "default_transparent" {
		return nil, showroom.Errorf(showroom.ENoCarDetected, "no car was found in the photo")
	}
	return &river.Output{Image: photo, MediaType: "image/png", Timings: []showroom.Timing{{Name: "echo", Duration: time.Millisecond}}}, nil
}

// webhookEnv is a server whose queue runs echo and delivers webhooks
// quickly: 2 attempts 10 ms apart, 2 s each; alice is of acme, bob of beta.
func webhookEnv(t *testing.T, allowPrivate bool) (e *env, alice, bob map[string]string) {
	cfg := runnerConfig()
	cfg.Webhooks = webhook.Config{Workers: 2, MaxAttempts: 2, Timeout: 2 * time.Second, Backoff: 10 * time.Millisecond, AllowPrivate: allowPrivate}
	e = newEnvWith(t, library.DefaultConfig(), withRunner(cfg, echo))
	e.addUser("acme", "alice")
	e.addUser("beta", "bob")
	return e, e.bearer("alice"), e.bearer("bob")
}

// webhookBody is a company's webhook as the API answers it.
type webhookBody struct {
	URL                       *string `json:"url"`
	Secret                    string  `json:"secret"`
	SecretCreatedDate         int64   `json:"secretCreatedDate"`
	PreviousSecretExpiresDate *int64  `json:"previousSecretExpiresDate"`
	CreatedDate               int64   `json:"createdDate"`
	LastModifiedDate          int64   `json:"lastModifiedDate"`
}

func (r *response) webhook() webhookBody {
	r.t.Helper()
	var w webhookBody
	r.decode(&w)
	return w
}

func TestWebhookEndpoints(t *testing.T) {
	e, alice, bob := webhookEnv(t, false)
	e.do("GET", "/v1/webhook", nil, alice).wantError(404, showroom.EWebhookNotFound)
	e.do("DELETE", "/v1/webhook", nil, alice).wantError(404, showroom.EWebhookNotFound)
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer nonsense"}} {
		code := showroom.EUnauthorized
		if h != nil {
			code = showroom.EInvalidToken
		}
		e.do("GET", "/v1/webhook", nil, h).wantError(401, code)
		e.do("PUT", "/v1/webhook", rawJSON(`{"url":"https://hooks.example.com/a"}`), h).wantError(401, code)
		e.do("DELETE", "/v1/webhook", nil, h).wantError(401, code)
		e.do("POST", "/v1/webhook/secret", nil, h).wantError(401, code)
	}
	res := e.do("PATCH", "/v1/webhook", nil, alice)
	if res.wantError(405, showroom.EMethodNotAllowed); res.header.Get("Allow") != "DELETE, GET, HEAD, PUT" {
		t.Errorf("Allow %q", res.header.Get("Allow"))
	}

	// Bodies that are not {"url": "..."}.
	e.do("PUT", "/v1/webhook", strings.NewReader(`url=https://x.example`), with(alice, "Content-Type", "application/x-www-form-urlencoded")).
		wantError(415, showroom.EUnsupportedMedia)
	e.do("PUT", "/v1/webhook", rawJSON(`{"url":`), alice).wantError(400, showroom.EInvalidBody)
	e.do("PUT", "/v1/webhook", rawJSON(`["https://x.example"]`), alice).wantError(400, showroom.EInvalidBody)
	e.do("PUT", "/v1/webhook", strings.NewReader(`{"url":"https://x.example/`+strings.Repeat("a", 9000)+`"}`), alice).wantError(413, showroom.EPayloadTooLarge)
	for body, pointers := range map[string]string{
		`{}`:                                   "/url",
		`{"url": 5}`:                           "/url",
		`{"url": "https://x.example", "a": 1}`: "/a",
	} {
		res := e.do("PUT", "/v1/webhook", rawJSON(body), alice)
		res.wantError(400, showroom.EInvalidBody)
		if ptrs := detailPointers(res); ptrs != pointers {
			t.Errorf("PUT %s: details %s, want %s", body, ptrs, pointers)
		}
	}
	// URLs that are refused, each with a message that says why.
	for url, why := range map[string]string{
		"":                                    "is empty",
		"hooks.example.com/a":                 "absolute http or https",
		"ftp://hooks.example.com/a":           "absolute http or https",
		"https://user:pw@hooks.example.com/a": "user name or password",
		"https://hooks.example.com/a#frag":    "fragment",
		"https://hooks.example.com:99999/a":   "invalid port",
		"https:///a":                          "no host",
		"https://hooks.example.com/" + strings.Repeat("a", 2048): "at most 2048",
		"http://127.0.0.1:8080/hook":                             "127.0.0.1 is a loopback address, to which webhooks are not sent unless the service runs with --webhook-allow-private",
		"http://localhost:8080/hook":                             "localhost names this machine (a loopback address), to which webhooks are not sent unless the service runs with --webhook-allow-private",
		"https://hooks.localhost/a":                              "hooks.localhost names this machine",
		"http://[::1]/hook":                                      "::1 is a loopback address",
		"http://169.254.169.254/latest":                          "a link-local address",
		"https://10.0.0.7/hook":                                  "a private address",
		"https://[::ffff:192.168.1.1]/hook":                      "192.168.1.1 is a private address",
		"https://0.0.0.0/hook":                                   "the unspecified address",
		"https://224.0.0.1/hook":                                 "a multicast address",
		"https://100.64.1.1/hook":                                "not a public address",
	} {
		res := e.do("PUT", "/v1/webhook", jsonBody(map[string]string{"url": url}), alice)
		body := res.wantError(422, showroom.EInvalidCallbackURL)
		if msg, _ := body["message"].(string); !strings.Contains(msg, why) {
			t.Errorf("PUT url %q: message %q, want it to say %q", url, msg, why)
		}
		if ptrs := detailPointers(res); ptrs != "/url" {
			t.Errorf("PUT url %q: details %s", url, ptrs)
		}
	}
	e.do("GET", "/v1/webhook", nil, alice).wantError(404, showroom.EWebhookNotFound)

	// The first URL issues the secret, shown once.
	res = e.do("PUT", "/v1/webhook", rawJSON(`{"url":"https://hooks.example.com/a"}`), alice).wantStatus(201)
	first := res.webhook()
	if !strings.HasPrefix(first.Secret, "whsec_") || len(first.Secret) < 40 || first.URL == nil || *first.URL != "https://hooks.example.com/a" ||
		first.PreviousSecretExpiresDate != nil || res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("first PUT: %s (Cache-Control %q)", res.body, res.header.Get("Cache-Control"))
	}
	res = e.do("PUT", "/v1/webhook", rawJSON(`{"url":"https://hooks.example.com/b?token=x"}`), alice).wantStatus(200)
	if w := res.webhook(); w.Secret != "" || *w.URL != "https://hooks.example.com/b?token=x" || w.CreatedDate != first.CreatedDate {
		t.Errorf("second PUT: %s; want the URL changed, no secret shown", res.body)
	}
	if w := e.do("GET", "/v1/webhook", nil, alice).wantStatus(200).webhook(); w.Secret != "" || *w.URL != "https://hooks.example.com/b?token=x" {
		t.Errorf("GET: %+v", w)
	}
	e.do("GET", "/v1/webhook", nil, bob).wantError(404, showroom.EWebhookNotFound)

	// Rotation: a new secret, shown once; the old one signs for a day more.
	res = e.do("POST", "/v1/webhook/secret", nil, alice).wantStatus(200)
	rotated := res.webhook()
	if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.Secret == first.Secret || rotated.PreviousSecretExpiresDate == nil ||
		res.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("rotation: %s", res.body)
	}
	if d := time.Until(time.UnixMilli(*rotated.PreviousSecretExpiresDate)); d < 23*time.Hour || d > 25*time.Hour {
		t.Errorf("the old secret expires in %v, want a day", d)
	}
	if w := e.do("GET", "/v1/webhook", nil, alice).wantStatus(200).webhook(); w.PreviousSecretExpiresDate == nil || w.Secret != "" {
		t.Errorf("GET after rotation: %+v", w)
	}

	e.do("DELETE", "/v1/webhook", nil, alice).wantStatus(204)
	e.do("GET", "/v1/webhook", nil, alice).wantError(404, showroom.EWebhookNotFound)
	// A secret without a default URL: for callbackUrl on each request.
	res = e.do("POST", "/v1/webhook/secret", nil, bob).wantStatus(201)
	if w := res.webhook(); w.URL != nil || !strings.HasPrefix(w.Secret, "whsec_") {
		t.Errorf("bob's first secret: %s", res.body)
	}
}

// detailPointers lists an error body's detail pointers, comma-separated.
func detailPointers(r *response) string {
	var body struct {
		Details []showroom.Detail `json:"details"`
	}
	r.decode(&body)
	var ps []string
	for _, d := range body.Details {
		ps = append(ps, d.Pointer)
	}
	return strings.Join(ps, ",")
}

func TestProcessCallbackRefused(t *testing.T) {
	e, alice, _ := webhookEnv(t, false)
	photo := pngBytes(t, 16, 16)
	img := with(alice, "Content-Type", "image/png")
	process := func(query string) *response {
		return e.do("POST", "/v1/process/single/free_cutout?"+query, bytes.NewReader(photo), img)
	}
	body := process("callbackUrl=https://hooks.example.com/a").wantError(400, showroom.EInvalidParameter)
	if msg, _ := body["message"].(string); !strings.Contains(msg, "async=true") {
		t.Errorf("callbackUrl on a synchronous request: %q", msg)
	}
	process("async=true&callbackUrl=ftp://hooks.example.com/a").wantError(422, showroom.EInvalidCallbackURL)
	process("async=true&callbackUrl=http://192.168.0.10/a").wantError(422, showroom.EInvalidCallbackURL)
	process("async=true&callbackUrl=").wantError(422, showroom.EInvalidCallbackURL)
	process("async=true&callbackUrl=https://a.example&callbackUrl=https://b.example").wantError(400, showroom.EInvalidParameter)
	body = process("async=true&callbackUrl=https://hooks.example.com/a").wantError(409, showroom.EWebhookMissing)
	if msg, _ := body["message"].(string); !strings.Contains(msg, "POST /v1/webhook/secret") {
		t.Errorf("callback without a secret: %q", msg)
	}
	var jobs struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	e.do("GET", "/v1/process/jobs", nil, alice).wantStatus(200).decode(&jobs)
	if len(jobs.Jobs) != 0 {
		t.Errorf("refused requests made %d jobs", len(jobs.Jobs))
	}
}

// hookReceiver is a real HTTP server that takes deliveries: /fail answers
// 500, anything else 200.
type hookReceiver struct {
	*httptest.Server
	mu  sync.Mutex
	got []*http.Request
	bod [][]byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	rc := &hookReceiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got, rc.bod = append(rc.got, r), append(rc.bod, b)
		rc.mu.Unlock()
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// of returns the deliveries of job id, in order.
func (rc *hookReceiver) of(id string) (reqs []*http.Request, bodies [][]byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for i, r := range rc.got {
		if r.Header.Get("Showroom-Job-Id") == id {
			reqs, bodies = append(reqs, r), append(bodies, rc.bod[i])
		}
	}
	return reqs, bodies
}

// jobBody is the part of a job record these tests read.
type jobBody struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Callback *struct {
		URL             string `json:"url"`
		Status          string `json:"status"`
		Attempts        int    `json:"attempts"`
		LastStatusCode  *int   `json:"lastStatusCode"`
		LastError       string `json:"lastError"`
		LastAttemptDate *int64 `json:"lastAttemptDate"`
	} `json:"callback"`
}

// TestWebhookDelivered: an asynchronous job is POSTed, signed, to the
// company's URL or the request's, as GET shows it; its delivery is
// recorded on the job, a failed one too. A synchronous job has none.
func TestWebhookDelivered(t *testing.T) {
	e, alice, _ := webhookEnv(t, true)
	rc := newHookReceiver(t)
	secret := e.do("PUT", "/v1/webhook", jsonBody(map[string]string{"url": rc.URL + "/default"}), alice).wantStatus(201).webhook().Secret
	img := with(alice, "Content-Type", "image/png")
	submit := func(config, query string) jobBody {
		t.Helper()
		var j jobBody
		e.do("POST", "/v1/process/single/"+config+"?async=true"+query, bytes.NewReader(pngBytes(t, 16, 16)), img).wantStatus(202).decode(&j)
		return j
	}
	settled := func(id string) jobBody {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			var j jobBody
			e.do("GET", "/v1/process/jobs/"+id, nil, alice).wantStatus(200).decode(&j)
			if j.Callback == nil {
				t.Fatalf("job %s has no callback", id)
			}
			if j.Callback.Status != "pending" {
				return j
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s: delivery still pending", id)
			}
		}
	}

	byDefault := submit("free_cutout", "")
	if c := byDefault.Callback; c == nil || c.URL != rc.URL+"/default" || c.Status != "pending" || c.Attempts != 0 || c.LastStatusCode != nil || c.LastAttemptDate != nil {
		t.Fatalf("202 answer's callback: %+v", c)
	}
	named := submit("default_transparent", "&callbackUrl="+rc.URL+"/named%3Fref%3D7")
	failing := submit("free_cutout", "&callbackUrl="+rc.URL+"/fail")

	for _, c := range []struct {
		job           jobBody
		path, event   string
		status        string
		attempts, got int
		code          int
	}{
		{byDefault, "/default", "job.succeeded", "delivered", 1, 1, 200},
		{named, "/named", "job.failed", "delivered", 1, 1, 200},
		{failing, "/fail", "job.succeeded", "failed", 2, 2, 500},
	} {
		j := settled(c.job.ID)
		cb := j.Callback
		if cb.Status != c.status || cb.Attempts != c.attempts || cb.LastStatusCode == nil || *cb.LastStatusCode != c.code || cb.LastAttemptDate == nil {
			t.Errorf("%s: callback %+v", c.path, cb)
		}
		if (c.status == "failed") != (cb.LastError != "") {
			t.Errorf("%s: lastError %q", c.path, cb.LastError)
		}
		reqs, bodies := rc.of(j.ID)
		if len(reqs) != c.got {
			t.Fatalf("%s: the receiver got %d deliveries, want %d", c.path, len(reqs), c.got)
		}
		r, body := reqs[0], bodies[0]
		if r.Method != "POST" || r.URL.Path != c.path || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Showroom-Event") != c.event {
			t.Errorf("%s: %s %s, headers %v", c.path, r.Method, r.URL, r.Header)
		}
		if err := showroom.VerifyWebhook(r.Header.Get("Showroom-Signature"), body, secret, time.Now()); err != nil {
			t.Errorf("%s: signature %q: %v", c.path, r.Header.Get("Showroom-Signature"), err)
		}
		// The body is the job record as GET shows it, the delivery's state
		// as it was before that attempt.
		var sent, now map[string]any
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(e.do("GET", "/v1/process/jobs/"+j.ID, nil, alice).wantStatus(200).body, &now)
		if cb, _ := sent["callback"].(map[string]any); cb["status"] != "pending" || cb["attempts"] != float64(0) {
			t.Errorf("%s: delivered callback state %v", c.path, sent["callback"])
		}
		delete(sent, "callback")
		delete(now, "callback")
		if a, b := mustJSON(sent), mustJSON(now); a != b {
			t.Errorf("%s: delivered body\n%s\nis not the job record\n%s", c.path, a, b)
		}
	}
	if _, bodies := rc.of(named.ID); !strings.Contains(string(bodies[0]), `"errorCode":"NO_CAR_DETECTED"`) {
		t.Errorf("a failed job's delivery lacks its error: %s", bodies[0])
	}

	// A synchronous job gets its answer, not a callback.
	res := e.do("POST", "/v1/process/single/free_cutout", bytes.NewReader(pngBytes(t, 16, 16)), img).wantStatus(200)
	var sync jobBody
	e.do("GET", "/v1/process/jobs/"+res.header.Get("X-Job-ID"), nil, alice).wantStatus(200).decode(&sync)
	if sync.Callback != nil {
		t.Errorf("a synchronous job has a callback: %+v", sync.Callback)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestVerifierDocumented: docs/api.md's Go verifier is
// showroom.VerifyWebhook, word for word but for its name, so the
// documented check is the one the deliveries pass.
func TestVerifierDocumented(t *testing.T) {
	fn := func(file, name string) string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		start := strings.Index(s, "func "+name+"(")
		end := strings.Index(s[max(start, 0):], "\n}\n")
		if start < 0 || end < 0 {
			t.Fatalf("%s has no func %s", file, name)
		}
		return "func verify(" + s[start+len("func "+name+"("):start+end]
	}
	if doc, code := fn("../../docs/api.md", "verify"), fn("../showroom/webhook.go", "VerifyWebhook"); doc != code {
		t.Errorf("docs/api.md's verify differs from showroom.VerifyWebhook:\n%s\n---\n%s", doc, code)
	}
}
