package main

import (
	"context"
	"image"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/vision"
)

// blockingSegmenter answers once released: a model still in its first run.
type blockingSegmenter struct{ release chan struct{} }

func (s blockingSegmenter) Segment(ctx context.Context, img *image.NRGBA) (*vision.Mask, error) {
	<-s.release
	b := img.Rect
	alpha := image.NewGray(b)
	inner := b.Inset(b.Dx() / 4)
	for y := inner.Min.Y; y < inner.Max.Y; y++ {
		for x := inner.Min.X; x < inner.Max.X; x++ {
			alpha.Pix[alpha.PixOffset(x, y)] = 255
		}
	}
	return &vision.Mask{Alpha: alpha, Box: inner, Confidence: 1}, nil
}

// TestWarmUpGatesReadiness: the service is not ready, and its queue takes no job,
// until the warm-up's photos have gone through; then it is ready.
func TestWarmUpGatesReadiness(t *testing.T) {
	seg := blockingSegmenter{release: make(chan struct{})}
	engine, err := pipeline.NewEngine(pipeline.EngineConfig{Segmenter: seg})
	if err != nil {
		t.Fatal(err)
	}
	w := startWarmUp(context.Background(), engine, 2, "fake", slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := w.ready(context.Background()); err == nil {
		t.Fatal("ready before the warm-up ran")
	}
	select {
	case <-w.done: // what the queue's start waits for (Queue.StartWhen)
		t.Fatal("the warm-up was done before its photos went through")
	case <-time.After(50 * time.Millisecond):
	}
	close(seg.release)
	select {
	case <-w.done:
	case <-time.After(time.Minute):
		t.Fatal("warm-up did not end")
	}
	if err := w.ready(context.Background()); err != nil {
		t.Fatalf("not ready after the warm-up: %v", err)
	}
}
