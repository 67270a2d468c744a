// Command testsummary reads `go test -json` on its standard input and writes
// what a plain `go test` would (the "ok" line of each package that passes,
// the output of each test and package that fails, build errors), followed by
// a summary: how many tests passed, failed and were skipped, and why each
// was skipped, grouped by reason. `make test` pipes its run through it
// (scripts/gotest.sh) so that a skipped test is never silent; the exit
// status stays go test's, this program exits 0 unless its input breaks.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	if err := summarise(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
}

// event is one line of `go test -json` (cmd/test2json's TestEvent, and the
// build events of `go test -json`).
type event struct {
	Action     string
	Package    string
	ImportPath string
	Test       string
	Output     string
}

// test is a test (or subtest) that has not ended yet: its output so far.
type test struct {
	lines []string
}

type pkgState struct {
	lines []string         // output not attributed to a test
	tests map[string]*test // running tests and subtests, by name
	// top keeps, per top-level test, all output of it and its subtests in
	// the order it came, printed when the top-level test fails: the lines
	// of the tests that failed (or never ended), as a plain go test shows.
	top    map[string][]outLine
	passed map[string]bool // tests and subtests that passed or were skipped
}

// outLine is a line of output and the test that wrote it.
type outLine struct{ test, text string }

type skipped struct{ pkg, test string }

type summary struct {
	w          io.Writer
	pkgs       map[string]*pkgState
	passed     int
	failed     []skipped
	skips      map[string][]skipped // by reason
	reasons    []string             // in order of first appearance
	buildFails int
}

func summarise(r io.Reader, w io.Writer) error {
	s := &summary{w: w, pkgs: map[string]*pkgState{}, skips: map[string][]skipped{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			// Not an event: whatever go test wrote, pass it on.
			fmt.Fprintln(w, string(line))
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	s.flushRunning()
	s.report()
	return nil
}

func (s *summary) pkg(name string) *pkgState {
	p := s.pkgs[name]
	if p == nil {
		p = &pkgState{tests: map[string]*test{}, top: map[string][]outLine{}, passed: map[string]bool{}}
		s.pkgs[name] = p
	}
	return p
}

func topLevel(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i]
	}
	return name
}

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.w, e.Output)
		return
	case "build-fail":
		s.buildFails++
		return
	}
	if e.Package == "" {
		return
	}
	p := s.pkg(e.Package)
	if e.Test == "" {
		switch e.Action {
		case "output":
			p.lines = append(p.lines, e.Output)
		case "pass", "skip":
			// As a plain go test: only the package's "ok" (or "no test
			// files") line.
			for _, l := range p.lines {
				if strings.HasPrefix(l, "ok ") || strings.HasPrefix(l, "?   ") {
					fmt.Fprint(s.w, l)
				}
			}
			delete(s.pkgs, e.Package)
		case "fail":
			// Tests still running when the package failed (a panic, a
			// timeout) say why in their output.
			s.flushPackage(p)
			for _, l := range p.lines {
				fmt.Fprint(s.w, l)
			}
			delete(s.pkgs, e.Package)
		}
		return
	}
	switch e.Action {
	case "run":
		p.tests[e.Test] = &test{}
	case "output":
		t := p.tests[e.Test]
		if t == nil {
			t = &test{}
			p.tests[e.Test] = t
		}
		t.lines = append(t.lines, e.Output)
		top := topLevel(e.Test)
		p.top[top] = append(p.top[top], outLine{e.Test, e.Output})
	case "pass":
		s.passed++
		p.passed[e.Test] = true
		s.end(p, e.Test)
	case "skip":
		s.skip(e.Package, e.Test, p.tests[e.Test])
		p.passed[e.Test] = true
		s.end(p, e.Test)
	case "fail":
		s.failed = append(s.failed, skipped{e.Package, e.Test})
		if e.Test == topLevel(e.Test) {
			s.printTest(p, p.top[e.Test])
		}
		s.end(p, e.Test)
	}
}

func (s *summary) end(p *pkgState, name string) {
	delete(p.tests, name)
	if name == topLevel(name) {
		delete(p.top, name)
		for t := range p.passed {
			if topLevel(t) == name {
				delete(p.passed, t)
			}
		}
	}
}

