package vision

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

// Model names accepted by Config.Model.
const (
	ModelISNet  = "isnet"  // IS-Net medium: the default, best edges
	ModelU2Netp = "u2netp" // U2-Netp: about 7x faster, coarser
)

// ISNetFile is IS-Net's file in the model directory: the published fp16
// model widened to fp32 (see package onnxfp32 and scripts/models.sh).
const ISNetFile = "isnet-medium-fp32.onnx"

// LibraryFile is the ONNX Runtime shared library's file name in the model
// directory.
const LibraryFile = "libonnxruntime.so.1"

// Config configures a Segmenter. The zero value is not valid; start from
// DefaultConfig.
type Config struct {
	// Model is ModelISNet or ModelU2Netp.
	Model string
	// ModelDir holds the files `make models` fetches: the ONNX Runtime
	// library and the model files.
	ModelDir string
	// IntraOpThreads is ONNX Runtime's thread count inside one inference.
	// On 2 cores, 2 gives the lowest latency for one photo; see
	// docs/benchmarks.md.
	IntraOpThreads int
	// ConcurrentRuns is how many model runs may go at once on a Segmenter;
	// the others wait their turn. 0 picks the cores over IntraOpThreads (at
	// least 1): two runs of two threads each on two cores fight over them
	// (their intra-op workers wait on each other's descheduled shards) and
	// hold two sets of activations, while one at a time runs at full speed
	// and the other job's decode, render and encode fill the gaps. See
	// docs/benchmarks.md.
	ConcurrentRuns int
	// Spinning lets ONNX Runtime's worker threads busy-wait between
	// operators. Off by default: spinning threads steal the cores the
	// decoder and the matte refinement run on.
	Spinning bool
	// MemArena turns on ONNX Runtime's CPU memory arena. Off by default:
	// the arena grows to about 2 GB for IS-Net's 1 GB of activations and
	// keeps it for the life of the process (ArenaShrinkage returns it
	// after each run, but not the peak); see docs/benchmarks.md.
	MemArena bool
	// MemPattern turns on ONNX Runtime's memory-pattern planning, which
	// pre-allocates one block for all activations; off for the same reason
	// as MemArena.
	MemPattern bool
	// ArenaShrinkage has ONNX Runtime hand the arena's free memory back
	// after each run (run configuration entry
	// memory.enable_memory_arena_shrinkage), so that the arena's speed
	// comes without keeping its peak for the life of the process. It needs
	// MemArena.
	ArenaShrinkage bool
	// Recycle has the session allocate its tensors from the recycler
	// (recycle.go): without an arena, but keeping freed tensors' pages for
	// the next ones, never more than the most the runs had in use at once.
	// On by default: as fast as an arena for about the memory of none; see
	// docs/benchmarks.md. It excludes MemArena.
	Recycle bool
	// RecycleKeep is how many bytes of freed tensors the recycler keeps
	// between runs, for the next run to reuse; the rest goes back to the
	// system when a run ends. Keeping them all is fastest, but the memory
	// then adds to what the pipeline's render and encode need after the
	// model; the default keeps most of the speed within the 1.1 GB a
	// worker is sized for.
	RecycleKeep int
	// SecondOpinion loads U2-Netp beside IS-Net and runs it where the
	// car's foot looks cut (wantsSecondOpinion): it sees dark lower
	// bumpers IS-Net holds as background (cleanup_parts.go). On by
	// default with IS-Net; U2-Netp's file must then be in ModelDir.
	SecondOpinion bool
	// ObserveInference, when set, is called after every model run with the
	// model's name and the time the run took, for metrics.
	ObserveInference func(model string, d time.Duration)
	// ObserveWait, when set, is called before every model run with the
	// model's name and how long the run waited for its turn
	// (ConcurrentRuns), for metrics.
	ObserveWait func(model string, d time.Duration)
}

// DefaultRecycleKeep is Config.RecycleKeep's default: 384 MiB of IS-Net's
// about 440 MiB of tensors in use at once, the most measured to leave one
// worker's peak where it is without the recycler (docs/benchmarks.md).
const DefaultRecycleKeep = 384 << 20

