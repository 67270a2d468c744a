package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"runtime/pprof"
	"slices"
	"sync"
	"testing"
	"time"
)

// load is what a run of drive measured.
type load struct {
	requests int
	elapsed  time.Duration
	latency  []time.Duration // of every request, in no order
}

// add merges another run into l, as if both had been one.
func (l *load) add(o load) {
	l.requests += o.requests
	l.elapsed += o.elapsed
	l.latency = append(l.latency, o.latency...)
}

// rate is requests per second.
func (l *load) rate() float64 { return float64(l.requests) / l.elapsed.Seconds() }

// quantile is the latency below which a fraction q of the requests finished.
func (l *load) quantile(q float64) time.Duration {
	if len(l.latency) == 0 {
		return 0
	}
	slices.Sort(l.latency)
	return l.latency[min(len(l.latency)-1, int(q*float64(len(l.latency))))]
}

// drive sends req (a whole HTTP/1.1 request) to addr over conns keep-alive
// connections, each waiting for its answer before sending again, for d.
// Every answer must be 200. The client writes pre-built bytes and parses
// with http.ReadResponse, without net/http's transport and its goroutines:
// it shares the cores with the server it measures and should take little.
func drive(tb testing.TB, addr string, req []byte, conns int, d time.Duration) load {
	tb.Helper()
	var (
		mu  sync.Mutex
		all load
		wg  sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for range conns {
		wg.Add(1)
		go pprof.Do(context.Background(), pprof.Labels("side", "client"), func(context.Context) {
			defer wg.Done()
			lat, err := driveConn(addr, req, deadline)
			mu.Lock()
			defer mu.Unlock()
			all.requests += len(lat)
			all.latency = append(all.latency, lat...)
			if err != nil {
				tb.Error(err)
			}
		})
	}
	wg.Wait()
	all.elapsed = time.Since(start)
	return all
}

// driveConn is one connection of drive.
func driveConn(addr string, req []byte, deadline time.Time) ([]time.Duration, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	br := bufio.NewReader(c)
	lat := make([]time.Duration, 0, 1<<14)
	for {
		t0 := time.Now()
		if !t0.Before(deadline) {
			return lat, nil
		}
		if _, err := c.Write(req); err != nil {
			return lat, err
		}
		res, err := http.ReadResponse(br, nil)
		if err != nil {
			return lat, err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err != nil {
			return lat, err
		}
		if res.StatusCode != http.StatusOK {
			return lat, &statusError{res.StatusCode}
		}
		lat = append(lat, time.Since(t0))
	}
}

type statusError struct{ status int }

func (e *statusError) Error() string { return "status " + http.StatusText(e.status) }
