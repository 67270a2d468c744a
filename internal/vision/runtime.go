package vision

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	ort "github.com/yalue/onnxruntime_go"
)

// ortEnv counts the users of ONNX Runtime's environment. The environment is
// process-wide in the C library (one OrtEnv, one loaded .so), so this is the
// one piece of package state: every Segmenter shares it and the last Close
// releases it.
var ortEnv struct {
	sync.Mutex
	users   int
	libPath string
}

// telemetryVar turns ONNX Runtime's telemetry off (see acquireEnv).
const telemetryVar = "ORT_DISABLE_TELEMETRY"

func acquireEnv(libPath string) error {
	ortEnv.Lock()
	defer ortEnv.Unlock()
	if ortEnv.users > 0 {
		if libPath != ortEnv.libPath {
			return fmt.Errorf("vision: ONNX Runtime already loaded from %s, cannot load %s too", ortEnv.libPath, libPath)
		}
		ortEnv.users++
		return nil
	}
	// ONNX Runtime's Linux build (1.30) starts Microsoft's telemetry SDK
	// with its environment: a .ses file and a mat-debug-<pid>.log in the
	// temp folder, a SQLite database and a device ID under
	// $HOME/.cache/Microsoft, and events sent over HTTPS. The service
	// writes nothing but its data (docs/deploy.md) and reports to no one;
	// ORT reads this variable as it creates the environment, so it must be
	// set before, and over any value the process was started with.
	if err := os.Setenv(telemetryVar, "1"); err != nil {
		return fmt.Errorf("vision: %w", err)
	}
	ort.SetSharedLibraryPath(libPath)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("vision: loading ONNX Runtime from %s: %w", libPath, err)
	}
	// A library that ignored the variable still sends no events.
	if err := ort.DisableTelemetry(); err != nil {
		return errors.Join(err, ort.DestroyEnvironment())
	}
	if err := registerRecycler(libPath); err != nil {
		return errors.Join(err, ort.DestroyEnvironment())
	}
	ortEnv.users, ortEnv.libPath = 1, libPath
	return nil
}

func releaseEnv() error {
	ortEnv.Lock()
	defer ortEnv.Unlock()
	ortEnv.users--
	if ortEnv.users > 0 {
		return nil
	}
	return errors.Join(unregisterRecycler(), ort.DestroyEnvironment())
}

// model is one ONNX Runtime session. ONNX Runtime's Run is safe for
// concurrent use on one session, so a model serves every request of the
// process; each call brings its own input and output tensors.
type model struct {
	name    string
	spec    modelSpec
	session *ort.DynamicAdvancedSession
	// runOpts are passed to every run; nil for ONNX Runtime's defaults.
	runOpts *ort.RunOptions
	// turns holds a token for each run in progress: at most
	// Config.ConcurrentRuns at once.
	turns chan struct{}
	// recycleKeep is Config.RecycleKeep when the session allocates from
	// the recycler, else -1.
	recycleKeep int
	// observe and observeWait are Config.ObserveInference and ObserveWait.
	observe, observeWait func(string, time.Duration)
	// featShapes are the activations' shapes (modelSpec.features), learnt
	// from the first run: later runs hand ONNX Runtime Go slices of those
	// shapes to write into, and keep them as the Features' data. Left to
	// ONNX Runtime, each activation would be allocated by it, copied into
	// Go by onnxruntime_go and copied again before the tensor is freed
	// (some 48 MB of Go heap per IS-Net run instead of 24). The slices come
	// from the float pool, where RecycleFeatures hands them back.
	featShapes atomic.Pointer[[]ort.Shape]
}

// newModel loads the model file spec names, under cfg's settings.
func newModel(cfg Config, spec modelSpec, libPath string) (*model, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("vision: session options: %w", err)
	}
	defer opts.Destroy()
	spin := boolFlag(cfg.Spinning)
	for _, step := range []func() error{
		func() error { return opts.SetIntraOpNumThreads(cfg.IntraOpThreads) },
		func() error { return opts.SetInterOpNumThreads(1) },
		func() error { return opts.SetCpuMemArena(cfg.MemArena) },
		func() error { return opts.SetMemPattern(cfg.MemPattern) },
		func() error {
			// "1": the environment's allocator, the recycler
			// (registerRecycler), instead of the session's own.
			return opts.AddSessionConfigEntry("session.use_env_allocators", boolFlag(cfg.Recycle))
		},
		func() error { return opts.AddSessionConfigEntry("session.intra_op.allow_spinning", spin) },
		func() error { return opts.AddSessionConfigEntry("session.inter_op.allow_spinning", spin) },
	} {
		if err := step(); err != nil {
			return nil, fmt.Errorf("vision: session options: %w", err)
		}
	}
	path := filepath.Join(cfg.ModelDir, spec.file)
	var ro *ort.RunOptions
	if cfg.ArenaShrinkage {
		// "cpu:0": the CPU arena; the freed regions go back after each run.
		if ro, err = newRunOptions(libPath, map[string]string{arenaShrinkage: "cpu:0"}); err != nil {
			return nil, err
		}
	}
	s, err := ort.NewDynamicAdvancedSession(path, []string{spec.input}, append([]string{spec.output}, spec.features...), opts)
	if err != nil {
		if ro != nil {
			ro.Destroy()
		}
		return nil, fmt.Errorf("vision: loading model %s: %w", path, err)
	}
	keep := -1
	if cfg.Recycle {
		keep = cfg.RecycleKeep
	}
	return &model{name: cfg.Model, spec: spec, session: s, runOpts: ro, recycleKeep: keep,
		turns: make(chan struct{}, cfg.concurrentRuns()), observe: cfg.ObserveInference, observeWait: cfg.ObserveWait}, nil
}

