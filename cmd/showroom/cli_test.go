package main

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/syncbuf"
)

// TestHelpAndVersion: help asked for is printed on standard output and is
// no error (exit 0); the version too; a mistake prints the usage on standard
// error and exits 2.
func TestHelpAndVersion(t *testing.T) {
	defer func(v string) { Version = v }(Version)
	Version = "v9.8.7-test"
	for _, tc := range []struct {
		args []string
		want string // on standard output
	}{
		{[]string{"--help"}, "Usage: showroom COMMAND"},
		{[]string{"-h"}, "Usage: showroom COMMAND"},
		{[]string{"help"}, "Usage: showroom COMMAND"},
		{[]string{"serve", "--help"}, "Usage: showroom serve [flags]"},
		{[]string{"worker", "-h"}, "Usage: showroom worker [flags]"},
		{[]string{"auth", "--help"}, "Usage: showroom auth [flags]"},
		{[]string{"help", "api"}, "Usage: showroom api [flags]"},
		{[]string{"process", "--help"}, "Usage: showroom process --config NAME"},
		{[]string{"admin", "--help"}, "showroom admin --data-dir DIR company add NAME"},
		{[]string{"admin", "user", "add", "--help"}, "Usage: showroom admin user add [flags]"},
		{[]string{"migrate", "--help"}, "Usage: showroom migrate [flags]"},
		{[]string{"version"}, "showroom v9.8.7-test\n"},
		{[]string{"--version"}, "showroom v9.8.7-test\n"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, err := run(t, nil, "", tc.args...)
			if err != nil {
				t.Fatalf("error %v (exit %d), want none; stderr %q", err, exitCode(err), stderr)
			}
			if !strings.Contains(stdout, tc.want) {
				t.Errorf("stdout %q lacks %q", stdout, tc.want)
			}
			if stderr != "" {
				t.Errorf("stderr %q, want nothing", stderr)
			}
		})
	}
	for _, tc := range []struct {
		args []string
		want string // on standard error
	}{
		{nil, "Usage: showroom COMMAND"},
		{[]string{"frobnicate"}, "unknown command \"frobnicate\"\nUsage: showroom COMMAND [flags], COMMAND one of admin, api, auth, migrate, process, serve, version, worker ("},
		{[]string{"help", "frobnicate"}, "unknown command \"frobnicate\"\nUsage: showroom COMMAND"},
		{[]string{"--verbose"}, "unknown flag --verbose\nUsage: showroom COMMAND"},
		// The commands that left for tools of their own say where they went.
		{[]string{"eval"}, "unknown command \"eval\"; eval is a tool of its own in the source tree: go run ./cmd/maskeval --images DIR\nUsage: showroom COMMAND"},
		{[]string{"gallery", "--images", "x"}, "go run ./cmd/gallery --images DIR"},
		{[]string{"serve", "--nope"}, "unknown flag --nope\nUsage: showroom serve [flags] ('showroom serve --help' lists the flags)"},
		{[]string{"worker", "--rate-limit", "5"}, "unknown flag --rate-limit"},
		{[]string{"process", "--nope"}, "Usage: showroom process --config NAME"},
		{[]string{"process", "--jobs", "many"}, `invalid value "many" for flag --jobs`},
		{[]string{"process", "--config"}, "flag needs an argument: --config"},
		{[]string{"version", "extra"}, ""},
		{[]string{"version", "--nope"}, "unknown flag --nope\nUsage: showroom version ("},
		{[]string{"admin", "frobnicate"}, "admin: unknown command \"frobnicate\"\nUsage: showroom admin [--data-dir DIR] COMMAND ... ('showroom admin --help' lists the commands)"},
		{[]string{"admin", "--data-dir", "x"}, "admin: no command given\nUsage: showroom admin"},
	} {
		t.Run(strings.Join(append([]string{"error"}, tc.args...), " "), func(t *testing.T) {
			stdout, stderr, err := run(t, nil, "", tc.args...)
			if err == nil || exitCode(err) != 2 {
				t.Fatalf("error %v, want a usage error (exit 2)", err)
			}
			// What the user reads: the standard error, then main's line.
			said := stderr + "showroom: " + message(err) + "\n"
			if !strings.Contains(said, tc.want) {
				t.Errorf("the program says %q, which lacks %q", said, tc.want)
			}
			// A mistake in a command or its flags is the error and one
			// usage line, not the whole help (only no command at all,
			// a question, is answered with the commands).
			if tc.args != nil && tc.want != "" {
				if n := strings.Count(said, "\n"); n != 2 || stderr != "" {
					t.Errorf("a flag mistake printed %d lines, want the error and the usage line:\n%s", n, said)
				}
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
		})
	}
}

// TestExitCodes runs the program as a process: the exit codes and streams
// a shell sees.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args           string
		code           int
		stdout, stderr bool   // whether each has output
		says           string // in stderr, when set
	}{
		{"--help", 0, true, false, ""},
		{"process --help", 0, true, false, ""},
		{"--version", 0, true, false, ""},
		{"frobnicate", 2, false, true, ""},
		{"worker --public-url http://x", 2, false, true, ""},
		{"serve --ort-arena exact", 2, false, true, `"exact" is not recycle, off, on or shrink`}, // the recycler replaced it
		{"serve --ort-keep -1", 2, false, true, "--ort-keep: -1 is negative"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			// serve opens its data directory before it reads the engine's
			// flags: a fresh one, not ./data.
			cmd.Env = append(os.Environ(), "SHOWROOM_TEST_MAIN="+tc.args, "SHOWROOM_DATA_DIR="+t.TempDir())
			var stdout, stderr syncbuf.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if e, ok := err.(*exec.ExitError); ok {
				code = e.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code {
				t.Errorf("exit code %d, want %d; stderr %q", code, tc.code, stderr.String())
			}
			if got := stdout.String() != ""; got != tc.stdout {
				t.Errorf("stdout %q: want output %v", stdout.String(), tc.stdout)
			}
			if got := stderr.String() != ""; got != tc.stderr {
				t.Errorf("stderr %q: want output %v", stderr.String(), tc.stderr)
			}
			if !strings.Contains(stderr.String(), tc.says) {
				t.Errorf("stderr %q, want it to say %q", stderr.String(), tc.says)
			}
		})
	}
}

