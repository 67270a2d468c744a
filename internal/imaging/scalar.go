package imaging

import "math"

// Clamp01 returns v limited to 0..1.
func Clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// Smoothstep is 0 up to lo, 1 from hi, and the cubic 3t²−2t³ between (t
// the position of x from lo to hi): a ramp with no kink at either end.
func Smoothstep(lo, hi, x float64) float64 {
	t := Clamp01((x - lo) / (hi - lo))
	return t * t * (3 - 2*t)
}
