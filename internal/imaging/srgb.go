package imaging

import "math"

// SRGBToLinear maps an 8-bit sRGB value to linear light 0..1.
var SRGBToLinear = func() (t [256]float32) {
	for i := range t {
		v := float64(i) / 255
		if v <= 0.04045 {
			t[i] = float32(v / 12.92)
		} else {
			t[i] = float32(math.Pow((v+0.055)/1.055, 2.4))
		}
	}
	return t
}()

// linearToSRGBTable has 4096 steps: finer than 8-bit output needs in the
// darks, where the sRGB curve is steepest.
var linearToSRGBTable = func() (t [4097]uint8) {
	for i := range t {
		v := float64(i) / 4096
		if v <= 0.0031308 {
			v *= 12.92
		} else {
			v = 1.055*math.Pow(v, 1/2.4) - 0.055
		}
		t[i] = uint8(math.Round(math.Max(0, math.Min(1, v)) * 255))
	}
	return t
}()

// LinearToSRGB maps linear light 0..1 (clamped) to 8-bit sRGB.
func LinearToSRGB(v float32) uint8 {
	if v <= 0 {
		return 0
	}
	if v >= 1 {
		return 255
	}
	return linearToSRGBTable[int(v*4096+0.5)]
}
