package vision

/*
#include <stdlib.h>
#include "recycle.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// The recycler (recycle.c) is the allocator sessions with Config.Recycle
// take their tensors from: it keeps the pages of freed large tensors for
// the next ones instead of returning them to the system, never holding more
// than the most ever in use at once, and after each run hands back what it
// keeps over Config.RecycleKeep. That saves most of the page faults of
// running without an arena (IS-Net allocates about 1 GB of tensors a run)
// without an arena's loose packing. It is registered on ONNX Runtime's
// environment, so every session of the process with Config.Recycle shares
// it; it allocates nothing until one does.

func registerRecycler(libPath string) error {
	cp := C.CString(libPath)
	defer C.free(unsafe.Pointer(cp))
	return recyclerError("registering", C.sr_recycle_register(cp))
}

func unregisterRecycler() error {
	return recyclerError("unregistering", C.sr_recycle_unregister())
}

func recyclerError(doing string, msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(msg))
	return fmt.Errorf("vision: %s the recycling allocator: %s", doing, C.GoString(msg))
}

// recycleRunStarted and recycleRunDone bracket each model run of a session
// on the recycler: when no run is left, the kept memory over keep bytes
// goes back to the system.
func recycleRunStarted()      { C.sr_recycle_run_started() }
func recycleRunDone(keep int) { C.sr_recycle_run_done(C.size_t(keep)) }

// recycleStats are the recycler's counters, for tests and benchmarks:
// bytes of large blocks mapped anew and served again, in use and kept
// now, the most in use at once, and the blocks handed back.
type recycleStats struct {
	Fresh, Reused, Live, Held, Peak, Unmaps uint64
}

func readRecycleStats() recycleStats {
	var s C.sr_recycle_stats
	C.sr_recycle_read_stats(&s)
	return recycleStats{uint64(s.fresh), uint64(s.reused), uint64(s.live), uint64(s.held), uint64(s.peak), uint64(s.unmaps)}
}

// recycleAlloc and recycleFree call the recycler as ONNX Runtime does, for
// tests.
func recycleAlloc(n int) unsafe.Pointer { return C.sr_recycle_alloc(C.size_t(n)) }
func recycleFree(p unsafe.Pointer)      { C.sr_recycle_free(p) }
