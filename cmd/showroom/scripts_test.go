package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelsScriptInstallsNpm: on a fresh Debian machine, which has no npm,
// 'make models' (and so 'make run' and 'make test') installs Debian's npm
// as the other set-up scripts install their packages, instead of stopping
// to ask for it. The script runs with stand-ins for apt-get, sudo and the
// npm it installs, which fails as a registry out of reach would, so that
// nothing is installed or fetched.
func TestModelsScriptInstallsNpm(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("skipping: no bash")
	}
	stubs, tmp := t.TempDir(), t.TempDir()
	// The commands the script runs until npm is needed, and nothing else:
	// the machine's own npm must not be found.
	for _, name := range []string{"mkdir", "mktemp", "rm", "tail", "cat", "id", "chmod"} {
		p, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("skipping: no %s", name)
		}
		if err := os.Symlink(p, filepath.Join(stubs, name)); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(tmp, "apt-get.log")
	write := func(name, script string) {
		if err := os.WriteFile(filepath.Join(stubs, name), []byte("#!"+bash+"\n"+script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write("sudo", `exec "$@"`+"\n")
	write("apt-get", `echo "$*" >>`+log+`
case "$*" in *install*npm*)
	printf '#!%s\necho "npm stand-in: no registry here" >&2\nexit 1\n' "`+bash+`" >`+filepath.Join(stubs, "npm")+`
	chmod +x `+filepath.Join(stubs, "npm")+`
esac
`)
	cmd := exec.Command(bash, "../../scripts/models.sh", filepath.Join(tmp, "models"))
	cmd.Env = []string{"PATH=" + stubs, "HOME=" + tmp, "TMPDIR=" + tmp}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("models.sh succeeded with an npm that cannot fetch:\n%s", out)
	}
	calls, _ := os.ReadFile(log)
	if !strings.Contains(string(calls), "install -y -qq --no-install-recommends npm") {
		t.Errorf("models.sh did not install npm (apt-get was called with %q):\n%s", calls, out)
	}
	if !strings.Contains(string(out), "npm stand-in: no registry here") {
		t.Errorf("models.sh did not go on to fetch with the npm it installed:\n%s", out)
	}
}
