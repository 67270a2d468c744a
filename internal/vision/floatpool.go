package vision

import (
	"sync"
	"unsafe"
)

// floats keeps the float buffers of planes a segmentation is done with
// (plane.release): each 12 MP photo goes through some 150 MB of planes, and
// fresh buffers cost zeroing, page faults and garbage collections. Bounded
// by the bytes it holds.
var floats struct {
	sync.Mutex
	free  [][]float32
	bytes int
}

const pooledFloatBytes = 160 << 20

// getFloats returns n zeroed floats.
func getFloats(n int) []float32 {
	floats.Lock()
	for i, b := range floats.free {
		if cap(b) >= n && cap(b) <= n+n/4 {
			floats.free = append(floats.free[:i], floats.free[i+1:]...)
			floats.bytes -= 4 * cap(b)
			floats.Unlock()
			b = b[:n]
			clear(b)
			return b
		}
	}
	floats.Unlock()
	return make([]float32, n)
}

// putFloats hands b back; nothing may use it afterwards.
func putFloats(b []float32) {
	if cap(b) < 1<<16 { // small ones are cheap to allocate
		return
	}
	floats.Lock()
	defer floats.Unlock()
	for _, f := range floats.free {
		if unsafe.SliceData(f) == unsafe.SliceData(b) {
			return
		}
	}
	if floats.bytes+4*cap(b) > pooledFloatBytes {
		return
	}
	floats.free = append(floats.free, b[:0])
	floats.bytes += 4 * cap(b)
}

// RecycleFeatures hands the activations' data (Mask.Features) back to the
// pool the next run's are taken from; nothing may use them afterwards.
func RecycleFeatures(feats []Features) {
	for _, f := range feats {
		putFloats(f.Data)
	}
}
