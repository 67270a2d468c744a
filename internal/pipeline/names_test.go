package pipeline

import (
	"testing"

	"github.com/showroom/showroom/internal/catalog"
)

// The tests write configurations as the catalog's steps and name its
// processors and built-ins unqualified, as they did when the catalog lived
// in this package.
type Step = catalog.Step

const (
	DetectCarMask          = catalog.DetectCarMask
	DetectCarShadow        = catalog.DetectCarShadow
	PlaceShadow            = catalog.PlaceShadow
	CleanBackground        = catalog.CleanBackground
	SemiTransparentWindows = catalog.SemiTransparentWindows
	PlaceCar               = catalog.PlaceCar
	AddBackgroundAndCrop   = catalog.AddBackgroundAndCrop
	AddPoster              = catalog.AddPoster
	Resize                 = catalog.Resize

	StudioBackground = catalog.StudioBackground
	StudioHorizon    = catalog.StudioHorizon
	StudioWidth      = catalog.StudioWidth
	StudioHeight     = catalog.StudioHeight
	SystemCompany    = catalog.SystemCompany
)

var (
	PredefinedConfiguration  = catalog.PredefinedConfiguration
	PredefinedConfigurations = catalog.PredefinedConfigurations
	DecodeSteps              = catalog.DecodeSteps
)

// stepParams returns a step's typed parameters, as a run parses them.
func stepParams[P catalog.Params](tb testing.TB, s Step) P {
	tb.Helper()
	p, err := catalog.ParseStep(s)
	if err != nil {
		tb.Fatal(err)
	}
	return p.(P)
}
