package cliflag

import (
	"bytes"
	"errors"
	"flag"
	"testing"
)

// TestParse: help on stdout with the flags as --name; a mistake is the
// error naming the flag as --name and one usage line; a command without
// flags has no Flags section.
func TestParse(t *testing.T) {
	cmd := Command{Name: "tool", Synopsis: "tool --in DIR"}
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.String("in", "", "the `folder` to read")
	fs.Int("n", 3, "how many")
	var stdout bytes.Buffer
	if err := cmd.Parse(fs, []string{"-h"}, &stdout); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	want := "Usage: tool --in DIR\n\nFlags:\n  --in folder\n    \tthe folder to read\n  --n int\n    \thow many (default 3)\n"
	if stdout.String() != want {
		t.Errorf("help %q, want %q", stdout.String(), want)
	}
	stdout.Reset()
	err := cmd.Parse(flag.NewFlagSet("tool", flag.ContinueOnError), []string{"--nope"}, &stdout)
	if want := "unknown flag --nope\nUsage: tool --in DIR ('tool --help' lists the flags)"; err == nil || err.Error() != want || stdout.Len() > 0 {
		t.Errorf("a bad flag: %v (stdout %q), want %q", err, stdout.String(), want)
	}
	var help bytes.Buffer
	Command{Name: "bare", Synopsis: "bare"}.Help(&help, flag.NewFlagSet("bare", flag.ContinueOnError))
	if help.String() != "Usage: bare\n" {
		t.Errorf("help without flags: %q", help.String())
	}
}

// TestParseTool: a tool's mistake, in a flag or a flag it needs, is
// explained on stderr as "NAME: error" over the usage line, and ErrUsage
// returned; --help and a good line write nothing there.
func TestParseTool(t *testing.T) {
	cmd := Command{Name: "tool", Synopsis: "tool --in DIR"}
	parse := func(args ...string) (string, error) {
		fs := flag.NewFlagSet("tool", flag.ContinueOnError)
		fs.String("in", "", "the `folder` to read")
		var stdout, stderr bytes.Buffer
		err := cmd.ParseTool(fs, args, &stdout, &stderr)
		return stderr.String(), err
	}
	if msg, err := parse("--nope"); !errors.Is(err, ErrUsage) || msg != "tool: unknown flag --nope\nUsage: tool --in DIR ('tool --help' lists the flags)\n" {
		t.Errorf("a bad flag: %v, %q", err, msg)
	}
	if msg, err := parse("--help"); !errors.Is(err, flag.ErrHelp) || msg != "" {
		t.Errorf("--help: %v, %q", err, msg)
	}
	if msg, err := parse("--in", "x"); err != nil || msg != "" {
		t.Errorf("a good line: %v, %q", err, msg)
	}
	var stderr bytes.Buffer
	if err := cmd.Refuse(&stderr, "--in DIR is needed"); !errors.Is(err, ErrUsage) || stderr.String() != "tool: --in DIR is needed\nUsage: tool --in DIR ('tool --help' lists the flags)\n" {
		t.Errorf("Refuse: %v, %q", err, stderr.String())
	}
}
