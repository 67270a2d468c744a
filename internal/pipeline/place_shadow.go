package pipeline

import (
	"context"

	"github.com/showroom/showroom/internal/catalog"
)

// placeShadow is PlaceShadowProcessor: it draws the detected shadow at
// opacity. The shadow layer lives in the photo's coordinates, so it follows
// the car wherever a placement puts it; drawing happens in Render.
type placeShadow struct{ opacity float64 }

func newPlaceShadow(p catalog.PlaceShadowParams) step { return placeShadow{opacity: p.Opacity} }

func (p placeShadow) apply(ctx context.Context, r *run, s *Scene) error {
	s.ShadowOpacity = p.opacity
	return nil
}
