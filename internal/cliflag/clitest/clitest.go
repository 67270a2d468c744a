// Package clitest checks that a developer tool reads its command line as
// package cliflag means it to: a mistake is the error and the one usage
// line on the standard error, exit 2; --help is the help on the standard
// output, with the flags written --name.
package clitest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/cliflag"
)

// Run is a tool's main body: it reads args and writes to stdout and
// stderr.
type Run func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// Mistakes runs each of bad (command lines the tool must refuse) and
// checks the answer: ErrUsage, nothing on stdout, and on stderr two lines,
// "NAME: ..." and the synopsis starting "Usage: " + usage. An unknown
// flag is named as the docs write it.
func Mistakes(t *testing.T, run Run, name, usage string, bad ...[]string) {
	t.Helper()
	for _, args := range bad {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if !errors.Is(err, cliflag.ErrUsage) {
			t.Errorf("%q: error %v, want a usage error", args, err)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], name+": ") || !strings.HasPrefix(lines[1], "Usage: "+usage) {
			t.Errorf("%q: stderr %q, want the error and the usage line", args, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("%q: stdout %q, want nothing", args, stdout.String())
		}
	}
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"--nope"}, &stdout, &stderr)
	if !strings.HasPrefix(stderr.String(), name+": unknown flag --nope\n") {
		t.Errorf("a bad flag: %q", stderr.String())
	}
}

// Help runs --help and checks the answer: flag.ErrHelp, the help on
// stdout starting "Usage: " + usage and listing --flag (a string flag),
// nothing on stderr, and no flag written with one dash.
func Help(t *testing.T, run Run, usage, flagName string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"--help"}, &stdout, &stderr); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("error %v, want flag.ErrHelp", err)
	}
	if stderr.Len() > 0 || !strings.HasPrefix(stdout.String(), "Usage: "+usage) {
		t.Errorf("stdout %q, stderr %q: want the help on stdout", stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "\n  --"+flagName+" string\n") {
		t.Errorf("the help does not list --%s:\n%s", flagName, stdout.String())
	}
	for _, line := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
			t.Errorf("a flag written with one dash: %q", line)
		}
	}
}
