// The few declarations of ONNX Runtime's C API (onnxruntime_c_api.h, MIT
// licence, (c) Microsoft) that runopts.go and recycle.c use, and the lookup
// of its function table in the library onnxruntime_go loaded.
#ifndef SHOWROOM_ORTAPI_H
#define SHOWROOM_ORTAPI_H

#include <stdint.h>

typedef struct OrtStatus OrtStatus;

// OrtApi is a table of function pointers that ONNX Runtime only ever
// appends to, so a function's place in it is fixed for good: the indexes
// below are offsetof(OrtApi, name) / sizeof(void*) in the header
// onnxruntime_go v1.27.0 ships (API version 24).
enum {
	ortAPIVersion = 24, // the version onnxruntime_go asks for
	ortGetErrorMessage = 2,
	ortCreateEnv = 3,
	ortCreateCpuMemoryInfo = 69,
	ortReleaseEnv = 92,
	ortReleaseStatus = 93,
	ortReleaseMemoryInfo = 94,
	ortAddRunConfigEntry = 165,
	ortRegisterAllocator = 176,
	ortUnregisterAllocator = 177,
	ortGetRunConfigEntry = 373, // since API 23
};

// sr_ort_api returns the OrtApi of the library at path, which must be
// loaded already (onnxruntime_go dlopens it privately, RTLD_LOCAL, so its
// symbols are reached through a handle of our own to the same library), or
// NULL.
const void *const *sr_ort_api(const char *path);

// sr_ort_message returns NULL for a NULL status (success), else the
// status's message to free, releasing the status.
char *sr_ort_message(const void *const *api, OrtStatus *st);

#endif
