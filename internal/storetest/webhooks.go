package storetest

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// WebhooksStore is what the webhook conformance suite needs: webhooks,
// jobs that carry callbacks, and companies to own them.
type WebhooksStore interface {
	showroom.WebhookStore
	JobsStore
}

// Webhooks runs the conformance suite of showroom.WebhookStore, and of the
// job store's part in deliveries. deliveries returns the ids of the jobs
// whose webhook delivery s's job queue holds, once per queued delivery.
func Webhooks(t *testing.T, newStore func(t *testing.T) WebhooksStore, deliveries func(t *testing.T, s WebhooksStore) []string) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	t.Run("put, find, rotate, delete", func(t *testing.T) {
		s := newStore(t)
		a, b := mustCompany(t, s, "a"), mustCompany(t, s, "b")
		wantCode(t, "find before any", showroom.EWebhookNotFound, func() error { _, err := s.FindWebhook(ctx, a.ID); return err }())
		wantCode(t, "delete before any", showroom.EWebhookNotFound, s.DeleteWebhook(ctx, a.ID))

		w := &showroom.Webhook{CompanyID: a.ID, URL: "https://a.example/hook", Secret: "whsec_one", UpdatedAt: now}
		created, err := s.PutWebhook(ctx, w)
		if err != nil || !created || w.Secret != "whsec_one" || !w.CreatedAt.Equal(now) || !w.SecretCreatedAt.Equal(now) {
			t.Fatalf("first PutWebhook = %v, %v, %+v", created, err, w)
		}
		later := now.Add(time.Minute)
		w = &showroom.Webhook{CompanyID: a.ID, URL: "https://a.example/v2", Secret: "whsec_ignored", UpdatedAt: later}
		created, err = s.PutWebhook(ctx, w)
		if err != nil || created || w.URL != "https://a.example/v2" || w.Secret != "whsec_one" || !w.CreatedAt.Equal(now) || !w.UpdatedAt.Equal(later) {
			t.Fatalf("second PutWebhook = %v, %v, %+v; want the URL changed, the secret and creation kept", created, err, w)
		}
		if got, err := s.FindWebhook(ctx, a.ID); err != nil || got.URL != "https://a.example/v2" || got.Secret != "whsec_one" || got.PreviousSecret != "" {
			t.Fatalf("FindWebhook = %+v, %v", got, err)
		}
		wantCode(t, "other company's", showroom.EWebhookNotFound, func() error { _, err := s.FindWebhook(ctx, b.ID); return err }())

		at := now.Add(time.Hour)
		w, created, err = s.RotateWebhookSecret(ctx, a.ID, "whsec_two", at)
		if err != nil || created || w.Secret != "whsec_two" || w.PreviousSecret != "whsec_one" || w.URL != "https://a.example/v2" ||
			!w.SecretCreatedAt.Equal(at) || !w.PreviousExpiresAt.Equal(at.Add(showroom.WebhookSecretGrace)) {
			t.Fatalf("RotateWebhookSecret = %v, %v, %+v", created, err, w)
		}
		if got := w.Secrets(at.Add(time.Minute)); !slices.Equal(got, []string{"whsec_two", "whsec_one"}) {
			t.Errorf("secrets during the grace period: %v", got)
		}
		if got := w.Secrets(at.Add(showroom.WebhookSecretGrace)); !slices.Equal(got, []string{"whsec_two"}) {
			t.Errorf("secrets after the grace period: %v", got)
		}
		// A second rotation drops the first secret at once.
		if w, _, err = s.RotateWebhookSecret(ctx, a.ID, "whsec_three", at.Add(time.Second)); err != nil || w.PreviousSecret != "whsec_two" {
			t.Fatalf("second rotation: %+v, %v", w, err)
		}

		// Rotating a company's first secret creates its webhook, without a URL.
		w, created, err = s.RotateWebhookSecret(ctx, b.ID, "whsec_b", at)
		if err != nil || !created || w.URL != "" || w.Secret != "whsec_b" || w.PreviousSecret != "" {
			t.Fatalf("first rotation of b = %v, %v, %+v", created, err, w)
		}
		if err := s.DeleteWebhook(ctx, a.ID); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "after delete", showroom.EWebhookNotFound, func() error { _, err := s.FindWebhook(ctx, a.ID); return err }())
		if got, err := s.FindWebhook(ctx, b.ID); err != nil || got.Secret != "whsec_b" {
			t.Errorf("b's webhook after a's was deleted: %+v, %v", got, err)
		}
	})

	t.Run("a finished job's delivery is queued with it, once", func(t *testing.T) {
		s := newStore(t)
		a := mustCompany(t, s, "a")
		newJob := func(id, callback string) *showroom.Job {
			t.Helper()
			j := &showroom.Job{ID: id, CompanyID: a.ID, CreatedBy: "alice", Configuration: "cfg",
				Processors: json.RawMessage(`[{"processorName":"DetectCarMaskProcessor"}]`),
				InputKey:   "in/" + id, CreatedAt: now, CallbackURL: callback}
			if err := s.CreateJob(ctx, j, unbounded); err != nil {
				t.Fatal(err)
			}
			return j
		}
		ok := newJob("ok", "https://a.example/hook?job=ok")
		if ok.Delivery == nil || ok.Delivery.Status != showroom.DeliveryPending {
			t.Fatalf("CreateJob with a callback: delivery %+v, want pending", ok.Delivery)
		}
		newJob("bad", "https://a.example/hook")
		plain := newJob("plain", "")
		if plain.Delivery != nil {
			t.Errorf("a job without a callback has a delivery: %+v", plain.Delivery)
		}
		if got := deliveries(t, s); len(got) != 0 {
			t.Fatalf("deliveries queued before any job finished: %v", got)
		}
		ok.ResultKey, ok.ResultType, ok.FinishedAt = "out/ok", "image/png", now
		for range 2 { // a retry after a crash finishes it again
			if _, err := s.SucceedJob(ctx, ok); err != nil {
				t.Fatal(err)
			}
		}
		jerr := &showroom.JobError{Code: showroom.ENoCarDetected, Message: "no car"}
		for _, id := range []string{"bad", "bad", "plain"} {
			if _, err := s.FailJob(ctx, id, jerr, nil, now); err != nil {
				t.Fatal(err)
			}
		}
		if got := slices.Sorted(slices.Values(deliveries(t, s))); !slices.Equal(got, []string{"bad", "ok"}) {
			t.Errorf("deliveries queued: %v; want one for each finished job with a callback", got)
		}

		got, err := s.FindJob(ctx, a.ID, "ok")
		if err != nil || got.CallbackURL != "https://a.example/hook?job=ok" || got.Delivery == nil || got.Delivery.Status != showroom.DeliveryPending {
			t.Fatalf("FindJob = %+v, %v", got, err)
		}
		d := showroom.WebhookDelivery{Status: showroom.DeliveryPending, Attempts: 1, LastStatusCode: 503, LastError: "HTTP 503", LastAttemptAt: now}
		if err := s.RecordWebhookDelivery(ctx, "bad", d); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.FindJob(ctx, a.ID, "bad"); got.Delivery == nil || *got.Delivery != d {
			t.Errorf("recorded delivery: %+v, want %+v", got.Delivery, d)
		}
		d = showroom.WebhookDelivery{Status: showroom.DeliveryDelivered, Attempts: 2, LastStatusCode: 204, LastAttemptAt: now.Add(time.Second)}
		if err := s.RecordWebhookDelivery(ctx, "bad", d); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.FindJob(ctx, a.ID, "bad"); got.Delivery == nil || *got.Delivery != d {
			t.Errorf("recorded delivery: %+v, want %+v", got.Delivery, d)
		}
		// An attempt that ends after another finished the delivery (a
		// delivery River's rescuer handed out while its first worker went
		// on) leaves it as it is: a delivered job does not turn failed, or
		// pending and so sent again.
		for _, late := range []showroom.WebhookDelivery{
			{Status: showroom.DeliveryFailed, Attempts: 3, LastError: "no answer within 10s", LastAttemptAt: now.Add(2 * time.Second)},
			{Status: showroom.DeliveryPending, Attempts: 1, LastStatusCode: 500, LastError: "HTTP 500", LastAttemptAt: now.Add(3 * time.Second)},
		} {
			if err := s.RecordWebhookDelivery(ctx, "bad", late); err != nil {
				t.Fatalf("a late attempt's record: %v", err)
			}
			if got, _ := s.FindJob(ctx, a.ID, "bad"); got.Delivery == nil || *got.Delivery != d {
				t.Errorf("after a late %s attempt, delivery %+v, want %+v", late.Status, got.Delivery, d)
			}
		}
		// While pending, an attempt older than the one recorded does not
		// take its place either.
		p3 := showroom.WebhookDelivery{Status: showroom.DeliveryPending, Attempts: 3, LastStatusCode: 502, LastError: "HTTP 502", LastAttemptAt: now}
		p2 := showroom.WebhookDelivery{Status: showroom.DeliveryPending, Attempts: 2, LastStatusCode: 500, LastError: "HTTP 500", LastAttemptAt: now}
		for _, rec := range []showroom.WebhookDelivery{p3, p2} {
			if err := s.RecordWebhookDelivery(ctx, "ok", rec); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := s.FindJob(ctx, a.ID, "ok"); got.Delivery == nil || *got.Delivery != p3 {
			t.Errorf("after attempts 3 then 2, delivery %+v, want attempt 3's %+v", got.Delivery, p3)
		}
		wantCode(t, "delivery of a job without a callback", showroom.EJobNotFound, s.RecordWebhookDelivery(ctx, "plain", d))
		wantCode(t, "delivery of no job", showroom.EJobNotFound, s.RecordWebhookDelivery(ctx, "nosuch", d))
		if jobs, err := s.ListJobs(ctx, a.ID, "", 10); err != nil || len(jobs) != 3 {
			t.Fatalf("ListJobs = %d jobs, %v", len(jobs), err)
		} else {
			for _, j := range jobs {
				if (j.CallbackURL != "") != (j.Delivery != nil) {
					t.Errorf("listed job %s: callback %q, delivery %+v", j.ID, j.CallbackURL, j.Delivery)
				}
			}
		}
	})
}
