package river_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/webhook"
)

// delivery is one request a receiver got.
type delivery struct {
	path   string
	header http.Header
	body   []byte
}

// receiver is a real HTTP server that answers deliveries by path: /ok
// 204, /flaky 500 twice and then 200, /down 503, /moved a redirect to
// /target, /slow no answer until the client gives up.
type receiver struct {
	*httptest.Server
	mu   sync.Mutex
	got  []delivery
	hits map[string]int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{hits: map[string]int{}}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, delivery{r.URL.Path, r.Header.Clone(), body})
		rc.hits[r.URL.Path]++
		n := rc.hits[r.URL.Path]
		rc.mu.Unlock()
		switch r.URL.Path {
		case "/ok":
			w.WriteHeader(http.StatusNoContent)
		case "/flaky":
			if n <= 2 {
				w.WriteHeader(http.StatusInternalServerError)
			}
		case "/down":
			w.WriteHeader(http.StatusServiceUnavailable)
		case "/moved":
			http.Redirect(w, r, "/target", http.StatusFound)
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}))
	t.Cleanup(rc.Close)
	return rc
}

// of returns what the receiver got for job id.
func (rc *receiver) of(id string) []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []delivery
	for _, d := range rc.got {
		if d.header.Get("Showroom-Job-Id") == id {
			out = append(out, d)
		}
	}
	return out
}

func webhookConfig(allowPrivate bool) river.Config {
	cfg := testConfig()
	cfg.Webhooks = webhook.Config{Workers: 4, MaxAttempts: 3, Timeout: 300 * time.Millisecond, Backoff: 20 * time.Millisecond, AllowPrivate: allowPrivate}
	return cfg
}