// DefaultConfig returns the configuration measured best on 2 cores, with
// the model files in dir.
func DefaultConfig(dir string) Config {
	return Config{
		Model:          ModelISNet,
		ModelDir:       dir,
		SecondOpinion:  true,
		IntraOpThreads: 2,
		Recycle:        true,
		RecycleKeep:    DefaultRecycleKeep,
	}
}

// concurrentRuns is c.ConcurrentRuns, or when 0 the runs that fit the
// cores with IntraOpThreads threads each.
func (c Config) concurrentRuns() int {
	if c.ConcurrentRuns > 0 {
		return c.ConcurrentRuns
	}
	return max(runtime.NumCPU()/c.IntraOpThreads, 1)
}

// DefaultModelDir is where `make models` puts the files when
// SHOWROOM_MODEL_DIR is unset: $HOME/.cache/showroom/models.
func DefaultModelDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(".cache", "showroom", "models")
	}
	return filepath.Join(home, ".cache", "showroom", "models")
}

// Validate reports the first problem with c, including a missing model
// file, so a misconfigured service fails at start, not at the first photo.
func (c Config) Validate() error {
	spec, ok := models[c.Model]
	if !ok {
		return fmt.Errorf("vision: unknown model %q (want %q or %q)", c.Model, ModelISNet, ModelU2Netp)
	}
	if c.ModelDir == "" {
		return errors.New("vision: model directory not set (SHOWROOM_MODEL_DIR)")
	}
	if c.IntraOpThreads < 1 || c.IntraOpThreads > 64 {
		return fmt.Errorf("vision: intra-op threads %d out of range 1-64", c.IntraOpThreads)
	}
	if c.ConcurrentRuns < 0 || c.ConcurrentRuns > 64 {
		return fmt.Errorf("vision: concurrent runs %d out of range 0-64", c.ConcurrentRuns)
	}
	if c.Recycle && c.MemArena {
		return errors.New("vision: the recycler and the memory arena exclude each other")
	}
	if c.RecycleKeep < 0 {
		return fmt.Errorf("vision: recycler keep %d is negative", c.RecycleKeep)
	}
	if c.ArenaShrinkage && !c.MemArena {
		return errors.New("vision: arena shrinkage needs the memory arena")
	}
	files := []string{LibraryFile, spec.file}
	if c.usesSecondOpinion() {
		files = append(files, models[ModelU2Netp].file)
	}
	for _, f := range files {
		p := filepath.Join(c.ModelDir, f)
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("vision: model file %s is missing; run `make models` (or scripts/models.sh %s) to fetch it", p, c.ModelDir)
		}
	}
	return nil
}

// usesSecondOpinion reports whether a Segmenter of c runs U2-Netp as a
// second opinion: asked for, and the main model is not U2-Netp itself.
func (c Config) usesSecondOpinion() bool {
	return c.SecondOpinion && c.Model != ModelU2Netp
}

// modelSpec says how to feed a model and read its answer.
type modelSpec struct {
	file   string
	size   int // square input side
	input  string
	output string
	// features are the names of intermediate activations the graph also
	// outputs (each 1×C×S×S, S a divisor of size), fetched with the
	// saliency for the glass detector (Mask.Features); none for a model
	// without them.
	features []string
	// mean and std per channel, applied to pixel values in 0..255.
	mean, std [3]float32
	// minMax rescales the output to 0..1 by its own range (U2-Netp's
	// output is not calibrated).
	minMax bool
}

// models is read-only: the model table, not state.
var models = map[string]modelSpec{
	// The fp16 file as published, widened to fp32 by `make models`
	// (package onnxfp32): the same masks, faster, 190 MB less memory.
	ModelISNet: {
		file: ISNetFile, size: 1024, input: "input", output: "output",
		// The decoder's stage 2 (64 channels, 256×256), stage 3 (128
		// channels, 128×128) and stage 4 (256 channels, 64×64), outputs
		// of the published graph already: fetching them costs a copy, not
		// a computation.
		features: []string{"input.1088", "input.948", "input.832"},
		mean:     [3]float32{128, 128, 128}, std: [3]float32{256, 256, 256},
	},
	ModelU2Netp: {
		file: "u2netp.onnx", size: 320, input: "input.1", output: "1959",
		mean:   [3]float32{0.485 * 255, 0.456 * 255, 0.406 * 255},
		std:    [3]float32{0.229 * 255, 0.224 * 255, 0.225 * 255},
		minMax: true,
	},
}
