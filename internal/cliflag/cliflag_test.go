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
