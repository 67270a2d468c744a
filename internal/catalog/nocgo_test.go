package catalog

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// rules are the packages that must compile without cgo: the domain, auth,
// the rules of content and configurations and this catalog, so that they
// build and test anywhere; the image libraries and the model stay behind
// the renderer.
var rules = []string{"./internal/showroom", "./internal/auth", "./internal/library", "./internal/catalog"}

// TestRulesNeedNoCgo: none of the rules' dependencies outside the standard
// library has cgo files (a package with a pure-Go fallback would still
// link its C one in the program), and they build with CGO_ENABLED=0.
func TestRulesNeedNoCgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no go tool on the PATH")
	}
	run := func(cgo string, args ...string) string {
		t.Helper()
		cmd := exec.Command(goTool, args...)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("CGO_ENABLED=%s go %s: %v\n%s", cgo, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	list := append([]string{"list", "-deps", "-f", "{{if not .Standard}}{{if .CgoFiles}}{{.ImportPath}}{{end}}{{end}}"}, rules...)
	if withCgo := strings.Fields(run("1", list...)); len(withCgo) > 0 {
		t.Errorf("the rules depend on packages with cgo: %s", strings.Join(withCgo, ", "))
	}
	run("0", append([]string{"build"}, rules...)...)
}
