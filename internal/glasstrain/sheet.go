package glasstrain

import "image/color"

// SheetPixel returns one pixel of a glass sheet's second and third
// panels, beside the photo's colour c: the glass g (255 fully glass) over
// magenta, and the error map: green glass on annotated windows, blue
// windows missed, red glass on never-glass, white glass elsewhere, the
// photo dimmed where there is no glass and no window. cmd/glasstrain and
// cmd/maskeval --glass draw their sheets with it.
func SheetPixel(c color.NRGBA, g uint8, window, never bool) (overlay, errs color.NRGBA) {
	a := uint32(g)
	mix := func(v, over uint8) uint8 { return uint8((uint32(v)*(255-a) + uint32(over)*a) / 255) }
	overlay = color.NRGBA{mix(c.R, 255), mix(c.G, 0), mix(c.B, 255), 255}
	l := uint8((uint32(c.R)*54 + uint32(c.G)*183 + uint32(c.B)*19) / 256 / 3)
	errs = color.NRGBA{l, l, l, 255}
	switch glass := g >= 128; {
	case glass && window:
		errs = color.NRGBA{0, 200, 0, 255}
	case window:
		errs = color.NRGBA{0, 90, 255, 255}
	case glass && never:
		errs = color.NRGBA{255, 0, 0, 255}
	case glass:
		errs = color.NRGBA{235, 235, 235, 255}
	}
	return overlay, errs
}
