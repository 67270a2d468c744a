package main

import (
	"os"
	"runtime"
	"strings"
	"syscall"
)

// mallocTunables are the glibc malloc settings Showroom runs with. ONNX
// Runtime mallocs and frees about a gigabyte of activations on every IS-Net
// run, and with glibc's defaults that memory is faulted in 4 KB at a time
// on every run (about 10 µs a fault on this VM) and piles up across
// threads. Measured on 12 MP photos (docs/benchmarks.md): inference 3.6 s
// -> 1.6 s, peak memory 1.86 -> 1.12 GB.
//
//   - hugetlb=1 backs malloc's big blocks with transparent huge pages
//     (where the kernel offers them on request): one fault per 2 MB
//     instead of 512.
//   - mmap_threshold=1 MB, fixed: blocks of 1 MB and more go back to the
//     system when freed instead of staying in the heap.
//   - arena_max=2: ONNX Runtime's threads share two arenas, not one each.
//
// The Makefile exports the same string for tests and benchmarks
// (TestMakefileMallocTunables).
const mallocTunables = "glibc.malloc.hugetlb=1:glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=1048576"

// goDebug makes Go return freed heap memory with MADV_FREE, which the kernel
// reclaims only under memory pressure, so the next photo's buffers (48 MB
// for 12 MP) are not faulted in page by page again; it is not a setting
// //go:debug accepts.
const goDebug = "madvdontneed=0"

// gcPercent is Go's garbage collection target (GOGC): collect when the
// heap has grown by a quarter since the last collection, not doubled.
// Showroom's heap is mostly pointer-free pixel buffers, which the collector
// does not scan, so collecting more often costs little CPU; and since freed
// memory stays resident (goDebug), the heap's high-water mark is the
// process's memory between model runs. Measured on 12 MP photos through
// default_white, one worker (docs/benchmarks.md): peak 1150 MiB at 100,
// 1040 at 50, 1017 at 25; and in `showroom serve --workers 1`, six photos,
// three runs each in turn: 1,069-1,078 MiB at 50, 1,013-1,018 at 25 (under
// the 1.1 GB target), the process's CPU time the same within the noise
// (52-57 s at 25, 54-58 s at 50).
const gcPercent = "25"

// reexecTuned re-executes the program with mallocTunables in GLIBC_TUNABLES,
// goDebug in GODEBUG and gcPercent in GOGC, which glibc and Go read only
// when a process starts. A variable the user set is left as it is. It returns without
// doing anything when both are in place (as in the re-executed process),
// when SHOWROOM_MALLOC_TUNING is "off", off Linux, and when the exec fails.
func reexecTuned() {
	if runtime.GOOS != "linux" || os.Getenv("SHOWROOM_MALLOC_TUNING") == "off" {
		return
	}
	env := os.Environ()
	changed := false
	if _, set := os.LookupEnv("GLIBC_TUNABLES"); !set {
		env, changed = append(env, "GLIBC_TUNABLES="+mallocTunables), true
	}
	if d, set := os.LookupEnv("GODEBUG"); !set {
		env, changed = append(env, "GODEBUG="+goDebug), true
	} else if !strings.Contains(d, "madvdontneed") {
		env, changed = append(env, "GODEBUG="+d+","+goDebug), true
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		env, changed = append(env, "GOGC="+gcPercent), true
	}
	if !changed {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	// Exec returns only on failure; the program then runs as it is.
	_ = syscall.Exec(exe, os.Args, env)
}
