package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/httpapi"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/metrics"
	"github.com/showroom/showroom/internal/pipeline"
	"github.com/showroom/showroom/internal/river"
	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/vision"
)

// engineFlags configure the image pipeline and its model.
type engineFlags struct {
	model      string
	modelDir   string
	ortThreads int
	ortRuns    int
	ortSpin    bool
	ortArena   string
	ortKeep    int
	warmUp     int
	maxPixels  int
	// maxDecodeBytes bounds a photo's decode by memory, as maxPixels does
	// by pixels: a 16-bit PNG takes twice an 8-bit one's bytes.
	maxDecodeBytes int64
}

func (e *engineFlags) register(fs *flagSet) {
	fs.String(&e.model, "model", vision.ModelISNet, "segmentation model: isnet (best) or u2netp (fast)")
	fs.String(&e.modelDir, "model-dir", defaultModelDir(), "directory of the ONNX Runtime library and the models ('make models' fills it)")
	fs.Int(&e.ortThreads, "ort-threads", 2, "ONNX Runtime threads per inference")
	fs.Int(&e.ortRuns, "ort-runs", 0, "model runs at once; the other jobs wait their turn for the model (0: the cores over --ort-threads, at least 1)")
	fs.Bool(&e.ortSpin, "ort-spinning", false, "let ONNX Runtime's threads busy-wait between operators (faster alone, steals cores from the rest)")
	fs.String(&e.ortArena, "ort-arena", arenaRecycle, "ONNX Runtime's tensor memory: recycle (no arena; freed tensors' pages reused, never more than the most in use at once: an arena's speed for about the memory of none), off (no arena, every tensor fresh from malloc), on (its arena: keeps IS-Net's peak working set, about 2 GB, for the life of the process) or shrink (on, its free memory handed back after each run)")
	fs.Int(&e.ortKeep, "ort-keep", vision.DefaultRecycleKeep>>20, "MiB of freed tensor memory --ort-arena recycle keeps between runs for the next (more: faster, the worker's peak higher; IS-Net has about 440 MiB in use at once)")
	fs.Int(&e.warmUp, "warm-up", 2, "photos (12 MP, drawn) run through default_white at start, before /readyz answers ready and jobs are taken (0: none)")
	e.registerAdmission(fs)
	fs.Int64(&e.maxDecodeBytes, "max-decode-bytes", showroom.DefaultMaxBytes, "most memory a photo's decode may take, in bytes, from its header (width x height x channels x bytes a channel, and a progressive JPEG's coefficients)")
}

// registerAdmission registers the limit a role that takes photos checks
// before it queues one: 'api' too, so that a photo over it is refused at
// once, not queued to fail on a worker.
func (e *engineFlags) registerAdmission(fs *flagSet) {
	fs.Int(&e.maxPixels, "max-pixels", showroom.DefaultMaxPixels, "largest photo or content image, in pixels, checked before decoding; also the largest canvas or output drawn, but never below 8192x8192")
}

// queueFlags configure processing jobs: admitting them (the roles that
// take requests) and running them (the roles that work). Fields a role does
// not register keep their defaults.
type queueFlags struct {
	workers       int
	companyRuns   int
	storageRetry  time.Duration
	queueLength   int
	companyShare  int
	jobTimeout    time.Duration
	rescueAfter   time.Duration
	retention     time.Duration
	ratePerMinute int
	rateBurst     int
	maxPhotoBytes int64
	// webhookAllowPrivate lets callback URLs reach loopback, private and
	// other non-public addresses.
	webhookAllowPrivate bool
}

// newQueueFlags returns the defaults, for the flags a role leaves out.
func newQueueFlags() queueFlags {
	d := river.DefaultConfig()
	return queueFlags{workers: d.Workers, companyRuns: d.CompanyWorkers, storageRetry: d.StorageRetry,
		queueLength: d.MaxQueued, companyShare: d.CompanyShare,
		jobTimeout: d.JobTimeout, rescueAfter: d.RescueAfter, retention: d.Retention,
		ratePerMinute: 600, rateBurst: 60, maxPhotoBytes: 25 << 20}
}

// registerAdmission adds the limits on what is accepted: for the roles that
// take processing requests (serve, api).
func (q *queueFlags) registerAdmission(fs *flagSet) {
	fs.Int(&q.queueLength, "queue-length", q.queueLength, "jobs queued or running before new ones are refused with 503")
	fs.Int(&q.companyShare, "company-queue-share", q.companyShare, "jobs one company may have queued or running before its new ones are refused with 503, while other companies are still admitted (0: half of --queue-length)")
	fs.Int(&q.ratePerMinute, "rate-limit", q.ratePerMinute, "processing requests per minute per company (0: no limit)")
	fs.Int(&q.rateBurst, "rate-burst", q.rateBurst, "processing requests a company may make at once above the rate")
	fs.Int64(&q.maxPhotoBytes, "max-photo-bytes", q.maxPhotoBytes, "largest photo accepted for processing, in bytes")
}

