package pipeline

import (
	"context"
	"image"
	"math"

	"github.com/showroom/showroom/internal/catalog"
)

// addBackground is AddBackgroundAndCropProcessor: the company's background
// image, scaled to cover the output, its wall–floor line (horizonLine) at
// the same share of the output's height where the cover allows, and the
// car standing on its floor, as large as the margins allow. The output is
// the crop of the covering background to outputWidth × outputHeight; with
// neither given, the background's size (narrowed to a car the photo cuts
// at two opposite sides, cutShape), made smaller where that would enlarge
// the car, and never with a long side under the photo's.
type addBackground struct {
	name                     string
	horizon                  float64
	left, right, top, bottom float64
	width, height            int
}

func newAddBackground(p catalog.AddBackgroundParams) step {
	return addBackground{
		name: p.Background, horizon: p.HorizonLine,
		left: p.MarginLeft, right: p.MarginRight,
		top: p.MarginTop, bottom: p.MarginBottom,
		width: p.OutputWidth, height: p.OutputHeight,
	}
}

func (a addBackground) apply(ctx context.Context, r *run, s *Scene) error {
	img, err := r.loadContent(ctx, a.name)
	if err != nil {
		return err
	}
	iw, ih := float64(img.Rect.Dx()), float64(img.Rect.Dy())
	ow, oh := float64(a.width), float64(a.height)
	switch {
	case a.width == 0 && a.height == 0:
		ow, oh = iw, ih
	case a.width == 0:
		// At least a pixel: a background 65,000 wide and 8 high covered
		// 64 high is 1 wide, not empty.
		ow = math.Max(math.Round(oh*iw/ih), 1)
	case a.height == 0:
		oh = math.Max(math.Round(ow*ih/iw), 1)
	}
	// Wheels found by an earlier PlaceCarProcessor are kept, with its
	// levelling; otherwise a tilted photo is levelled here.
	if s.hasCar() && !s.Keypoints {
		s.standOnWheels(true)
	}
	a.layout(s, img, ow, oh)
	if a.width == 0 && a.height == 0 {
		if w, h := a.cutShape(s, ow, oh); w != ow || h != oh {
			ow, oh = w, h
			a.layout(s, img, ow, oh)
		}
	}
	// Everything in the layout is a share of the canvas, so a smaller or
	// larger canvas is the same picture with the car smaller or larger.
	if a.width == 0 && a.height == 0 {
		w, h := ow, oh
		if sc := s.Place.Scale; s.hasCar() && sc > 1 {
			w, h = unenlarged(w, h, sc)
		}
		w, h = notSmallerThan(w, h, s.Photo.Rect.Size(), r.outputPixels())
		if w != ow || h != oh {
			a.layout(s, img, w, h)
		}
	}
	return nil
}

// cutShape returns the canvas ow×oh narrowed, when neither output size is
// given, to the car's own shape across two opposite sides the photo cuts
// it at: at the background's shape a car cut at its left and right (a
// close front view) is as tall as the canvas allows and one cut edge
// stands in the middle of the floor, a sliced car. The canvas keeps its
// height (its width for a car cut at the top and bottom), and the car
// fills it between the margins of its sides that are not cut.
func (a addBackground) cutShape(s *Scene, ow, oh float64) (float64, float64) {
	if !s.hasCar() {
		return ow, oh
	}
	cut := cutEdges(s.Matte, s.Box)
	st := s.stance()
	m := a.uncut(cut)
	switch {
	case cut.left && cut.right && st.height() > 0:
		sc := (1 - m.top - m.bottom) * oh / st.height()
		if w := math.Max(math.Round(sc*st.width()), 1); w < ow {
			return w, oh
		}
	case cut.top && cut.bottom && st.width() > 0:
		sc := (1 - m.left - m.right) * ow / st.width()
		if h := math.Max(math.Round(sc*st.height()), 1); h < oh {
			return ow, h
		}
	}
	return ow, oh
}

// notSmallerThan returns the default canvas w×h scaled up, where needed,
// so that its long side is the photo's: remove.bg and Photoroom never
// return less than they were given, and a listing shows a picture
// smaller than the photo as a step back (the car is enlarged with a good
// filter instead). It stays within limit pixels, so a default size never
// refuses a photo that was accepted.
func notSmallerThan(w, h float64, photo image.Point, limit int64) (float64, float64) {
	if long := float64(max(photo.X, photo.Y)); math.Max(w, h) < long {
		k := long / math.Max(w, h)
		w, h = math.Max(math.Round(w*k), 1), math.Max(math.Round(h*k), 1)
	}
	if limit > 0 && w*h > float64(limit) {
		k := math.Sqrt(float64(limit) / (w * h))
		w, h = math.Max(math.Floor(w*k), 1), math.Max(math.Floor(h*k), 1)
	}
	return w, h
}

