package pipeline

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestKth checks the selection against a sort, on shuffled, sorted,
// reversed and tied values.
func TestKth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 1; n < 300; n += 7 {
		for kind := range 4 {
			v := make([]float32, n)
			for i := range v {
				switch kind {
				case 0:
					v[i] = rng.Float32()
				case 1:
					v[i] = float32(i)
				case 2:
					v[i] = float32(n - i)
				case 3:
					v[i] = float32(rng.IntN(3))
				}
			}
			sorted := slices.Sorted(slices.Values(v))
			for _, k := range []int{0, n / 4, n / 2, n * 3 / 4, n - 1} {
				if got := kth(slices.Clone(v), k); got != sorted[k] {
					t.Fatalf("n %d, kind %d: kth %d is %v, sorted %v", n, kind, k, got, sorted[k])
				}
			}
		}
	}
}
