package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/cliflag"
)

// TestUsageErrors: without the photos named the command is a question,
// not a run of minutes; it says what it needs and exits 2. A mistake is
// the error and the one usage line, not the whole help.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{nil, {"--out", "x"}, {"--nope"}, {"--images"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if !errors.Is(err, cliflag.ErrUsage) {
			t.Errorf("%q: error %v, want a usage error", args, err)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "gallery: ") || !strings.HasPrefix(lines[1], "Usage: gallery --images DIR") {
			t.Errorf("%q: stderr %q, want the error and the usage line", args, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("%q: stdout %q, want nothing", args, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"--nope"}, &stdout, &stderr)
	if !strings.HasPrefix(stderr.String(), "gallery: unknown flag --nope\n") {
		t.Errorf("a bad flag: %q", stderr.String())
	}
}

// TestHelp: --help is answered on stdout, with the flags as the docs
// write them, --name.
func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("error %v, want flag.ErrHelp", err)
	}
	if stderr.Len() > 0 || !strings.HasPrefix(stdout.String(), "Usage: gallery --images DIR") {
		t.Errorf("stdout %q, stderr %q: want the help on stdout", stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "\n  --images string\n") {
		t.Errorf("the help does not list --images:\n%s", stdout.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
			t.Errorf("a flag written with one dash: %q", line)
		}
	}
}