// uncut returns a without its margins on the sides where the photo cuts
// the car (cut): there the car runs to the canvas's edge (frameCut).
func (a addBackground) uncut(cut edges) addBackground {
	for _, c := range []struct {
		on     bool
		margin *float64
	}{{cut.left, &a.left}, {cut.top, &a.top}, {cut.right, &a.right}, {cut.bottom, &a.bottom}} {
		if c.on {
			*c.margin = 0
		}
	}
	return a
}

// layout sets the canvas to ow×oh, the background covering it and the car
// on its floor.
func (a addBackground) layout(s *Scene, img *image.NRGBA, ow, oh float64) {
	iw, ih := float64(img.Rect.Dx()), float64(img.Rect.Dy())
	// Cover the output; put the background's horizon at the same share of
	// the output's height where the cover leaves room to move it.
	sc := math.Max(ow/iw, oh/ih)
	offX := (ow - iw*sc) / 2
	offY := math.Max(math.Min(a.horizon*oh-a.horizon*ih*sc, 0), oh-ih*sc)
	horizon := offY + a.horizon*ih*sc
	s.Canvas.X, s.Canvas.Y = int(ow), int(oh)
	s.Background = Background{Kind: BackgroundImage, Image: img, ImageScale: sc, ImageOffset: Point{offX, offY}, Name: a.name}
	s.Floor = horizon
	if !s.hasCar() {
		return
	}
	st := s.stance()
	cut := cutEdges(s.Matte, s.Box)
	a = a.uncut(cut)
	availW := (1 - a.left - a.right) * ow
	// zoom enlarges the background k times about its bottom edge, which
	// raises its wall–floor line.
	zoom := func(k float64) {
		bsc := sc * k
		offX, offY = (ow-iw*bsc)/2, oh-ih*bsc
		horizon = offY + a.horizon*ih*bsc
		s.Background.ImageScale, s.Background.ImageOffset = bsc, Point{offX, offY}
		s.Floor = horizon
	}
	if !cut.bottom {
		// A car that needs more floor than the background shows below its
		// wall line (a three-quarter view from above) gets it: the
		// background is enlarged about its bottom edge, which raises the
		// line, rather than the car shrunk.
		if k := a.floorZoom(st, ow, oh, horizon); k > 1 {
			zoom(k)
		}
	}
	csc, ground := a.onFloor(st, ow, oh, horizon)
	if cut.bottom {
		// No wheels to stand on the floor: as large as the margins allow.
		csc = math.Max(math.Min(availW/st.width(), (1-a.top)*oh/st.height()), minScale)
	} else {
		csc, ground = a.fillFloor(st, csc, ground, ow, oh, horizon)
	}
	x := a.left*ow + availW/2 + csc*(st.left-st.right)/2
	csc, x, ground = frameCut(st, cut, csc, x, ground, ow, oh)
	if cut.left && cut.right && !cut.top && !cut.bottom {
		// frameCut scaled the car to span the canvas's width, not to the
		// floor it stood on: it stays between the top and bottom margins
		// (which cutShape's canvas makes it fill), the top first.
		ground = math.Max(math.Min(ground, (1-a.bottom)*oh-csc*st.below), a.top*oh+csc*st.above)
	}
	if cut.bottom && horizon > 0 && horizon < oh && a.horizon > 0 && a.horizon < 1 {
		// Standing on the canvas's bottom edge, the car does not move for
		// the floor: seen close from a high camera its far wheels would
		// stand on the wall, so the floor is deepened under them instead,
		// the line at least minFloorGap of the car's height behind them.
		if line := ground - minFloorGap*csc*st.height(); line < horizon {
			// At 1 the background only moves down onto the canvas's
			// bottom, where it covered more than the canvas.
			zoom(math.Max(math.Min((oh-line)/((1-a.horizon)*ih*sc), maxFloorZoom), 1))
		}
	}
	s.Place = Placement{Anchor: st.anchor, To: Point{x, ground}, Scale: csc, Angle: s.Level}.
		onPixels(math.Max(st.width(), st.height()))
}

// maxFloorZoom is the most floorZoom enlarges a background: a studio's
// smooth wall and floor stand that much without showing its pixels.
const maxFloorZoom = 1.6

// floorZoom returns how much to enlarge the background about its bottom
// edge so that its floor below the wall–floor line (at row line) holds
// the car at fillShare of the canvas with the far wheels the full gap
// (floorGap) behind it and the near wheels above the bottom margin; 1
// when the floor is deep enough, or the background has none.
func (a addBackground) floorZoom(st stance, ow, oh, line float64) float64 {
	if line <= 0 || line >= oh || a.horizon <= 0 || a.horizon >= 1 {
		return 1
	}
	per := math.Max(st.width()/ow, st.height()/oh)
	want := math.Min(fillShare, math.Min((1-a.left-a.right)*ow/st.width(), (1-a.top-a.bottom)*oh/st.height())*per)
	if sc, _ := a.onFloor(st, ow, oh, line); sc*per >= want {
		return 1
	}
	big := want / per
	bot := (1 - a.bottom) * oh
	need := oh - (bot - big*(st.below+floorGap*st.height()))
	// Never more floor than the space between the margins.
	need = math.Min(need, bot-a.top*oh)
	return math.Max(1, math.Min(need/(oh-line), maxFloorZoom))
}