// flushPackage prints the output of the tests of p that never ended.
func (s *summary) flushPackage(p *pkgState) {
	tops := make([]string, 0, len(p.top))
	for t := range p.top {
		tops = append(tops, t)
	}
	sort.Strings(tops)
	for _, t := range tops {
		s.printTest(p, p.top[t])
		delete(p.top, t)
	}
}

// flushRunning prints what packages that never ended wrote (the input
// stopped: go test was killed).
func (s *summary) flushRunning() {
	names := make([]string, 0, len(s.pkgs))
	for n := range s.pkgs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.pkgs[n]
		s.flushPackage(p)
		s.print(p.lines)
	}
}

// printTest writes a failed test's output as a plain go test shows it:
// the lines of it and its subtests that did not pass.
func (s *summary) printTest(p *pkgState, lines []outLine) {
	for _, l := range lines {
		if p.passed[l.test] || isProgress(l.text) {
			continue
		}
		fmt.Fprint(s.w, l.text)
	}
}

// print writes output without the -v progress lines.
func (s *summary) print(lines []string) {
	for _, l := range lines {
		if isProgress(l) {
			continue
		}
		fmt.Fprint(s.w, l)
	}
}

func isProgress(l string) bool {
	t := strings.TrimLeft(l, " ")
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// logPrefix is what t.Log puts before a message: the file and line.
var logPrefix = regexp.MustCompile(`^[^\s:]+\.go:\d+: `)

func (s *summary) skip(pkg, name string, t *test) {
	var msg []string
	if t != nil {
		for _, l := range t.lines {
			l = strings.TrimSpace(l)
			if l == "" || isProgress(l) || strings.HasPrefix(l, "--- SKIP") {
				continue
			}
			msg = append(msg, logPrefix.ReplaceAllString(l, ""))
		}
	}
	reason := strings.Join(msg, " ")
	if reason == "" {
		reason = "(no reason given)"
	}
	if _, ok := s.skips[reason]; !ok {
		s.reasons = append(s.reasons, reason)
	}
	s.skips[reason] = append(s.skips[reason], skipped{pkg, name})
}

func (s *summary) report() {
	skippedN := 0
	for _, r := range s.reasons {
		skippedN += len(s.skips[r])
	}
	fmt.Fprintf(s.w, "\ntests: %d passed, %d failed, %d skipped (subtests counted)", s.passed, len(s.failed), skippedN)
	if s.buildFails > 0 {
		if s.buildFails == 1 {
			fmt.Fprint(s.w, "; 1 package did not build")
		} else {
			fmt.Fprintf(s.w, "; %d packages did not build", s.buildFails)
		}
	}
	fmt.Fprintln(s.w)
	if len(s.reasons) > 0 {
		fmt.Fprintln(s.w, "skipped, by reason:")
		for _, r := range s.reasons {
			fmt.Fprintf(s.w, "  %s\n    %s\n", r, s.names(s.skips[r]))
		}
	}
	if len(s.failed) > 0 {
		fmt.Fprintln(s.w, "failed:")
		fmt.Fprintf(s.w, "    %s\n", s.names(s.failed))
	}
}

// names lists tests by package, shortest form: "pkg: TestA, TestB; pkg2: TestC",
// at most maxNames of them.
func (s *summary) names(ts []skipped) string {
	const maxNames = 12
	var b strings.Builder
	last := ""
	for i, t := range ts {
		if i == maxNames {
			fmt.Fprintf(&b, " and %d more", len(ts)-maxNames)
			break
		}
		pkg := shortPackage(t.pkg)
		switch {
		case i == 0:
			b.WriteString(pkg + ": ")
		case pkg != last:
			b.WriteString("; " + pkg + ": ")
		default:
			b.WriteString(", ")
		}
		last = pkg
		b.WriteString(t.test)
	}
	return b.String()
}

// shortPackage drops the module path from a package's import path.
func shortPackage(p string) string {
	const module = "github.com/showroom/showroom/"
	return strings.TrimPrefix(p, module)
}
