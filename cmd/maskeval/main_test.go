package main

import (
	"testing"

	"github.com/showroom/showroom/internal/cliflag/clitest"
)

// TestUsageErrors: without the photos named the command is a question,
// not a run of minutes; it says what it needs and exits 2. A mistake is
// the error and the one usage line, not the whole help.
func TestUsageErrors(t *testing.T) {
	clitest.Mistakes(t, run, "maskeval", "maskeval [--glass] --images DIR", nil, []string{"--glass"}, []string{"--nope"}, []string{"--images"})
}

// TestHelp: --help is answered on stdout, with the flags as the docs
// write them, --name.
func TestHelp(t *testing.T) {
	clitest.Help(t, run, "maskeval [--glass] --images DIR", "images")
}