// TestRoleFlags: each role offers exactly the flags it reads. A flag
// added to a role must be added here, after checking that the role uses it.
func TestRoleFlags(t *testing.T) {
	logs := []string{"data-dir", "database-url", "migrate", "log-format", "log-level", "shutdown-timeout"}
	engine := []string{"model", "model-dir", "ort-threads", "ort-runs", "ort-spinning", "ort-arena", "ort-keep", "warm-up", "max-pixels", "max-decode-bytes"}
	decodes := []string{"max-upload-pixels", "max-upload-decode-bytes", "max-decodes"}
	uploads := []string{"max-upload-bytes", "public-url"}
	admission := []string{"queue-length", "company-queue-share", "rate-limit", "rate-burst", "max-photo-bytes"}
	runs := []string{"workers", "company-workers", "storage-retry", "job-timeout", "rescue-after", "job-retention"}
	http := []string{"addr", "system", "body-idle-timeout", "body-timeout", "body-min-rate", "max-client-conns"}
	// The API checks callback URLs, the worker delivers to them.
	webhooks := []string{"webhook-allow-private"}
	join := func(sets ...[]string) []string { return slices.Concat(sets...) }
	for role, want := range map[string][]string{
		"serve": join(logs, http, []string{"blob-url", "min-free-bytes", "max-login-checks", "trusted-proxies", "metrics-addr", "demo"}, engine, decodes, uploads, admission, runs, webhooks, []string{"content-cache-bytes"}),
		// The auth service checks passwords and signs tokens: no system
		// of its own (the login names it), no blobs, no queue.
		"auth": join(logs, []string{"addr", "body-idle-timeout", "body-timeout", "body-min-rate", "max-client-conns", "max-login-checks", "trusted-proxies"}),
		// The API enqueues: no model, no runs, no cache of decoded content.
		"api": join(logs, http, []string{"blob-url", "min-free-bytes", "metrics-addr", "auth-url", "trusted-proxies"}, decodes, uploads, admission, []string{"max-pixels"}, webhooks),
		// The worker serves no API, only its probes and metrics on an
		// address: no system or bodies, no admission, no uploads.
		"worker": join(logs, []string{"addr", "blob-url", "min-free-bytes", "metrics-addr"}, engine, runs, decodes, webhooks, []string{"content-cache-bytes"}),
	} {
		t.Run(role, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(roleFlags(t, role)))
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s offers %v\nwant %v", role, got, want)
			}
		})
	}
}

// TestHelpListsDoubleDashFlags: every command's --help names its flags as
// the docs write them, --name (the flag package's own help writes -name),
// and says nothing of flags when there are none.
func TestHelpListsDoubleDashFlags(t *testing.T) {
	cmds := [][]string{{"admin", "user", "add"}}
	for name := range commands {
		cmds = append(cmds, []string{name})
	}
	for _, args := range cmds {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			stdout, _, err := run(t, nil, "", append(args, "--help")...)
			if err != nil {
				t.Fatal(err)
			}
			flags := 0
			for _, line := range strings.Split(stdout, "\n") {
				if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") {
					t.Errorf("a flag written with one dash: %q", line)
				}
				if strings.HasPrefix(line, "  --") {
					flags++
				}
			}
			if (flags > 0) != strings.Contains(stdout, "\nFlags:\n") {
				t.Errorf("%d flags listed, and the help says Flags: %v:\n%s", flags, strings.Contains(stdout, "Flags:"), stdout)
			}
		})
	}
	stdout, _, _ := run(t, nil, "", "version", "--help")
	if stdout != "Usage: showroom version\n" {
		t.Errorf("version --help: %q, want only its usage line", stdout)
	}
}

// TestProcessUnknownConfigurationMakesNoFolder: a --config that does not
// exist fails before the results' folder (or a data directory) is made.
func TestProcessUnknownConfigurationMakesNoFolder(t *testing.T) {
	dir := t.TempDir()
	photo := filepath.Join(dir, "car.jpg")
	if err := os.WriteFile(photo, []byte("not looked at"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "processed")
	_, _, err := run(t, nil, "", "process", "--config", "NoSuchConfiguration", "--out", out, photo)
	if err == nil || !strings.Contains(err.Error(), "NoSuchConfiguration") {
		t.Fatalf("process with an unknown configuration: %v, want an error naming it", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("process made %s before failing (stat: %v)", out, err)
	}
	// A company's own configuration, from a data directory that has no
	// database: neither the results' folder nor the data directory made.
	data := filepath.Join(dir, "data")
	_, _, err = run(t, nil, "", "process", "--config", "lot", "--company", "acme", "--data-dir", data, "--out", out, photo)
	if err == nil || !strings.Contains(err.Error(), "holds no Showroom database") {
		t.Errorf("process --company on a data directory that does not exist: %v, want an error saying so", err)
	}
	for _, made := range []string{out, data} {
		if _, err := os.Stat(made); !os.IsNotExist(err) {
			t.Errorf("process --company made %s before failing (stat: %v)", made, err)
		}
	}
}
