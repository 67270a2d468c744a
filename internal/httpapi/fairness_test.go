package httpapi_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
)

// gatedRunner stands in for the pipeline: every run waits until the gate
// opens, then answers with the photo itself, and the company of each run
// is recorded in the order the runs started.
type gatedRunner struct {
	gate chan struct{}
	mu   sync.Mutex
	runs []string
}

func (g *gatedRunner) run(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
	g.mu.Lock()
	g.runs = append(g.runs, j.Company)
	g.mu.Unlock()
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &river.Output{Image: photo, MediaType: "image/png"}, nil
}

func (g *gatedRunner) started() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.runs)
}

// TestOneCompanyCannotFillTheQueue: a company that floods the processing
// endpoint is refused at its share of the queue with 503
// SERVICE_OVERLOADED and Retry-After, synchronous and asynchronous alike,
// while another company's synchronous request is admitted and served
// before the flood's backlog.
func TestOneCompanyCannotFillTheQueue(t *testing.T) {
	cfg := runnerConfig()
	cfg.Workers = 1
	cfg.MaxQueued = 8
	cfg.CompanyShare = 4
	g := &gatedRunner{gate: make(chan struct{})}
	e := newEnvWith(t, library.DefaultConfig(), withRunner(cfg, g.run))
	t.Cleanup(func() { // before the queue stops: cleanups run last first
		select {
		case <-g.gate:
		default:
			close(g.gate)
		}
	})
	e.addUser("acme", "alice")
	e.addUser("beta", "bob")
	photo := string(pngBytes(t, 16, 16))
	alice := map[string]string{"Authorization": "Bearer " + e.login("alice").AccessToken, "Content-Type": "image/png"}
	bob := map[string]string{"Authorization": "Bearer " + e.login("bob").AccessToken, "Content-Type": "image/png"}

	var flood []string
	for range cfg.CompanyShare {
		var job struct {
			ID string `json:"id"`
		}
		e.do("POST", "/v1/process/single/free_cutout?async=true", strings.NewReader(photo), alice).wantStatus(202).decode(&job)
		flood = append(flood, job.ID)
	}
	for _, path := range []string{"/v1/process/single/free_cutout?async=true", "/v1/process/single/free_cutout"} {
		res := e.do("POST", path, strings.NewReader(photo), alice)
		body := res.wantError(503, showroom.EServiceOverloaded)
		if msg, _ := body["message"].(string); !strings.Contains(msg, "share") {
			t.Errorf("%s over the company's share: message %q does not say it is the company's share", path, msg)
		}
		if res.header.Get("Retry-After") == "" {
			t.Errorf("%s over the company's share: no Retry-After", path)
		}
	}

	// Open the gate once beta's job waits behind acme's backlog.
	ctx := context.Background()
	beta, err := e.db.FindCompany(ctx, "beta")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, own, err := e.db.CountActiveJobs(ctx, beta.ID); err == nil && own == 1 {
				break
			}
		}
		close(g.gate)
	}()
	res := e.do("POST", "/v1/process/single/free_cutout", strings.NewReader(photo), bob).wantStatus(200)
	if !bytes.Equal(res.body, []byte(photo)) {
		t.Errorf("beta's answer is not its result")
	}
	acme, err := e.db.FindCompany(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range flood {
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		j, err := e.db.FindJob(wctx, acme.ID, id)
		for err == nil && j.Status != showroom.JobSucceeded && j.Status != showroom.JobFailed && wctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
			j, err = e.db.FindJob(wctx, acme.ID, id)
		}
		cancel()
		if err != nil || j.Status != showroom.JobSucceeded {
			t.Fatalf("acme's job %s: %+v, %v", id, j, err)
		}
	}
	want := []string{"acme", "beta", "acme", "acme", "acme"}
	if got := g.started(); !slices.Equal(got, want) {
		t.Errorf("runs started in the order %v, want %v: beta's request waited behind acme's backlog", got, want)
	}
}
