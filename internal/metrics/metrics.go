// Package metrics holds Showroom's Prometheus metrics: HTTP requests, the
// processing queue, job and processor durations, model inference time and
// credits charged. One Metrics value is made in main and handed to the
// components that report into it; nothing is registered globally.
//
// No label names a company, a configuration or anything else a user
// chooses: the metrics are readable by whoever can reach /metrics, and
// user-chosen label values would both tell one tenant about the others and
// let a tenant grow the series without bound. Every label value comes from
// a fixed set (route patterns, status codes, processor and model names).
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/showroom/showroom/internal/showroom"
)

// Metrics is the set of Showroom's metrics on their own registry.
type Metrics struct {
	reg *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec
	jobDuration     *prometheus.HistogramVec
	processor       *prometheus.HistogramVec
	inference       *prometheus.HistogramVec
	modelWait       *prometheus.HistogramVec
	credits         prometheus.Counter
	warnings        *prometheus.CounterVec
}

// Queue is what the queue gauges read.
type Queue interface {
	Running() int
	Depth(ctx context.Context) (int, error)
}

// New makes the metrics and registers them, with the Go runtime and process
// collectors.
func New() *Metrics {
	secs := []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "showroom_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "showroom_http_request_duration_seconds", Help: "HTTP request latency by route.", Buckets: secs,
		}, []string{"route"}),
		jobDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "showroom_job_duration_seconds", Help: "Processing job run time by outcome.", Buckets: secs,
		}, []string{"status"}),
		processor: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "showroom_processor_duration_seconds", Help: "Time of each pipeline step (decode, processors, render, encode).", Buckets: secs,
		}, []string{"processor"}),
		inference: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "showroom_model_inference_seconds", Help: "Segmentation model inference time by model.", Buckets: secs,
		}, []string{"model"}),
		modelWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "showroom_model_wait_seconds", Help: "Time a job waited for its turn at the model (--ort-runs) by model.",
			Buckets: append([]float64{.001}, secs...),
		}, []string{"model"}),
		credits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "showroom_credits_charged_total", Help: "Credits charged, all companies together.",
		}),
		warnings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "showroom_job_warnings_total", Help: "Warnings on succeeded jobs' results by code (CAR_CUT_BY_FRAME...).",
		}, []string{"code"}),
	}
	// Every code from the start, at 0: a rate over a series that appears
	// only with its first warning misses that one.
	for _, code := range showroom.WarningCodes {
		m.warnings.WithLabelValues(code)
	}
	m.reg.MustRegister(m.requests, m.requestDuration, m.jobDuration, m.processor, m.inference, m.modelWait, m.credits, m.warnings,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// WatchQueue adds gauges of q's depth and running jobs.
func (m *Metrics) WatchQueue(q Queue) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "showroom_queue_depth", Help: "Processing jobs queued or running, in every process.",
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			n, err := q.Depth(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "showroom_jobs_running", Help: "Processing jobs running in this process.",
		}, func() float64 { return float64(q.Running()) }),
	)
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Request records a finished HTTP request. route is the matched pattern,
// never the raw path, so that label values stay few.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.requestDuration.WithLabelValues(route).Observe(d.Seconds())
}

// Job records a finished job. The configuration's name is not recorded: it
// is chosen by a user.
func (m *Metrics) Job(status showroom.JobStatus, d time.Duration) {
	m.jobDuration.WithLabelValues(string(status)).Observe(d.Seconds())
}

// Step records one pipeline step's time.
func (m *Metrics) Step(name string, d time.Duration) {
	m.processor.WithLabelValues(name).Observe(d.Seconds())
}

// Inference records one model run.
func (m *Metrics) Inference(model string, d time.Duration) {
	m.inference.WithLabelValues(model).Observe(d.Seconds())
}

// ModelWait records how long a model run waited for its turn.
func (m *Metrics) ModelWait(model string, d time.Duration) {
	m.modelWait.WithLabelValues(model).Observe(d.Seconds())
}

// Charged records credits charged; which company paid is not recorded.
func (m *Metrics) Charged(amount int64) {
	m.credits.Add(float64(amount))
}

// Warning records one warning on a succeeded job's result. Codes are the
// pipeline's fixed set (showroom.WarningCodes), never a user's words.
func (m *Metrics) Warning(code string) {
	m.warnings.WithLabelValues(code).Inc()
}
