package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "golang.org/x/image/webp"

	"github.com/showroom/showroom/internal/syncbuf"
)

// The README's walk-through is written for a user who has just typed
// 'make run' in a fresh clone: the server on 127.0.0.1:8080 and a demo
// password it printed. The test runs the same, on a free port, and puts the
// real address and password where the README has them.
const (
	readmeAddr        = "127.0.0.1:8080"
	readmePassword    = "'<the password make run printed>'"
	readmeSkipComment = "<!-- readme-test: skip"
)

// readmeBlock is one ```sh block of the README and the output shown right
// after it, if any.
type readmeBlock struct {
	line       int // of the opening fence, 1-based
	script     string
	outputLang string // "" (text) or "json"; want is empty without an output block
	want       string
}

var fence = regexp.MustCompile("^```([a-z]*)\\s*$")

// readmeBlocks returns the README's shell blocks in order, leaving out those
// right after a readme-test: skip comment (which says why).
func readmeBlocks(t *testing.T, readme string) []readmeBlock {
	t.Helper()
	lines := strings.Split(readme, "\n")
	type fenced struct {
		line       int
		lang, body string
		skip       bool
		after      int // index of the line after the closing fence
	}
	var all []fenced
	for i := 0; i < len(lines); i++ {
		m := fence.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		f := fenced{line: i + 1, lang: m[1], skip: i > 0 && strings.HasPrefix(lines[i-1], readmeSkipComment)}
		var body []string
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("README.md:%d: the block is never closed", f.line)
		}
		f.body, f.after = strings.Join(body, "\n")+"\n", i+1
		all = append(all, f)
	}
	var blocks []readmeBlock
	for k, f := range all {
		if f.lang != "sh" || f.skip {
			continue
		}
		b := readmeBlock{line: f.line, script: f.body}
		if k+1 < len(all) {
			next := all[k+1]
			between := strings.TrimSpace(strings.Join(lines[f.after:next.line-1], "\n"))
			if between == "" && (next.lang == "" || next.lang == "json") {
				b.outputLang, b.want = next.lang, next.body
			}
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// TestREADME runs every shell block of README.md with bash, in order and
// in one session, as a user who copies them into a terminal would: in a
// copy of the repository where 'make run' is going. A command that fails
// stops the run (set -euo pipefail: an unset variable fails too), and the
// output of each block followed by an output block must be that output
// (JSON compared as values, leaving out dates). The files the walk-through
// downloads must be images. The processing runs on the small model
// (SHOWROOM_MODEL=u2netp), the only thing set that a user would not set:
// the default IS-Net takes several times as long for the same commands.
func TestREADME(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping in -short: builds the program and processes photos")
	}
	requireModel(t, "u2netp")
	for _, tool := range []string{"bash", "curl", "jq", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: the README's commands need %s, which is not installed", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme))
	for _, s := range []string{readmeAddr, readmePassword} {
		if !strings.Contains(string(readme), s) {
			t.Fatalf("README.md no longer says %s; change what this test puts in its place", s)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	clone := copyRepository(t)
	env := append(os.Environ(), "SHOWROOM_MODEL=u2netp", "SHOWROOM_WARM_UP=0")
	addr, password, serverLog := makeRun(ctx, t, clone, env)

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for i, b := range blocks {
		fmt.Fprintf(&script, "echo '@@block %d@@'; echo '@@block %d@@' >&2\n", i, i)
		script.WriteString(readmeSubst(b.script, addr, password))
	}
	cmd := exec.CommandContext(ctx, "bash", "-c", script.String())
	cmd.Dir, cmd.Env = clone, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("the README's %d shell blocks ran in %s", len(blocks), time.Since(start).Round(time.Millisecond))
	outputs := splitBlocks(stdout.String(), len(blocks))
	errOutputs := splitBlocks(stderr.String(), len(blocks))
	if err != nil {
		last := len(outputs) - 1
		if last < 0 {
			t.Fatalf("bash: %v\n%s", err, stderr.String())
		}
		t.Fatalf("the block at README.md:%d failed (%v):\n%s\nits output:\n%s\nits errors:\n%s\nserver log (end):\n%s",
			blocks[last].line, err, blocks[last].script, outputs[last], errOutputs[last], tail(serverLog.String(), 3000))
	}
	for i, b := range blocks {
		if b.want == "" {
			continue
		}
		want := readmeSubst(b.want, addr, password)
		if msg := compareOutput(b.outputLang, outputs[i], want); msg != "" {
			t.Errorf("README.md:%d: the output differs from the block shown after it: %s\ngot:\n%s\nwant:\n%s",
				b.line, msg, outputs[i], want)
		}
	}
	for _, f := range []string{"car-studio.jpg", "car-white.jpg", "car.png", "car-grey.png", "check.jpg",
		"out/car1.default_white.jpg", "out/car2.default_white.jpg", "out-studio/car1.myStudio.jpg", "out-studio/car2.myStudio.jpg",
		"out-webp/car1.default_showroom.webp", "out-webp/car2.default_showroom.webp"} {
		if _, format, err := decodeConfigFile(filepath.Join(clone, f)); err != nil {
			t.Errorf("%s, which the README's commands write: %v", f, err)
		} else if want := strings.TrimPrefix(filepath.Ext(f), "."); want != format && !(want == "jpg" && format == "jpeg") {
			t.Errorf("%s is %s", f, format)
		}
	}
}

// copyRepository copies what a clone has and the README's commands use
// (not bin/ nor data/ nor anything else a developer made) into a folder of
// the test's.
func copyRepository(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "showroom")
	for _, dir := range []string{"cmd", "internal", "scripts"} {
		if err := os.CopyFS(filepath.Join(dst, dir), os.DirFS(filepath.Join("../..", dir))); err != nil {
			t.Fatal(err)
		}
	}
	for _, file := range []string{"go.mod", "go.sum", "Makefile", "README.md"} {
		b, err := os.ReadFile(filepath.Join("../..", file))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, file), b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

var demoLine = regexp.MustCompile(`password (\S+)\n  curl -s -X POST http://([^/]+)/auth/login`)

// makeRun runs 'make run' in dir, on a free port, until the test ends, and
// returns the address it listens on, the demo password it printed and its
// output so far.
func makeRun(ctx context.Context, t *testing.T, dir string, env []string) (addr, password string, out *syncbuf.Buffer) {
	t.Helper()
	cmd := exec.Command("make", "run")
	cmd.Dir = dir
	cmd.Env = append(env, "SHOWROOM_ADDR=127.0.0.1:0")
	// make's child is the server: stop them together, the way Ctrl-C does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out = new(syncbuf.Buffer)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	for tick := time.NewTicker(100 * time.Millisecond); ; {
		if m := demoLine.FindStringSubmatch(out.String()); m != nil {
			return m[2], m[1], out
		}
		select {
		case err := <-done:
			done <- err
			t.Fatalf("make run stopped (%v) before it printed the demo login:\n%s", err, out.String())
		case <-ctx.Done():
			t.Fatalf("make run printed no demo login in time:\n%s", out.String())
		case <-tick.C:
		}
	}
}

func readmeSubst(s, addr, password string) string {
	s = strings.ReplaceAll(s, readmeAddr, addr)
	return strings.ReplaceAll(s, readmePassword, "'"+password+"'")
}

// splitBlocks cuts what the script printed at the block markers; the
// result has one entry per block that started.
func splitBlocks(out string, n int) []string {
	var parts []string
	for i := range n {
		marker := fmt.Sprintf("@@block %d@@\n", i)
		j := strings.Index(out, marker)
		if j < 0 {
			break
		}
		if len(parts) > 0 {
			parts[len(parts)-1] = out[:j]
		}
		out = out[j+len(marker):]
		parts = append(parts, out)
	}
	return parts
}

// compareOutput compares a block's output with the one the README shows:
// text line by line, JSON as a stream of values whose dates (which change
// with every run) are left out. It returns what differs, or "".
func compareOutput(lang, got, want string) string {
	if lang != "json" {
		if trimLines(got) != trimLines(want) {
			return "text"
		}
		return ""
	}
	g, err := jsonValues(got)
	if err != nil {
		return "the output is not JSON: " + err.Error()
	}
	w, err := jsonValues(want)
	if err != nil {
		return "the README's output block is not JSON: " + err.Error()
	}
	if len(g) != len(w) {
		return fmt.Sprintf("%d JSON values, the README shows %d", len(g), len(w))
	}
	for i := range g {
		if !reflect.DeepEqual(g[i], w[i]) {
			return fmt.Sprintf("JSON value %d", i+1)
		}
	}
	return ""
}

func trimLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n "), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// volatileKeys change with every run.
var volatileKeys = map[string]bool{"createdDate": true, "lastModifiedDate": true, "timestamp": true}

func jsonValues(s string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	var vs []any
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return vs, nil
		} else if err != nil {
			return nil, err
		}
		vs = append(vs, dropVolatile(v))
	}
}

func dropVolatile(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if volatileKeys[k] {
				delete(v, k)
			} else {
				v[k] = dropVolatile(x)
			}
		}
	case []any:
		for i, x := range v {
			v[i] = dropVolatile(x)
		}
	}
	return v
}

func decodeConfigFile(path string) (image.Config, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return image.Config{}, "", err
	}
	defer f.Close()
	return image.DecodeConfig(bufio.NewReader(f))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
