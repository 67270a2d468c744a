package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/codec"
	"github.com/showroom/showroom/internal/vision"
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
//
// Issue 13's yardstick is the model alone, measured in this process after
// the requests with the server idle, on the same photos, with the best of the
// settings that suit the row (one stream of two threads for one worker;
// two streams of one or two threads each for two; no arena, the arena, and
// the recycler keeping all it has):
// x-alone is the
// service's photos/s as a fraction of the model's own (1 would be no cost
// outside the model), x-inference a request's time over the model's time
// in the same requests. The server runs in this process, so the peak is
// the process's: run one row per process to read it (-bench 'Serve/model=isnet/workers=1/').
// Run: go test -run '^$' -bench BenchmarkServe -benchtime 6x ./cmd/showroom
func BenchmarkServe(b *testing.B) {
	data := largePhotos(b)
	alone := map[string]float64{} // the model's own photos/s, by row
	for _, model := range []string{"isnet", "u2netp"} {
		// Two workers share the cores: by default their model runs take
		// turns (runs=auto: one run of two threads at a time on two
		// cores); runs=2 lets both run at once, as before issue 13; one
		// ONNX Runtime thread each fits two runs on the cores.
		// arena=recycle is the default, arena=off the slower malloc of
		// every tensor before it.
		for _, row := range []struct {
			workers, threads int
			runs, arena      string
		}{{1, 2, "auto", "recycle"}, {1, 2, "auto", "off"}, {2, 2, "auto", "recycle"}, {2, 2, "2", "recycle"}, {2, 1, "auto", "recycle"}} {
			workers := row.workers
			b.Run(fmt.Sprintf("model=%s/workers=%d/threads=%d/runs=%s/arena=%s", model, workers, row.threads, row.runs, row.arena), func(b *testing.B) {
				dir := b.TempDir()
				env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": model,
					"SHOWROOM_ORT_THREADS": strconv.Itoa(row.threads), "SHOWROOM_ORT_ARENA": row.arena}
				if row.runs != "auto" {
					env["SHOWROOM_ORT_RUNS"] = row.runs
				}
				setupCompany(b, dir, 1_000_000)
				base, _ := startServer(b, env, "serve", "--addr", "127.0.0.1:0", "--workers", strconv.Itoa(workers),
					"--company-workers", strconv.Itoa(workers), "--log-level", "warn", "--rate-limit", "0")
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
				inferSum, inferCount := inferenceTotals(b, base)
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
				elapsed := time.Since(start)
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "photos/s")
				b.ReportMetric(peakRSS(b), "peak-RSS-MiB")
				// A request's time against the model's own in the same
				// requests (the server's settings): 1 would be the model
				// alone. With one worker this is the end-to-end overhead.
				sum, count := inferenceTotals(b, base)
				if n := count - inferCount; n > 0 {
					b.ReportMetric(elapsed.Seconds()*float64(workers)/float64(b.N)/((sum-inferSum)/n), "x-inference")
				}
				// The yardstick last, with the server idle, so that its
				// memory is not in the server's peak; once per row, and
				// not in the one-photo probe run that testing makes before
				// the run it reports (the arena keeps its memory for the
				// process's life, which would be in that run's peak).
				b.StopTimer()
				if b.N == 1 && !finalRunHasOne() {
					return
				}
				if alone[b.Name()] == 0 {
					alone[b.Name()] = inferenceAlone(b, model, data, workers)
				}
				b.ReportMetric(float64(b.N)/elapsed.Seconds()/alone[b.Name()], "x-alone")
			})
		}
	}
}

// finalRunHasOne reports whether -benchtime asks for one iteration, so that
// a benchmark's run with b.N = 1 is the one reported, not a probe.
func finalRunHasOne() bool {
	f := flag.Lookup("test.benchtime")
	return f != nil && f.Value.String() == "1x"
}

