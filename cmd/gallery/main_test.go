package main

import (
	"testing"

	"github.com/showroom/showroom/internal/cliflag/clitest"
)

// TestUsageErrors: without the photos named the command is a question,
// not a run of minutes; it says what it needs and exits 2. A mistake is
// the error and the one usage line, not the whole help.
func TestUsageErrors(t *testing.T) {
	clitest.Mistakes(t, run, "gallery", "gallery --images DIR", nil, []string{"--out", "x"}, []string{"--nope"}, []string{"--images"})
}

// TestHelp: --help is answered on stdout, with the flags as the docs
// write them, --name.
func TestHelp(t *testing.T) {
	clitest.Help(t, run, "gallery --images DIR", "images")
}
