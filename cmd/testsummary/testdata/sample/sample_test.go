// Package sample is what cmd/testsummary's test runs go test -json on: a
// test of each kind. It is its own module, so that ./... leaves it out.
package sample

import (
	"os"
	"testing"
)

func TestPasses(t *testing.T) { t.Log("a passing test's log, not shown") }

func TestSkipsForAReason(t *testing.T) { t.Skip("skipping: no server at 127.0.0.1:5432") }

func TestSkipsForTheSameReason(t *testing.T) { t.Skip("skipping: no server at 127.0.0.1:5432") }

func TestSubtests(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) { t.Skipf("skipping: %s is not there", "testdata/cars") })
}

func TestFails(t *testing.T) {
	if os.Getenv("SAMPLE_FAIL") == "" {
		return
	}
	t.Run("passing", func(t *testing.T) { t.Log("a passing subtest's log, not shown") })
	t.Run("inner", func(t *testing.T) { t.Error("the inner failure") })
	t.Error("the outer failure")
}
