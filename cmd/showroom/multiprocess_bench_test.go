package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/blob/blobtest"
	"github.com/showroom/showroom/internal/cluster"
	"github.com/showroom/showroom/internal/postgres/pgtest"
	"github.com/showroom/showroom/internal/vision"
)

// BenchmarkMultiProcess measures scale-out on one machine (issue 14): the
// 12 MP photos through default_white, sent synchronously by two clients to
// one API process, run either by two worker processes of one job at a time
// each (processes=2) or by one worker process running two at once
// (processes=1); auth, API and workers are processes of the built binary on
// PostgreSQL and S3, as in TestMultiProcess, with the default model and
// settings. Each row reports photos/s and the peak resident memory of each
// process (VmHWM, warm-up included); the parent then logs the rows' ratio
// and each row against the model alone on the same photos, measured in the
// same run (two streams, the better of one and two threads each), the most
// any arrangement could do here.
// Run: go test -run '^$' -bench BenchmarkMultiProcess -benchtime 6x ./cmd/showroom
func BenchmarkMultiProcess(b *testing.B) {
	data := largePhotos(b)
	s3 := blobtest.StartS3(b)
	requireModelFile(b, vision.ISNetFile)
	bin := buildShowroom(b)
	rates := map[string]float64{}
	for _, row := range []struct {
		name           string
		procs, workers int
	}{{"processes=2", 2, 1}, {"processes=1", 1, 2}} {
		// Started here, not in the row's function, which runs twice (b.N
		// = 1, then the count asked for) and cleans up after each.
		cl, a := startScaleOut(b, bin, s3, row.procs, row.workers)
		// One photo per job slot, untimed: the first photo of a worker is
		// slower (docs/benchmarks.md).
		sendPhotos(b, a, data, 2, 2)
		b.Run(row.name, func(b *testing.B) {
			start := time.Now()
			sendPhotos(b, a, data, b.N, 2)
			rate := float64(b.N) / time.Since(start).Seconds()
			b.StopTimer()
			b.ReportMetric(rate, "photos/s")
			for _, p := range cl.Procs() {
				kb, err := p.PeakRSS()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(kb)/1024, p.Name+"-peak-MiB")
			}
			rates[row.name] = rate
		})
		cl.Stop(time.Minute)
	}
	alone := inferenceAlone(b, "isnet", data, 2)
	two, one := rates["processes=2"], rates["processes=1"]
	b.Logf("photos/s: two worker processes %.3f, one process with two workers %.3f, the model alone %.3f", two, one, alone)
	b.Logf("two processes / one process: %.2f; against the model alone: two processes %.2f, one process %.2f", two/one, two/alone, one/alone)
}

// startScaleOut starts auth, one API and procs worker processes of workers
// jobs each on a fresh database and bucket, and returns the cluster and a
// logged-in client of the API.
func startScaleOut(b *testing.B, bin string, s3 *blobtest.S3Server, procs, workers int) (*cluster.Cluster, *api) {
	cl := startCluster(b, bin, pgtest.URL(b), s3, 0, "SHOWROOM_WARM_UP=1")
	auth, err := cl.StartAuth("auth")
	if err != nil {
		b.Fatal(err)
	}
	p, err := cl.StartAPI("api", auth.URL, "--rate-limit", "0")
	if err != nil {
		b.Fatal(err)
	}
	for i := range procs {
		if _, err := cl.StartWorker(fmt.Sprintf("worker%d", i+1), "--workers", fmt.Sprint(workers)); err != nil {
			b.Fatal(err)
		}
	}
	a := &api{t: b, base: p.URL}
	logIn(b, auth.URL, a)
	return cl, a
}

// sendPhotos sends n photos through default_white, clients at a time,
// each waiting for its answer.
func sendPhotos(b *testing.B, a *api, photos [][]byte, n, clients int) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := range next {
				req, _ := http.NewRequest("POST", a.base+"/v1/process/single/default_white", bytes.NewReader(photos[i%len(photos)]))
				req.Header.Set("Authorization", "Bearer "+a.token)
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Error(err)
					continue
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					b.Errorf("photo %d: %d %.200s", i, res.StatusCode, body)
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