// floorGap is how far below the wall–floor line the far wheels stand, per
// unit of the car's height on the canvas. Seen from a camera at about half
// a car's height, the floor between a car and a wall a few metres behind
// it spans a fifth of the car's height or more in any photo (the ratio
// depends on distances, not on pixels), so this holds for every view and
// size; floorShare keeps it from eating a shallow floor. builtinart's
// studio thumbnail keeps a copy (TestThumbnailFloorGap pins the two).
const floorGap = 0.2

// floorShare is the most of the floor between the wall–floor line and the
// bottom margin that the gap behind the car may take: on a shallow floor
// the car stands nearer the line rather than shrinking to nothing.
const floorShare = 0.5

// onFloor returns the car's scale and the canvas row of its far wheels'
// ground line on an ow×oh canvas whose wall–floor line is at row line:
// the far wheels the gap below the line, the near wheels lower as
// photographed, the car inside the margins and as large as they allow.
// When the margins leave no floor (the line at or under the bottom
// margin), the car stands on the bottom margin.
func (a addBackground) onFloor(st stance, ow, oh, line float64) (scale, ground float64) {
	top, bot := a.top*oh, (1-a.bottom)*oh
	availW := (1 - a.left - a.right) * ow
	w, h := st.width(), st.height()
	sc := math.Min(availW/w, (bot-top)/h)
	room := bot - line
	if room <= 0 {
		sc = math.Max(sc, minScale)
		return sc, bot - sc*st.below
	}
	// The far wheels stand gap(sc) below the line, the smaller of
	// floorGap*sc*h and floorShare*room; a bound on sc holds when it holds
	// for either, or (under the top margin) for both.
	if st.below > 0 {
		// The near wheels above the bottom margin.
		sc = math.Min(sc, math.Max(room/(floorGap*h+st.below), (1-floorShare)*room/st.below))
	}
	if line > top {
		// The roof under the top margin.
		if d := st.above - floorGap*h; d > 0 {
			sc = math.Min(sc, (line-top)/d)
		}
		sc = math.Min(sc, (line+floorShare*room-top)/math.Max(st.above, 1))
	}
	sc = math.Max(sc, minScale)
	gap := math.Min(floorGap*sc*h, floorShare*room)
	// Only with the wall–floor line above the top margin does the car
	// stand further forward, to keep its roof inside.
	return sc, math.Max(line+gap, top+sc*st.above)
}

// fillShare is the least share of the canvas, in its binding dimension,
// the car is given on the floor when the margins alone would allow more:
// a three-quarter view seen from above needs more floor than a side view
// (its near wheels stand well below its far ones), and fitting it into
// the floor under the wall–floor line with the full gap shrinks it to
// half the canvas, so the listing's views would not look alike.
const fillShare = 0.72

// minFloorGap is the least gap, per unit of the car's height on the
// canvas, between the wall–floor line and the far wheels when the gap is
// narrowed for fillShare: the far wheels stay on the floor.
const minFloorGap = 0.04

// fillFloor returns the scale and far wheels' row of onFloor, the car
// enlarged to fillShare of the canvas where onFloor left it smaller and
// the margins allow that much: the gap behind it narrows (never under
// minFloorGap) and its near wheels may use the bottom margin down to
// edgeMargin; where even that leaves no room the car is as large as it
// allows.
func (a addBackground) fillFloor(st stance, sc, ground, ow, oh, line float64) (float64, float64) {
	per := math.Max(st.width()/ow, st.height()/oh) // fill per unit of scale
	want := math.Min(fillShare, math.Min((1-a.left-a.right)*ow/st.width(), (1-a.top-a.bottom)*oh/st.height())*per)
	if sc*per >= want || line <= 0 || line >= oh {
		return sc, ground
	}
	h := st.height()
	top, bot := math.Min(a.top, edgeMargin)*oh, (1-math.Min(a.bottom, edgeMargin))*oh
	big := want / per
	// The most the floor between the line and the bottom allows with the
	// least gap, and the roof under the top.
	big = math.Min(big, (bot-line)/(minFloorGap*h+st.below))
	if st.above > minFloorGap*h {
		big = math.Min(big, (line-top)/(st.above-minFloorGap*h))
	}
	if big <= sc {
		return sc, ground
	}
	// The far wheels as far below the line as the near ones' room allows,
	// up to the gap onFloor would give.
	g := math.Max(math.Min(floorGap*big*h, bot-big*st.below-line), minFloorGap*big*h)
	return big, math.Max(line+g, top+big*st.above)
}
