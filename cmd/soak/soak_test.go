package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/cluster"
)

func TestJudgeError(t *testing.T) {
	docs, err := readDocTable("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	body := func(status int, code string) []byte {
		return fmt.Appendf(nil, `{"status":%d,"reason":%q,"errorCode":%q,"message":"m","timestamp":1}`, status, http.StatusText(status), code)
	}
	jsonHeader := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}}
		for i := 0; i < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	for _, tc := range []struct {
		name   string
		status int
		header http.Header
		body   []byte
		want   class
	}{
		{"full queue", 503, jsonHeader("Retry-After", "5"), body(503, "SERVICE_OVERLOADED"), pushback},
		{"full queue without Retry-After", 503, jsonHeader(), body(503, "SERVICE_OVERLOADED"), failure},
		{"rate limited", 429, jsonHeader("Retry-After", "2"), body(429, "TOO_MANY_REQUESTS"), pushback},
		{"expected refusal", 422, jsonHeader(), body(422, "NO_CAR_DETECTED"), refused},
		{"documented but not expected here", 404, jsonHeader(), body(404, "JOB_NOT_FOUND"), failure},
		{"undocumented code", 422, jsonHeader(), body(422, "SOMETHING_NEW"), failure},
		{"status not the documented one", 400, jsonHeader(), body(400, "NO_CAR_DETECTED"), failure},
		{"internal", 500, jsonHeader(), body(500, "INTERNAL"), failure},
		{"no body", 502, http.Header{}, nil, failure},
		{"401 without WWW-Authenticate", 401, jsonHeader(), body(401, "TOKEN_EXPIRED"), failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := docs.judgeError(tc.status, tc.header, tc.body, []string{"NO_CAR_DETECTED", "TOKEN_EXPIRED"})
			if a.class != tc.want {
				t.Errorf("class %v (%s), want %v", a.class, a.why, tc.want)
			}
		})
	}
}

func TestMemorySlope(t *testing.T) {
	// A worker whose memory swings between 700 and 1200 MB within each
	// photo: flat if the peaks stay, growing if they climb 100 MB a minute.
	samples := func(climb float64) []cluster.Sample {
		var out []cluster.Sample
		for s := 0; s <= 240; s += 2 {
			mb := 700 + 500*float64(s%6)/4 + climb*float64(s)/60
			out = append(out, cluster.Sample{At: time.Duration(s) * time.Second, KB: int64(mb * 1024)})
		}
		return out
	}
	for _, tc := range []struct {
		climb float64
	}{{0}, {100}} {
		m := memoryOf(samples(tc.climb), 0, 4*time.Minute)
		if !m.wholeHalf || math.Abs(m.slope-tc.climb) > 15 {
			t.Errorf("climb %v MB/min: slope %.1f (whole half %v)", tc.climb, m.slope, m.wholeHalf)
		}
	}
}

// The bombs are what they claim: valid images (so that the service, not a
// parse error, is what refuses them) of the announced shape.
func TestBombs(t *testing.T) {
	b, err := makeBombs()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		w, h int
	}{
		{"tall", b.tall, 8, 65000},
		{"flat", b.flat, 4000, 8},
		{"wide", b.wide, 4000, 400},
		{"PNG zTXt", b.textUpload, 64, 64},
		{"PNG iTXt", b.textPhoto, 64, 64},
		{"comment", b.comment, 800, 500},
	} {
		cfg, _, err := image.DecodeConfig(bytes.NewReader(tc.data))
		if err != nil || cfg.Width != tc.w || cfg.Height != tc.h {
			t.Errorf("%s: %dx%d, %v; want %dx%d", tc.name, cfg.Width, cfg.Height, err, tc.w, tc.h)
		}
	}
	for typ, p := range map[string][]byte{"zTXt": b.textUpload, "iTXt": b.textPhoto} {
		if _, err := png.Decode(bytes.NewReader(p)); err != nil { // checks every chunk's CRC
			t.Errorf("PNG %s: %v", typ, err)
		}
		if n := bytes.Count(p, []byte(typ)); n < 100 || len(p) > 2<<20 {
			t.Errorf("PNG %s: %d text chunks in %d bytes", typ, n, len(p))
		}
	}
	if _, err := jpeg.Decode(bytes.NewReader(b.comment)); err != nil {
		t.Errorf("comment: %v", err)
	}
}

// bodyNeverSent tells a server that lets such a connection go from one
// that holds it.
func TestBodyNeverSent(t *testing.T) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })
	holds := httptest.NewServer(handler)
	defer holds.Close()
	letsGo := httptest.NewUnstartedServer(handler)
	letsGo.Config.ReadTimeout = 200 * time.Millisecond
	letsGo.Start()
	defer letsGo.Close()
	if why, _ := bodyNeverSent(context.Background(), letsGo.URL+"/healthz", 2*time.Second); why != "" {
		t.Errorf("a server with a short read timeout: %s", why)
	}
	if why, _ := bodyNeverSent(context.Background(), holds.URL+"/healthz", 500*time.Millisecond); why == "" {
		t.Error("a server that waits for the body: not reported")
	}
}