// registerRuns adds how jobs run: for the roles that work (serve, worker).
func (q *queueFlags) registerRuns(fs *flagSet) {
	fs.Int(&q.workers, "workers", q.workers, "photos processed at once by this process")
	fs.Int(&q.companyRuns, "company-workers", q.companyRuns, "jobs of one company running at once, in all processes together; its further jobs wait, untried, while other companies' run (0: one fewer than --workers, at least 1)")
	fs.Duration(&q.storageRetry, "storage-retry", q.storageRetry, "how long a job waits out a blob store that does not answer, untried, before its attempt counts as failed")
	fs.Duration(&q.jobTimeout, "job-timeout", q.jobTimeout, "a run taking longer is cancelled")
	fs.Duration(&q.rescueAfter, "rescue-after", q.rescueAfter, "a job left running by a crashed process is retried after this (more than --job-timeout)")
	fs.Duration(&q.retention, "job-retention", q.retention, "how long finished jobs and their results are kept")
}

// registerWebhooks adds where webhooks may go: for the roles that check
// callback URLs (serve, api) and those that deliver them (serve, worker).
func (q *queueFlags) registerWebhooks(fs *flagSet) {
	fs.Bool(&q.webhookAllowPrivate, "webhook-allow-private", q.webhookAllowPrivate, "let webhooks go to loopback, link-local, private and other non-public addresses (receivers on this host or network; tests)")
}

func (q *queueFlags) config(work bool) river.Config {
	c := river.DefaultConfig()
	c.Workers, c.MaxQueued, c.CompanyShare = q.workers, q.queueLength, q.companyShare
	c.CompanyWorkers, c.StorageRetry = q.companyRuns, q.storageRetry
	c.JobTimeout, c.RescueAfter, c.Retention = q.jobTimeout, q.rescueAfter, q.retention
	c.Work = work
	c.Webhooks.AllowPrivate = q.webhookAllowPrivate
	return c
}

func defaultModelDir() string { return vision.DefaultModelDir() }

// The values of --ort-arena; docs/benchmarks.md compares them.
const (
	arenaOff     = "off"
	arenaOn      = "on"
	arenaShrink  = "shrink"
	arenaRecycle = "recycle"
)

// newEngine starts the segmentation model and the pipeline over it.
func newEngine(e engineFlags, content pipeline.ContentLoader, m *metrics.Metrics) (*pipeline.Engine, func(), error) {
	cfg := vision.DefaultConfig(e.modelDir)
	cfg.Model = e.model
	cfg.IntraOpThreads = e.ortThreads
	cfg.ConcurrentRuns = e.ortRuns
	cfg.Spinning = e.ortSpin
	cfg.Recycle, cfg.RecycleKeep = false, e.ortKeep<<20
	switch e.ortArena {
	case arenaRecycle, "":
		cfg.Recycle = true
	case arenaOff:
	case arenaOn, arenaShrink:
		cfg.MemArena, cfg.MemPattern, cfg.ArenaShrinkage = true, true, e.ortArena == arenaShrink
	default:
		return nil, nil, usageError(fmt.Sprintf("--ort-arena: %q is not recycle, off, on or shrink", e.ortArena))
	}
	if e.ortKeep < 0 {
		return nil, nil, usageError(fmt.Sprintf("--ort-keep: %d is negative", e.ortKeep))
	}
	if m != nil {
		cfg.ObserveInference, cfg.ObserveWait = m.Inference, m.ModelWait
	}
	seg, err := vision.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	ecfg := pipeline.EngineConfig{Segmenter: seg, Content: content, MaxPixels: e.maxPixels, MaxDecodeBytes: e.maxDecodeBytes}
	if m != nil {
		ecfg.Observe = m.Step
	}
	engine, err := pipeline.NewEngine(ecfg)
	if err != nil {
		seg.Close()
		return nil, nil, err
	}
	return engine, func() { seg.Close() }, nil
}

// warmUpW and warmUpH are the warm-up photo's size: 12 MP, as the photos the service
// is measured on, so that the recycled buffers are as large as theirs.
const warmUpW, warmUpH = 4032, 3024

// warmUp runs the engine's warm-up in the background from start: the
// service answers not ready, and its queue takes no job (Queue.StartWhen),
// until it is done.
type warmUp struct {
	done chan struct{}
}

