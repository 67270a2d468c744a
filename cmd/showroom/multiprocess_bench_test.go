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
// each ("2proc") or by one worker process running two at once ("1proc");
// auth, API and workers are processes of the built binary on PostgreSQL
// and S3, as in TestMultiProcess, with the default model and settings.
// Both clusters run side by side and each op is one round: two photos
// through one, then two through the other, the order alternating, so that
// the shared machine's changing load falls on both alike. It reports
// each's photos/s and their ratio, each against the model alone on the
// same photos measured in the same run (two streams, the better of one and
// two threads each: the most any arrangement could do here), and the peak
// resident memory of every process (VmHWM, warm-up included). ns/op is a
// round's time: four photos.
// Run: go test -run '^$' -bench BenchmarkMultiProcess -benchtime 6x ./cmd/showroom
func BenchmarkMultiProcess(b *testing.B) {
	data := largePhotos(b)
	s3 := blobtest.StartS3(b)
	requireModelFile(b, vision.ISNetFile)
	bin := buildShowroom(b)
	// Started here, not in the benchmark's function, which runs twice (b.N
	// = 1, then the count asked for) and cleans up after each.
	rows := []struct {
		name string
		cl   *cluster.Cluster
		api  *api
	}{{name: "2proc"}, {name: "1proc"}}
	rows[0].cl, rows[0].api = startScaleOut(b, bin, s3, 2, 1)
	rows[1].cl, rows[1].api = startScaleOut(b, bin, s3, 1, 2)
	for _, r := range rows {
		// One photo per job slot, untimed: the first photo of a worker is
		// slower (docs/benchmarks.md).
		sendPhotos(b, r.api, data, 2, 2)
	}
	alone := 0.0
	b.Run("alternated", func(b *testing.B) {
		var took [2]time.Duration
		for i := range b.N {
			for j := range rows {
				k := (j + i) % 2
				start := time.Now()
				sendPhotos(b, rows[k].api, data, 2, 2)
				took[k] += time.Since(start)
			}
		}
		b.StopTimer()
		if alone == 0 {
			alone = inferenceAlone(b, "isnet", data, 2)
		}
		var rate [2]float64
		for k, r := range rows {
			rate[k] = float64(2*b.N) / took[k].Seconds()
			b.ReportMetric(rate[k], "photos/s-"+r.name)
			b.ReportMetric(rate[k]/alone, "x-model-"+r.name)
			for _, p := range r.cl.Procs() {
				kb, err := p.PeakRSS()
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(kb)/1024, "MiB-"+r.name+"-"+p.Name)
			}
		}
		b.ReportMetric(rate[0]/rate[1], "x-2proc/1proc")
		b.ReportMetric(alone, "photos/s-model")
	})
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
		if _, err := cl.StartWorker(fmt.Sprintf("worker%d", i+1), "--workers", fmt.Sprint(workers),
			"--company-workers", fmt.Sprint(procs*workers)); err != nil {
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
