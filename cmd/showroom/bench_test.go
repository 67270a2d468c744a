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
