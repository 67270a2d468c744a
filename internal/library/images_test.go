package library_test

import (
	"github.com/showroom/showroom/internal/builtinart"
	"github.com/showroom/showroom/internal/library"
	"github.com/showroom/showroom/internal/pipeline"
)

// The program's image IO and art are the library's.
var (
	_ library.Images = pipeline.ContentImages{}
	_ library.Art    = builtinart.Art{}
)
