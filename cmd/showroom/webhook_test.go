package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestWebhookOnTheProgram: 'showroom serve --webhook-allow-private' POSTs
// a finished asynchronous job to a receiver on this host (a loopback
// address, refused without the flag), signed, and records the delivery on
// the job.
func TestWebhookOnTheProgram(t *testing.T) {
	requireModel(t, "u2netp")
	got := make(chan *http.Request, 4)
	bodies := make(chan []byte, 4)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
	}))
	defer receiver.Close()
	dir := t.TempDir()
	setupCompany(t, dir, 10)
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}
	base, _ := startServer(t, env, "serve", "--addr", "127.0.0.1:0", "--warm-up", "0", "--webhook-allow-private")
	a := login(t, base, "alice", "hunter2hunter2")

	res, body := a.do("POST", "/v1/process/single/free_cutout?async=true&callbackUrl="+receiver.URL+"/hook", drawnCarJPEG(t), nil)
	if res.StatusCode != 409 || !strings.Contains(string(body), "WEBHOOK_NOT_CONFIGURED") {
		t.Fatalf("callback without a secret: %d %s", res.StatusCode, body)
	}
	res, body = a.do("POST", "/v1/webhook/secret", nil, nil)
	var hook struct {
		Secret string `json:"secret"`
	}
	if json.Unmarshal(body, &hook); res.StatusCode != 201 || hook.Secret == "" {
		t.Fatalf("first secret: %d %s", res.StatusCode, body)
	}
	res, body = a.do("POST", "/v1/process/single/free_cutout?async=true&callbackUrl="+receiver.URL+"/hook", drawnCarJPEG(t), nil)
	if res.StatusCode != 202 {
		t.Fatalf("async with a callback: %d %s", res.StatusCode, body)
	}
	var j jobView
	json.Unmarshal(body, &j)
	select {
	case r := <-got:
		b := <-bodies
		if r.URL.Path != "/hook" || r.Header.Get("Showroom-Job-Id") != j.ID || !strings.Contains(string(b), `"id":"`+j.ID+`"`) {
			t.Errorf("delivery %s %v: %s", r.URL, r.Header, b)
		}
		if !strings.HasPrefix(r.Header.Get("Showroom-Signature"), "t=") || !strings.Contains(r.Header.Get("Showroom-Signature"), ",v1=") {
			t.Errorf("signature header %q", r.Header.Get("Showroom-Signature"))
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no delivery within a minute")
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		_, b := a.do("GET", "/v1/process/jobs/"+j.ID, nil, nil)
		var rec struct {
			Callback struct {
				Status   string `json:"status"`
				Attempts int    `json:"attempts"`
			} `json:"callback"`
		}
		json.Unmarshal(b, &rec)
		if rec.Callback.Status == "delivered" && rec.Callback.Attempts == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("job after delivery: %s", b)
		}
	}
}
