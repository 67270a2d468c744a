package imaging

import "testing"

func TestSmoothstep(t *testing.T) {
	for _, tc := range []struct{ lo, hi, x, want float64 }{
		{0, 1, -1, 0}, {0, 1, 0, 0}, {0, 1, 0.5, 0.5}, {0, 1, 1, 1}, {0, 1, 2, 1},
		{2, 4, 3, 0.5}, {0, 10, 2.5, 0.15625},
	} {
		if got := Smoothstep(tc.lo, tc.hi, tc.x); got != tc.want {
			t.Errorf("Smoothstep(%v, %v, %v) = %v, want %v", tc.lo, tc.hi, tc.x, got, tc.want)
		}
	}
	for _, tc := range [][2]float64{{-0.5, 0}, {0.25, 0.25}, {1.5, 1}} {
		if got := Clamp01(tc[0]); got != tc[1] {
			t.Errorf("Clamp01(%v) = %v, want %v", tc[0], got, tc[1])
		}
	}
}