func startWarmUp(ctx context.Context, engine *pipeline.Engine, runs int, model string, log *slog.Logger) *warmUp {
	w := &warmUp{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		start := time.Now()
		took, err := engine.WarmUp(ctx, warmUpW, warmUpH, runs)
		if err != nil {
			// Jobs run anyway: they report their own errors.
			log.Error("warm-up failed", "model", model, "err", err, "duration_ms", time.Since(start).Milliseconds())
			return
		}
		runsMS := make([]int64, len(took))
		for i, d := range took {
			runsMS[i] = d.Milliseconds()
		}
		log.Info("warmed up", "model", model, "photos", runs, "duration_ms", time.Since(start).Milliseconds(), "runs_ms", runsMS)
	}()
	return w
}

// ready fails until the warm-up is done.
func (w *warmUp) ready(context.Context) error {
	select {
	case <-w.done:
		return nil
	default:
		return errors.New("warming up")
	}
}

// runner adapts the engine to the queue.
func runner(engine *pipeline.Engine) river.Runner {
	return func(ctx context.Context, j *showroom.Job, photo []byte) (*river.Output, error) {
		res, err := engine.Run(ctx, pipeline.Request{
			Processors: j.Processors, Photo: photo, Format: j.Format, Quality: j.Quality,
		})
		if err != nil {
			return nil, err
		}
		return &river.Output{Image: res.Image, MediaType: res.MediaType, Warnings: res.Warnings, Timings: res.Timings}, nil
	}
}

// blobURLUsage is --blob-url's help, the same for every command that has it.
const blobURLUsage = "blob store: s3://bucket[/prefix]?endpoint=URL&region=R (credentials from the AWS environment); default: the folder blobs in the data directory"

// openBlobs opens the blob store: the S3 bucket blobURL names, or without
// one the folder in the data directory.
func openBlobs(ctx context.Context, blobURL, dataDir string) (blob.Store, error) {
	if blobURL == "" {
		return blob.NewLocal(filepath.Join(dataDir, "blobs"))
	}
	cfg, err := blob.ParseS3URL(blobURL)
	if err != nil {
		return nil, usageError("--blob-url: " + err.Error())
	}
	return blob.NewS3(ctx, cfg)
}

// processing builds the queue, and with work set the engine that runs it.
// stop shuts both down, waiting up to the context's deadline for runs.
func processing(ctx context.Context, db *database, blobs blob.Store, lib *library.Service, e engineFlags, q queueFlags, work bool, m *metrics.Metrics, log *slog.Logger) (p *httpapi.Processing, stop func(context.Context) error, err error) {
	var run river.Runner
	var warm *warmUp
	closeEngine := func() {}
	if work {
		engine, closeFn, err := newEngine(e, lib, m)
		if err != nil {
			return nil, nil, err
		}
		warm = startWarmUp(ctx, engine, e.warmUp, e.model, log)
		// The warm-up ends soon after ctx does (it checks between
		// processors); the model must outlive it.
		closeEngine = func() { <-warm.done; closeFn() }
		run = runner(engine)
	}
	qu, err := db.newQueue(q.config(work), blobs, run, log,
		river.Observer{
			// The metrics drop the company and the configuration: they are
			// tenant data (internal/metrics says why).
			JobFinished: func(_ string, s showroom.JobStatus, d time.Duration) { m.Job(s, d) },
			Charged:     func(_ string, amount int64) { m.Charged(amount) },
			Warned:      m.Warning,
		})
	if err != nil {
		closeEngine()
		return nil, nil, err
	}
	if err := qu.EnableWebhooks(river.Webhooks{Store: db, Render: httpapi.JobJSON}); err != nil {
		closeEngine()
		return nil, nil, err
	}
	if warm != nil {
		// A job taken now would wait out the warm-up here, held from
		// the workers that could run it.
		qu.StartWhen(ctx, warm.done)
	} else if err := qu.Start(ctx); err != nil {
		closeEngine()
		return nil, nil, fmt.Errorf("start the queue: %w", err)
	}
	m.WatchQueue(qu)
	p = &httpapi.Processing{
		Queue: qu, Jobs: db, Configs: lib,
		MaxPhotoBytes: q.maxPhotoBytes, MaxPixels: e.maxPixels,
		RateLimit: showroom.RateLimit{PerMinute: float64(q.ratePerMinute), Burst: q.rateBurst}, Limiter: db,
		Webhooks: db, WebhookAllowPrivate: q.webhookAllowPrivate,
	}
	if warm != nil {
		p.Ready = func(ctx context.Context) error {
			if err := warm.ready(ctx); err != nil {
				return err
			}
			return qu.Working(ctx)
		}
	}
	return p, func(ctx context.Context) error {
		defer closeEngine()
		return qu.Stop(ctx)
	}, nil
}
