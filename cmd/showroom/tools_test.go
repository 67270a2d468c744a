package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestServerLinksNoTools: the gallery, the evaluation, glass training and
// the docs generator are commands of their own, and the packages only
// they use stay out of the service's binary.
func TestServerLinksNoTools(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no go command to list the binary's packages")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "github.com/showroom/showroom/internal/gallery", "github.com/showroom/showroom/internal/glasstrain",
			"github.com/showroom/showroom/internal/maskcache", "golang.org/x/image/font":
			t.Errorf("the service's binary links %s, a tool's package", pkg)
		}
	}
}
