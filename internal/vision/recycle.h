// The recycling allocator ONNX Runtime's sessions can allocate from
// (recycle.c; Config.RecycleMemory in Go).
#ifndef SHOWROOM_RECYCLE_H
#define SHOWROOM_RECYCLE_H

#include <stddef.h>
#include <stdint.h>

// sr_recycle_stats are the allocator's counters since it was made.
typedef struct {
	uint64_t fresh;   // bytes of large blocks mapped anew (page faults to come)
	uint64_t reused;  // bytes of large blocks served from recycled pages
	uint64_t live;    // bytes of large blocks in use now
	uint64_t held;    // bytes of large blocks freed and kept for reuse now
	uint64_t peak;    // the most bytes of large blocks ever in use at once
	uint64_t unmaps;  // blocks handed back to the system
} sr_recycle_stats;

// sr_recycle_register makes the allocator and registers it on ONNX
// Runtime's environment (the library at path, already loaded), so that
// sessions with session.use_env_allocators=1 allocate from it. It returns
// NULL or an error message to free.
char *sr_recycle_register(const char *path);

// sr_recycle_unregister takes it off the environment again and hands back
// the blocks it kept; those still in use stay valid until freed. Returns
// NULL or an error to free.
char *sr_recycle_unregister(void);

// sr_recycle_run_started and sr_recycle_run_done bracket every model run:
// when the last run in progress is done, the kept blocks over the budget
// are handed back.
void sr_recycle_run_started(void);
void sr_recycle_run_done(size_t keep);

void sr_recycle_read_stats(sr_recycle_stats *out);

// sr_recycle_alloc and sr_recycle_free are the allocator's own calls, as
// ONNX Runtime makes them, for tests.
void *sr_recycle_alloc(size_t size);
void sr_recycle_free(void *p);

#endif
