#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "ortapi.h"

typedef struct OrtApiBase {
	const void *(*GetApi)(uint32_t version);
	const char *(*GetVersionString)(void);
} OrtApiBase;

typedef const char *(*getErrorMessageFn)(const OrtStatus *);
typedef void (*releaseStatusFn)(OrtStatus *);

const void *const *sr_ort_api(const char *path) {
	void *h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
	if (!h) return NULL;
	const OrtApiBase *(*base)(void) = (const OrtApiBase *(*)(void))dlsym(h, "OrtGetApiBase");
	const void *api = base ? base()->GetApi(ortAPIVersion) : NULL;
	// onnxruntime_go keeps its own reference, so the library stays loaded.
	dlclose(h);
	return (const void *const *)api;
}

char *sr_ort_message(const void *const *api, OrtStatus *st) {
	if (!st) return NULL;
	char *msg = strdup(((getErrorMessageFn)api[ortGetErrorMessage])(st));
	((releaseStatusFn)api[ortReleaseStatus])(st);
	return msg;
}
