// A recycling allocator for ONNX Runtime's tensors.
//
// Without an arena, every large tensor of an IS-Net run is a fresh mmap
// from malloc: about 1.1 GB a run at 1024x1024, every page of which the
// kernel faults in and zeroes, for at most about 0.45 GB in use at once.
// ONNX Runtime's arenas keep what they have served instead, which is
// faster, but they place tensors so loosely that they hold 1.6 times the
// peak (the exact arena) or more. This allocator keeps the pages of freed
// large blocks and hands them to the next large tensor (splitting a block
// that is too big, growing one that is too small with mremap, which moves
// pages without copying them), and never holds more than the most ever in
// use at once: most of an arena's speed within the memory of none.
//
// Blocks under SR_LARGE come from malloc. Every block starts with a
// header of SR_HEADER bytes, which keeps ONNX Runtime's 64-byte alignment,
// saying whether it is large and how many bytes it maps.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ortapi.h"
#include "recycle.h"

enum {
	SR_HEADER = 64,          // ONNX Runtime aligns its buffers to 64 bytes
	SR_LARGE = 1 << 20,      // as glibc's mmap threshold in the service
	SR_PAGE = 4096,
};

// The parts of ONNX Runtime's C API (onnxruntime_c_api.h, MIT licence,
// (c) Microsoft) this file uses besides ortapi.h's.
typedef struct OrtEnv OrtEnv;
typedef struct OrtMemoryInfo OrtMemoryInfo;

typedef struct OrtAllocator {
	uint32_t version;
	void *(*Alloc)(struct OrtAllocator *self, size_t size);
	void (*Free)(struct OrtAllocator *self, void *p);
	const OrtMemoryInfo *(*Info)(const struct OrtAllocator *self);
	void *(*Reserve)(struct OrtAllocator *self, size_t size);                    // since 1.18
	OrtStatus *(*GetStats)(const struct OrtAllocator *self, void **out);         // since 1.23, optional
	void *(*AllocOnStream)(struct OrtAllocator *self, size_t size, void *stream); // optional
} OrtAllocator;

enum {
	ortLoggingLevelWarning = 2,
	ortDeviceAllocator = 0,
	ortMemTypeDefault = 0,
};

typedef OrtStatus *(*createEnvFn)(int level, const char *logid, OrtEnv **out);
typedef OrtStatus *(*createCpuMemoryInfoFn)(int type, int memType, OrtMemoryInfo **out);
typedef void (*releaseEnvFn)(OrtEnv *);
typedef void (*releaseMemoryInfoFn)(OrtMemoryInfo *);
typedef OrtStatus *(*registerAllocatorFn)(OrtEnv *, OrtAllocator *);
typedef OrtStatus *(*unregisterAllocatorFn)(OrtEnv *, const OrtMemoryInfo *);

typedef struct {
	size_t cap; // bytes mapped, header included; 0 for a malloc block
} header;

typedef struct {
	char *base;
	size_t cap;
} block;

static struct {
	OrtAllocator ort; // first, so ONNX Runtime's pointer is ours
	const void *const *api;
	OrtEnv *env;
	OrtMemoryInfo *info;

	pthread_mutex_t mu;
	block *kept; // freed large blocks, oldest first
	size_t nkept, capKept;
	int running;
	sr_recycle_stats st;
} R = {.mu = PTHREAD_MUTEX_INITIALIZER};

static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

static void *user(char *base) { return base + SR_HEADER; }

static void take_kept(size_t i) {
	R.st.held -= R.kept[i].cap;
	memmove(&R.kept[i], &R.kept[i + 1], (R.nkept - i - 1) * sizeof(block));
	R.nkept--;
}

static void unmap(char *base, size_t n) {
	munmap(base, n);
	R.st.unmaps++;
}

// keep_block adds a free block to the kept ones (or, if the list cannot
// grow, hands it back).
static void keep_block(char *base, size_t cap) {
	// Pieces of one mapping that meet again make one block again.
	for (size_t i = 0; i < R.nkept;) {
		block k = R.kept[i];
		if (k.base + k.cap == base || base + cap == k.base) {
			take_kept(i);
			if (k.base < base) base = k.base;
			cap += k.cap;
			continue;
		}
		i++;
	}
	if (R.nkept == R.capKept) {
		size_t n = R.capKept ? 2 * R.capKept : 64;
		block *k = realloc(R.kept, n * sizeof(block));
		if (!k) {
			unmap(base, cap);
			return;
		}
		R.kept = k;
		R.capKept = n;
	}
	R.kept[R.nkept++] = (block){base, cap};
	R.st.held += cap;
}

// hand_back unmaps kept blocks until at most limit bytes are held in
// all (in use and kept): first the smallest block that alone is enough,
// else the largest, again.
static void hand_back(uint64_t limit) {
	while (R.nkept > 0 && R.st.live + R.st.held > limit) {
		uint64_t over = R.st.live + R.st.held - limit;
		size_t pick = R.nkept, largest = 0;
		for (size_t i = 0; i < R.nkept; i++) {
			size_t c = R.kept[i].cap;
			if (c >= over && (pick == R.nkept || c < R.kept[pick].cap)) pick = i;
			if (c > R.kept[largest].cap) largest = i;
		}
		if (pick == R.nkept) pick = largest;
		block b = R.kept[pick];
		take_kept(pick);
		unmap(b.base, b.cap);
	}
}

