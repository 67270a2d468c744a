package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestSummarise runs go test -json on testdata/sample, which has a test of
// each kind, and checks what make test shows of it: the package's line, a
// failing test's output without a passing test's, and a summary that names
// each skipped test under its reason.
func TestSummarise(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short: runs go test")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipping: no go command to run the sample tests with")
	}
	run := func(fail bool) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, goTool, "test", "-count=1", "-json", ".")
		cmd.Dir = "testdata/sample"
		cmd.Env = append(os.Environ(), "GOFLAGS=", "SAMPLE_FAIL=")
		if fail {
			cmd.Env = append(cmd.Env, "SAMPLE_FAIL=1")
		}
		in, err := cmd.Output()
		if (err != nil) != fail {
			t.Fatalf("go test (SAMPLE_FAIL=%v): %v\n%s", fail, err, in)
		}
		var out bytes.Buffer
		if err := summarise(bytes.NewReader(in), &out); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}

	out := run(false)
	for _, want := range []string{
		"ok  \tsample\t",
		"tests: 4 passed, 0 failed, 3 skipped",
		"  skipping: no server at 127.0.0.1:5432\n    sample: TestSkipsForAReason, TestSkipsForTheSameReason\n",
		"  skipping: testdata/cars is not there\n    sample: TestSubtests/two\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("passing run: no %q in\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"a passing test's log", "=== RUN", "failed:"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("passing run: %q in\n%s", unwanted, out)
		}
	}
	if !strings.HasSuffix(out, "TestSubtests/two\n") {
		t.Errorf("passing run does not end with the summary:\n%s", out)
	}

	out = run(true)
	for _, want := range []string{
		"the inner failure", "the outer failure", "--- FAIL: TestFails (",
		"FAIL\tsample\t",
		"tests: 4 passed, 2 failed, 3 skipped",
		"failed:\n    sample: TestFails/inner, TestFails\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("failing run: no %q in\n%s", want, out)
		}
	}
	for _, unwanted := range []string{"a passing test's log", "a passing subtest's log", "TestFails/passing", "=== RUN"} {
		if strings.Contains(out, unwanted) {
			t.Errorf("failing run: %q in\n%s", unwanted, out)
		}
	}
}