// submitTo submits a job of config with a callback URL.
func (f *fixture) submitTo(t *testing.T, config, callback string) *showroom.Job {
	t.Helper()
	j, err := f.q.Submit(context.Background(), showroom.Submission{
		Company: f.co, User: "alice", Name: config, CallbackURL: callback,
		Processors: []byte(`[{"processorName":"DetectCarMaskProcessor"}]`), Photo: strings.NewReader(string(photo())),
	})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// delivered waits until job id's delivery is no longer pending.
func (f *fixture) delivered(t *testing.T, id string) *showroom.Job {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		j, err := f.db.FindJob(context.Background(), f.co.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Delivery == nil {
			t.Fatalf("job %s has no delivery", id)
		}
		if j.Delivery.Status != showroom.DeliveryPending {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s: delivery still pending: %+v", id, j.Delivery)
		}
	}
}

func TestWebhookDelivery(t *testing.T) { onBoth(t, testWebhookDelivery) }

func testWebhookDelivery(t *testing.T, on backend) {
	ctx := context.Background()
	f := newFixture(t, on, webhookConfig(true))
	rc := newReceiver(t)
	if _, _, err := f.db.RotateWebhookSecret(ctx, f.co.ID, "whsec_first", time.Now()); err != nil {
		t.Fatal(err)
	}
	ok := f.submitTo(t, "ok", rc.URL+"/ok")
	nocar := f.submitTo(t, "nocar", rc.URL+"/ok?from=nocar")
	flaky := f.submitTo(t, "ok", rc.URL+"/flaky")
	down := f.submitTo(t, "ok", rc.URL+"/down")
	moved := f.submitTo(t, "ok", rc.URL+"/moved")
	slow := f.submitTo(t, "ok", rc.URL+"/slow")

	for _, c := range []struct {
		job      *showroom.Job
		status   showroom.DeliveryStatus
		attempts int
		code     int
		err      string
	}{
		{ok, showroom.DeliveryDelivered, 1, 204, ""},
		{nocar, showroom.DeliveryDelivered, 1, 204, ""},
		{flaky, showroom.DeliveryDelivered, 3, 200, ""},
		{down, showroom.DeliveryFailed, 3, 503, "the receiver answered 503 Service Unavailable"},
		{moved, showroom.DeliveryFailed, 3, 302, "the receiver answered 302 Found"},
		{slow, showroom.DeliveryFailed, 3, 0, "no answer within 300ms"},
	} {
		j := f.delivered(t, c.job.ID)
		d := j.Delivery
		if d.Status != c.status || d.Attempts != c.attempts || d.LastStatusCode != c.code || d.LastError != c.err || d.LastAttemptAt.IsZero() {
			t.Errorf("%s: delivery %+v; want %s after %d attempts, last answer %d, error %q", j.CallbackURL, d, c.status, c.attempts, c.code, c.err)
		}
		if got := len(rc.of(j.ID)); got != c.attempts {
			t.Errorf("%s: the receiver got %d requests, want %d", j.CallbackURL, got, c.attempts)
		}
	}
	rc.mu.Lock()
	if rc.hits["/target"] != 0 {
		t.Errorf("a redirect was followed")
	}
	rc.mu.Unlock()

	// What a receiver gets: the job as rendered, signed, with its event.
	for _, c := range []struct {
		job   *showroom.Job
		event string
	}{{ok, "job.succeeded"}, {nocar, "job.failed"}} {
		d := rc.of(c.job.ID)[0]
		if d.header.Get("Content-Type") != "application/json" || d.header.Get("Showroom-Event") != c.event {
			t.Errorf("headers %v; want JSON and Showroom-Event %s", d.header, c.event)
		}
		want := `{"id":"` + c.job.ID + `","status":"` + strings.TrimPrefix(c.event, "job.") + `"}`
		if string(d.body) != want {
			t.Errorf("body %s, want %s", d.body, want)
		}
		sig := d.header.Get("Showroom-Signature")
		if err := showroom.VerifyWebhook(sig, d.body, "whsec_first", time.Now()); err != nil {
			t.Errorf("signature %q: %v", sig, err)
		}
		if err := showroom.VerifyWebhook(sig, d.body, "whsec_other", time.Now()); err == nil {
			t.Errorf("signature %q verifies with the wrong secret", sig)
		}
		if err := showroom.VerifyWebhook(sig, append(d.body, ' '), "whsec_first", time.Now()); err == nil {
			t.Errorf("signature %q verifies a changed body", sig)
		}
		if err := showroom.VerifyWebhook(sig, d.body, "whsec_first", time.Now().Add(10*time.Minute)); err == nil {
			t.Errorf("signature %q verifies ten minutes later", sig)
		}
	}

	// After a rotation both secrets sign, for the grace period.
	if _, _, err := f.db.RotateWebhookSecret(ctx, f.co.ID, "whsec_second", time.Now()); err != nil {
		t.Fatal(err)
	}
	rotated := f.submitTo(t, "ok", rc.URL+"/ok")
	f.delivered(t, rotated.ID)
	d := rc.of(rotated.ID)[0]
	sig := d.header.Get("Showroom-Signature")
	if strings.Count(sig, "v1=") != 2 {
		t.Errorf("signature during the grace period %q: want two v1", sig)
	}
	for _, secret := range []string{"whsec_first", "whsec_second"} {
		if err := showroom.VerifyWebhook(sig, d.body, secret, time.Now()); err != nil {
			t.Errorf("signature with %s: %v", secret, err)
		}
	}

	// A company that deleted its webhook has nothing to sign with: the
	// delivery fails at once.
	if err := f.db.DeleteWebhook(ctx, f.co.ID); err != nil {
		t.Fatal(err)
	}
	orphan := f.submitTo(t, "ok", rc.URL+"/ok")
	if d := f.delivered(t, orphan.ID).Delivery; d.Status != showroom.DeliveryFailed || d.Attempts != 1 || !strings.Contains(d.LastError, "deleted") {
		t.Errorf("delivery without a webhook: %+v", d)
	}
	if len(rc.of(orphan.ID)) != 0 {
		t.Errorf("an unsigned delivery was sent")
	}
}

// TestWebhookRefusesPrivateAddresses: without AllowPrivate a delivery is
// not sent to a name that resolves to a loopback address; the address
// dialled is checked, not the name. The job's lastError says why in words,
// without the address the name resolved to or the server's resolver's
// (issue 25 item 10: Go's net errors print both), for a private address
// and a name that does not resolve alike.
func TestWebhookRefusesPrivateAddresses(t *testing.T) {
	f := newFixture(t, backends[0], webhookConfig(false))
	rc := newReceiver(t)
	if _, _, err := f.db.RotateWebhookSecret(context.Background(), f.co.ID, "whsec_x", time.Now()); err != nil {
		t.Fatal(err)
	}
	port := rc.URL[strings.LastIndex(rc.URL, ":")+1:]
	address := regexp.MustCompile(`\d+\.\d+\.\d+\.\d+|::1|\[|:\d+`)
	for _, tc := range []struct{ name, url, want string }{
		{"a name resolving to loopback", "http://localhost:" + port + "/ok",
			"the callback URL's host is not a public address; webhooks are sent to public addresses only"},
		{"a name that does not resolve", "http://nothing.invalid:" + port + "/ok",
			"the callback URL's host could not be resolved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := f.submitTo(t, "ok", tc.url)
			d := f.delivered(t, j.ID).Delivery
			if d.Status != showroom.DeliveryFailed || d.Attempts != 3 || d.LastStatusCode != 0 || d.LastError != tc.want {
				t.Errorf("delivery: %+v\nwant lastError %q", d, tc.want)
			}
			if a := address.FindString(d.LastError); a != "" {
				t.Errorf("lastError %q names an address (%s)", d.LastError, a)
			}
		})
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if len(rc.got) != 0 {
		t.Errorf("the receiver on a loopback address got %d requests", len(rc.got))
	}
}
