package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// peakRSS is the process's peak resident memory in MiB (VmHWM).
func peakRSS(b *testing.B) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

// BenchmarkServe measures the whole service on 12-megapixel photos: HTTP,
// queue, decode, model, processors, render, encode. Each op is one photo
// through default_white; clients send photos concurrently to a server with
// as many workers, so the rows show how throughput scales with concurrency.
// Run: go test -run '^$' -bench BenchmarkServe -benchtime 6x ./cmd/showroom
func BenchmarkServe(b *testing.B) {
	photos, _ := filepath.Glob("../../../shared/testdata/large/*.jpg")
	if len(photos) == 0 {
		b.Skip("skipping: ../shared/testdata/large is not there")
	}
	var data [][]byte
	for _, p := range photos {
		d, _ := os.ReadFile(p)
		data = append(data, d)
	}
	for _, model := range []string{"isnet", "u2netp"} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("model=%s/workers=%d", model, workers), func(b *testing.B) {
				dir := b.TempDir()
				env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": model}
				setupCompany(b, dir, 1_000_000)
				base, _ := startServer(b, env, "serve", "--addr", "127.0.0.1:0", "--workers", strconv.Itoa(workers),
					"--log-level", "warn", "--rate-limit", "0")
				token := login(b, base, "alice", "hunter2hunter2").token
				send := func(i int) {
					req, _ := http.NewRequest("POST", base+"/v1/process/single/default_white", bytes.NewReader(data[i%len(data)]))
					req.Header.Set("Authorization", token)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						b.Errorf("status %d", res.StatusCode)
					}
				}
				send(0) // warm up: model loaded, first allocation done
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				next := make(chan int)
				for range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range next {
							send(i)
						}
					}()
				}
				for i := range b.N {
					next <- i
				}
				close(next)
				wg.Wait()
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "photos/s")
				b.ReportMetric(peakRSS(b), "peak-RSS-MiB")
			})
		}
	}
}

// BenchmarkFirstRequests measures how far the first photos after start are
// from the steady state: each op starts a server (one IS-Net worker), waits
// for /readyz, and sends five 12 MP photos through default_white one after
// another, without the warm-up and with two photos' (the default). It
// reports each request's time as a ratio to the last two's mean (the
// steady state) and the time from start to ready.
// Run: go test -run '^$' -bench BenchmarkFirstRequests -benchtime 2x ./cmd/showroom
func BenchmarkFirstRequests(b *testing.B) {
	photos, _ := filepath.Glob("../../../shared/testdata/large/*.jpg")
	if len(photos) == 0 {
		b.Skip("skipping: ../shared/testdata/large is not there")
	}
	data, err := os.ReadFile(photos[0])
	if err != nil {
		b.Fatal(err)
	}
	for _, warm := range []string{"0", "2"} {
		b.Run("warm-up="+warm, func(b *testing.B) { firstRequests(b, data, warm) })
	}
}

func firstRequests(b *testing.B, data []byte, warmUp string) {
	const n = 5
	var ratios [n]float64
	var toReady, steady time.Duration
	for range b.N {
		dir := b.TempDir()
		env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "isnet", "SHOWROOM_WARM_UP": warmUp}
		setupCompany(b, dir, 1_000_000)
		start := time.Now()
		base, _ := startServer(b, env, "serve", "--addr", "127.0.0.1:0", "--workers", "1",
			"--log-level", "warn", "--rate-limit", "0")
		waitReady(b, base)
		toReady += time.Since(start)
		token := login(b, base, "alice", "hunter2hunter2").token
		var took [n]time.Duration
		for i := range n {
			t := time.Now()
			req, _ := http.NewRequest("POST", base+"/v1/process/single/default_white", bytes.NewReader(data))
			req.Header.Set("Authorization", token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Fatalf("status %d", res.StatusCode)
			}
			took[i] = time.Since(t)
		}
		s := (took[n-1] + took[n-2]) / 2
		steady += s
		for i := range n {
			ratios[i] += took[i].Seconds() / s.Seconds()
		}
		b.Logf("requests: %v", took)
	}
	for i := range n {
		b.ReportMetric(ratios[i]/float64(b.N), fmt.Sprintf("req%d/steady", i+1))
	}
	b.ReportMetric(steady.Seconds()/float64(b.N), "steady-s")
	b.ReportMetric(toReady.Seconds()/float64(b.N), "start-to-ready-s")
	b.ReportMetric(peakRSS(b), "peak-RSS-MiB")
}

// waitReady polls /readyz until it answers 200.
func waitReady(b testing.TB, base string) {
	b.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if res, err := http.Get(base + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatalf("%s/readyz not ready in 2 minutes", base)
}
