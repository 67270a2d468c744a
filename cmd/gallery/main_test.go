package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// TestUsageErrors: without the photos named the command is a question,
// not a run of minutes; it says what it needs and exits 2.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{nil, {"--out", "x"}, {"--nope"}} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if !errors.Is(err, errUsage) {
			t.Errorf("%q: error %v, want a usage error", args, err)
		}
		if !strings.Contains(stderr.String(), "Usage: gallery --images DIR") {
			t.Errorf("%q: stderr %q lacks the synopsis", args, stderr.String())
		}
	}
}