static void *alloc_large(size_t size) {
	size_t need = round_up(size + SR_HEADER, SR_PAGE);
	pthread_mutex_lock(&R.mu);
	// The smallest kept block that holds it, the rest kept apart (to the
	// page: what a block holds beyond its tensor would count against the
	// bound without being used); else the largest kept block, grown; else a
	// new mapping. Then, if that holds more than the most ever in use at
	// once, kept blocks go back.
	size_t best = R.nkept, largest = R.nkept;
	for (size_t i = 0; i < R.nkept; i++) {
		size_t c = R.kept[i].cap;
		if (c >= need && (best == R.nkept || c < R.kept[best].cap)) best = i;
		if (largest == R.nkept || c > R.kept[largest].cap) largest = i;
	}
	char *base = NULL;
	size_t cap = need;
	if (best < R.nkept) {
		block b = R.kept[best];
		take_kept(best);
		base = b.base;
		cap = b.cap;
		if (need < cap) {
			keep_block(base + need, cap - need);
			cap = need;
		}
		R.st.reused += need;
	} else if (largest < R.nkept) {
		block b = R.kept[largest];
		take_kept(largest);
		void *p = mremap(b.base, b.cap, need, MREMAP_MAYMOVE);
		if (p == MAP_FAILED) {
			unmap(b.base, b.cap);
		} else {
			base = p;
			R.st.reused += b.cap;
			R.st.fresh += need - b.cap;
		}
	}
	if (!base) {
		void *p = mmap(NULL, need, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			pthread_mutex_unlock(&R.mu);
			return NULL;
		}
		madvise(p, need, MADV_HUGEPAGE);
		base = p;
		R.st.fresh += need;
	}
	R.st.live += cap;
	if (R.st.live > R.st.peak) R.st.peak = R.st.live;
	hand_back(R.st.peak);
	pthread_mutex_unlock(&R.mu);
	((header *)base)->cap = cap;
	return user(base);
}

static void *sr_alloc(OrtAllocator *self, size_t size) {
	(void)self;
	if (size == 0) return NULL;
	if (size + SR_HEADER >= SR_LARGE) return alloc_large(size);
	void *base;
	if (posix_memalign(&base, SR_HEADER, size + SR_HEADER) != 0) return NULL;
	((header *)base)->cap = 0;
	return user(base);
}

static void sr_free(OrtAllocator *self, void *p) {
	(void)self;
	if (!p) return;
	char *base = (char *)p - SR_HEADER;
	size_t cap = ((header *)base)->cap;
	if (cap == 0) {
		free(base);
		return;
	}
	pthread_mutex_lock(&R.mu);
	R.st.live -= cap;
	keep_block(base, cap);
	pthread_mutex_unlock(&R.mu);
}

static const OrtMemoryInfo *sr_info(const OrtAllocator *self) {
	(void)self;
	return R.info;
}

void sr_recycle_run_started(void) {
	pthread_mutex_lock(&R.mu);
	R.running++;
	pthread_mutex_unlock(&R.mu);
}

void sr_recycle_run_done(size_t keep) {
	pthread_mutex_lock(&R.mu);
	if (--R.running == 0 && R.st.held > keep) hand_back(R.st.live + keep);
	pthread_mutex_unlock(&R.mu);
}

void *sr_recycle_alloc(size_t size) { return sr_alloc(&R.ort, size); }
void sr_recycle_free(void *p) { sr_free(&R.ort, p); }

void sr_recycle_read_stats(sr_recycle_stats *out) {
	pthread_mutex_lock(&R.mu);
	*out = R.st;
	pthread_mutex_unlock(&R.mu);
}

char *sr_recycle_register(const char *path) {
	R.api = sr_ort_api(path);
	if (!R.api) return strdup("ONNX Runtime's API not found");
	// CreateEnv returns the process's one environment, the one
	// onnxruntime_go made, and counts this reference to it.
	char *msg = sr_ort_message(R.api, ((createEnvFn)R.api[ortCreateEnv])(ortLoggingLevelWarning, "showroom", &R.env));
	if (msg) return msg;
	msg = sr_ort_message(R.api, ((createCpuMemoryInfoFn)R.api[ortCreateCpuMemoryInfo])(ortDeviceAllocator, ortMemTypeDefault, &R.info));
	if (!msg) {
		R.ort = (OrtAllocator){.version = ortAPIVersion, .Alloc = sr_alloc, .Free = sr_free, .Info = sr_info, .Reserve = sr_alloc};
		msg = sr_ort_message(R.api, ((registerAllocatorFn)R.api[ortRegisterAllocator])(R.env, &R.ort));
		if (!msg) return NULL;
		((releaseMemoryInfoFn)R.api[ortReleaseMemoryInfo])(R.info);
	}
	((releaseEnvFn)R.api[ortReleaseEnv])(R.env);
	return msg;
}

char *sr_recycle_unregister(void) {
	// The last session is gone: what was kept for its next run goes back.
	pthread_mutex_lock(&R.mu);
	hand_back(R.st.live);
	pthread_mutex_unlock(&R.mu);
	char *msg = sr_ort_message(R.api, ((unregisterAllocatorFn)R.api[ortUnregisterAllocator])(R.env, R.info));
	((releaseMemoryInfoFn)R.api[ortReleaseMemoryInfo])(R.info);
	((releaseEnvFn)R.api[ortReleaseEnv])(R.env);
	R.env = NULL;
	R.info = NULL;
	return msg;
}
