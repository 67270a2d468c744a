package vision

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "ortapi.h"

typedef struct OrtRunOptions OrtRunOptions;
typedef OrtStatus *(*addRunConfigEntryFn)(OrtRunOptions *, const char *, const char *);
typedef const char *(*getRunConfigEntryFn)(const OrtRunOptions *, const char *);

// showroom_add_run_config sets a run configuration entry; it returns NULL
// or an error message to free.
static char *showroom_add_run_config(const void *const *api, void *opts, const char *key, const char *value) {
	return sr_ort_message(api, ((addRunConfigEntryFn)api[ortAddRunConfigEntry])((OrtRunOptions *)opts, key, value));
}

static const char *showroom_get_run_config(const void *const *api, void *opts, const char *key) {
	return ((getRunConfigEntryFn)api[ortGetRunConfigEntry])((const OrtRunOptions *)opts, key);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"unsafe"

	ort "github.com/yalue/onnxruntime_go"
)

// arenaShrinkage is the run configuration entry that makes ONNX Runtime
// hand the free regions of the named devices' memory arenas back after
// each run (onnxruntime_run_options_config_keys.h).
const arenaShrinkage = "memory.enable_memory_arena_shrinkage"

// newRunOptions returns run options with the given configuration entries,
// for the library at libPath (loaded by acquireEnv).
//
// onnxruntime_go v1.27 has RunOptions and passes them to Run, but no
// setter for configuration entries, and its module is pinned, not patched.
// So the entries are set here, through ONNX Runtime's own C API, on the
// OrtRunOptions inside the RunOptions: an unexported field, its only one,
// reached with unsafe after reflection has checked that the struct still
// is one pointer.
func newRunOptions(libPath string, entries map[string]string) (*ort.RunOptions, error) {
	ro, err := ort.NewRunOptions()
	if err != nil {
		return nil, fmt.Errorf("vision: run options: %w", err)
	}
	api, handle, err := runOptionsAPI(libPath, ro)
	if err != nil {
		ro.Destroy()
		return nil, err
	}
	for k, v := range entries {
		ck, cv := C.CString(k), C.CString(v)
		msg := C.showroom_add_run_config(api, handle, ck, cv)
		C.free(unsafe.Pointer(ck))
		C.free(unsafe.Pointer(cv))
		if msg != nil {
			err := fmt.Errorf("vision: run option %s=%s: %s", k, v, C.GoString(msg))
			C.free(unsafe.Pointer(msg))
			ro.Destroy()
			return nil, err
		}
	}
	return ro, nil
}

// runConfigEntry reads an entry back from run options, for tests; "" when
// unset.
func runConfigEntry(libPath string, ro *ort.RunOptions, key string) (string, error) {
	api, handle, err := runOptionsAPI(libPath, ro)
	if err != nil {
		return "", err
	}
	ck := C.CString(key)
	defer C.free(unsafe.Pointer(ck))
	return C.GoString(C.showroom_get_run_config(api, handle, ck)), nil
}

// runOptionsAPI returns the C API of the library at libPath and the
// OrtRunOptions inside ro.
func runOptionsAPI(libPath string, ro *ort.RunOptions) (*unsafe.Pointer, unsafe.Pointer, error) {
	t := reflect.TypeFor[ort.RunOptions]()
	if t.NumField() != 1 || t.Field(0).Type.Kind() != reflect.Pointer {
		return nil, nil, errors.New("vision: onnxruntime_go's RunOptions is no longer one pointer; update newRunOptions")
	}
	handle := *(*unsafe.Pointer)(unsafe.Pointer(ro))
	if handle == nil {
		return nil, nil, errors.New("vision: run options not initialised")
	}
	cpath := C.CString(libPath)
	defer C.free(unsafe.Pointer(cpath))
	api := C.sr_ort_api(cpath)
	if api == nil {
		return nil, nil, fmt.Errorf("vision: ONNX Runtime's C API (version %d) not found in %s", C.ortAPIVersion, libPath)
	}
	return api, handle, nil
}