// run feeds input (planar RGB, normalised, size×size) to the model and
// returns its saliency map, size×size in 0..1, and the time the model
// took (not counting the wait for its turn). ONNX Runtime cannot be
// interrupted mid-run, so ctx ends only the wait for a turn.
func (m *model) run(ctx context.Context, input []float32) ([]float32, time.Duration, error) {
	sal, _, d, _, err := m.runWaiting(ctx, input)
	return sal, d, err
}

// runWaiting is run, also returning the model's intermediate activations
// (modelSpec.features) and how long the run waited for its turn.
func (m *model) runWaiting(ctx context.Context, input []float32) ([]float32, []Features, time.Duration, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, 0, 0, err
	}
	waitFrom := time.Now()
	select {
	case m.turns <- struct{}{}:
		defer func() { <-m.turns }()
	case <-ctx.Done():
		return nil, nil, 0, 0, ctx.Err()
	}
	wait := time.Since(waitFrom)
	if m.observeWait != nil {
		m.observeWait(m.name, wait)
	}
	n := int64(m.spec.size)
	in, err := ort.NewTensor(ort.NewShape(1, 3, n, n), input)
	if err != nil {
		return nil, nil, 0, 0, fmt.Errorf("vision: input tensor: %w", err)
	}
	defer in.Destroy()
	out, err := ort.NewEmptyTensor[float32](ort.NewShape(1, 1, n, n))
	if err != nil {
		return nil, nil, 0, 0, fmt.Errorf("vision: output tensor: %w", err)
	}
	defer out.Destroy()
	// The activations' tensors are left to ONNX Runtime to allocate (nil)
	// on the first run; afterwards they are Go slices of the shapes it gave.
	outs := make([]ort.Value, 1+len(m.spec.features))
	outs[0] = out
	if shapes := m.featShapes.Load(); shapes != nil {
		for i, sh := range *shapes {
			t, err := ort.NewTensor(sh, getFloats(int(sh.FlattenedSize())))
			if err != nil {
				for _, v := range outs[1 : i+1] {
					v.Destroy()
				}
				return nil, nil, 0, 0, fmt.Errorf("vision: activation tensor: %w", err)
			}
			outs[1+i] = t
		}
	}
	defer func() {
		for _, v := range outs[1:] {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	if m.recycleKeep >= 0 {
		recycleRunStarted()
		defer recycleRunDone(m.recycleKeep)
	}
	start := time.Now()
	if err := m.session.RunWithOptions([]ort.Value{in}, outs, m.runOpts); err != nil {
		return nil, nil, 0, 0, fmt.Errorf("vision: running %s: %w", m.name, err)
	}
	d := time.Since(start)
	if m.observe != nil {
		m.observe(m.name, d)
	}
	// Copy out: the tensor's memory is freed with it.
	sal := getFloats(int(n * n))
	copy(sal, out.GetData())
	if m.spec.minMax {
		normalise(sal)
	}
	feats := make([]Features, 0, len(outs)-1)
	shapes := make([]ort.Shape, 0, len(outs)-1)
	for i, v := range outs[1:] {
		t, ok := v.(*ort.Tensor[float32])
		shape := v.GetShape()
		if !ok || len(shape) != 4 || shape[2] != shape[3] {
			putFloats(sal)
			return nil, nil, 0, 0, fmt.Errorf("vision: %s's output %s is not a 1×C×S×S float tensor (%v)", m.name, m.spec.features[i], shape)
		}
		// GetData is the Go slice the tensor was made over (by NewTensor
		// above, or by onnxruntime_go's copy of ONNX Runtime's own): it
		// outlives the tensor, so it needs no copy of its own.
		feats = append(feats, Features{Channels: int(shape[1]), Side: int(shape[2]), Data: t.GetData()})
		shapes = append(shapes, shape)
	}
	if len(shapes) > 0 && m.featShapes.Load() == nil {
		m.featShapes.Store(&shapes)
	}
	return sal, feats, d, wait, nil
}

// boolFlag is b as ONNX Runtime's configuration entries spell it.
func boolFlag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// normalise rescales v to 0..1 by its own minimum and maximum.
func normalise(v []float32) {
	lo, hi := v[0], v[0]
	for _, x := range v {
		lo, hi = min(lo, x), max(hi, x)
	}
	if hi-lo < 1e-6 {
		clear(v)
		return
	}
	s := 1 / (hi - lo)
	for i, x := range v {
		v[i] = (x - lo) * s
	}
}

func (m *model) close() error {
	err := m.session.Destroy()
	if m.runOpts != nil {
		err = errors.Join(err, m.runOpts.Destroy())
	}
	return err
}