// inferenceAlone returns the photos/s the model alone achieves on photos
// with streams concurrent runs, on the best of the intra-op thread counts
// and arena settings tried: the most any service could do on this machine.
func inferenceAlone(b *testing.B, model string, photos [][]byte, streams int) float64 {
	b.Helper()
	imgs := make([]*image.NRGBA, len(photos))
	for i, data := range photos {
		img, err := codec.Decode(context.Background(), data, codec.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		imgs[i] = img
	}
	threads := []int{2}
	if streams > 1 {
		threads = []int{1, 2}
	}
	type setting struct {
		threads int
		arena   string // off, on or recycle, as --ort-arena
	}
	var settings []setting
	for _, th := range threads {
		// The arena and the recycler keeping all it has are the fastest
		// settings on a quiet machine (issue 13's reference), not always
		// under load: all are tried.
		for _, arena := range []string{"off", "on", "recycle"} {
			settings = append(settings, setting{th, arena})
		}
	}
	best := 0.0
	for _, set := range settings {
		cfg := vision.DefaultConfig(os.Getenv("SHOWROOM_MODEL_DIR"))
		cfg.Model, cfg.IntraOpThreads = model, set.threads
		cfg.MemArena, cfg.Recycle, cfg.RecycleKeep = set.arena == "on", set.arena == "recycle", 1<<40
		cfg.ConcurrentRuns = streams // each stream runs at once, whatever the cores
		seg, err := vision.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := seg.Infer(context.Background(), imgs[0]); err != nil { // warm-up
			b.Fatal(err)
		}
		const perStream = 2
		start := time.Now()
		var wg sync.WaitGroup
		for s := range streams {
			wg.Go(func() {
				for i := range perStream {
					if _, err := seg.Infer(context.Background(), imgs[(s+i)%len(imgs)]); err != nil {
						b.Error(err)
					}
				}
			})
		}
		wg.Wait()
		rate := float64(streams*perStream) / time.Since(start).Seconds()
		b.Logf("model alone, %d streams of %d threads, arena %s: %.3f photos/s", streams, set.threads, set.arena, rate)
		best = max(best, rate)
		seg.Close()
	}
	for _, img := range imgs {
		codec.Recycle(img)
	}
	return best
}

// inferenceTotals reads the server's model inference seconds and runs so
// far from its /metrics.
func inferenceTotals(b *testing.B, base string) (sum, count float64) {
	b.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	for _, line := range strings.Split(string(text), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch {
		case strings.HasPrefix(f[0], "showroom_model_inference_seconds_sum"):
			sum += v
		case strings.HasPrefix(f[0], "showroom_model_inference_seconds_count"):
			count += v
		}
	}
	return sum, count
}

// BenchmarkLight measures light authenticated endpoints (issue 13) against a
// plain net/http handler in the same process: each answers 16 keep-alive
// connections that send requests back to back, in turns of lightTurn, four
// turns of each per op, alternating which goes first. The machine is shared
// and its load moves within seconds, so the number to read is x-plain, the
// endpoint's req/s as a fraction of the plain handler's over the same
// seconds; req/s and the latency quantiles are there for context.
// The server is the one 'serve' runs, with its default (JSON) access log
// written to /dev/null, a real SQLite database, a user, three content items
// and three configurations.
// Run: go test -run '^$' -bench BenchmarkLight -benchtime 5x ./cmd/showroom
func BenchmarkLight(b *testing.B) {
	const conns = 16
	const lightTurn = 250 * time.Millisecond
	if _, err := os.Stat(filepath.Join(defaultModelDir(), "u2netp.onnx")); err != nil {
		b.Skipf("skipping: 'serve' loads a model at start and there is none in %s; run 'make models'", defaultModelDir())
	}
	dir := b.TempDir()
	setupCompany(b, dir, 1000)
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { devNull.Close() })
	env := map[string]string{"SHOWROOM_DATA_DIR": dir, "SHOWROOM_MODEL": "u2netp"}
	// Profile labels tell the servers and the client apart:
	// go tool pprof -tagfocus side=api (or plain, or client).
	var base string
	pprof.Do(context.Background(), pprof.Labels("side", "api"), func(context.Context) {
		base, _ = startServerLogging(b, env, devNull, "serve", "--addr", "127.0.0.1:0", "--workers", "1")
	})
	a := login(b, base, "alice", "hunter2hunter2")
	for i := range 3 {
		name := fmt.Sprintf("background%d", i)
		if res, body := a.do("POST", "/v1/content/upload/"+name+"/BACKGROUND_SIMPLE", tinyPNG(b, 64, 40),
			map[string]string{"Content-Type": "image/png"}); res.StatusCode != http.StatusCreated {
			b.Fatalf("upload: %d %s", res.StatusCode, body)
		}
		cfg := `[{"processorName":"DetectCarMaskProcessor"},{"processorName":"DetectCarShadowProcessor"},
			{"processorName":"AddBackgroundAndCropProcessor","background":"` + name + `","horizonLine":0.7}]`
		if res, body := a.do("POST", fmt.Sprintf("/v1/configuration/studio%d", i), []byte(cfg),
			map[string]string{"Content-Type": "application/json"}); res.StatusCode != http.StatusCreated {
			b.Fatalf("save configuration: %d %s", res.StatusCode, body)
		}
	}

	plainBody := []byte(`{"status":"ok"}` + "\n")
	plain := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(plainBody)
		}),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go pprof.Do(context.Background(), pprof.Labels("side", "plain"), func(context.Context) { plain.Serve(ln) })
	b.Cleanup(func() { plain.Close() })

	// Both get the same headers, so that reading them costs both the same.
	request := func(host, path string) []byte {
		return []byte("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: showroom-bench\r\n" +
			"Authorization: Bearer " + a.token + "\r\n\r\n")
	}
	apiAddr := strings.TrimPrefix(base, "http://")
	plainAddr := ln.Addr().String()
	plainReq := request(plainAddr, "/")
	for _, ep := range []struct{ name, path string }{
		{"configuration", "/v1/configuration/"},
		{"me", "/v1/me"},
		{"content", "/v1/content/"},
		{"processors", "/v1/processors"},
	} {
		b.Run(ep.name, func(b *testing.B) {
			req := request(apiAddr, ep.path)
			drive(b, apiAddr, req, conns, lightTurn) // warm up: connections, caches, pools
			drive(b, plainAddr, plainReq, conns, lightTurn)
			b.ResetTimer()
			var light, ref load
			for range b.N {
				for turn := range 4 {
					if turn%2 == 0 {
						ref.add(drive(b, plainAddr, plainReq, conns, lightTurn))
					}
					light.add(drive(b, apiAddr, req, conns, lightTurn))
					if turn%2 == 1 {
						ref.add(drive(b, plainAddr, plainReq, conns, lightTurn))
					}
				}
			}
			b.StopTimer()
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(light.rate()/ref.rate(), "x-plain")
			b.ReportMetric(light.rate(), "req/s")
			b.ReportMetric(ms(light.quantile(0.50)), "p50-ms")
			b.ReportMetric(ms(light.quantile(0.99)), "p99-ms")
			b.ReportMetric(ref.rate(), "plain-req/s")
			b.ReportMetric(ms(ref.quantile(0.99)), "plain-p99-ms")
			// ns/op would be the time of a turn; one request's share of
			// the endpoint's throughput says more.
			b.ReportMetric(1e9/light.rate(), "ns/op")
		})
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
	data := largePhotos(b)[0]
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
