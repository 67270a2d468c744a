// Command showroom is the Showroom car-photo service: the auth service, the
// processing API, the workers and the admin and batch tools in one binary.
// The developers' tools (cmd/gallery, cmd/maskeval, cmd/glasstrain,
// cmd/docgen) are binaries of their own, which this one does not link.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/showroom/showroom/internal/showroom"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func main() {
	reexecTuned()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := NewMain()
	if err := m.Run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "showroom:", message(err))
		os.Exit(exitCode(err))
	}
}

// Main is the program: its streams and environment are fields so that tests
// drive the real program in-process.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Getenv reads the environment; flags fall back to SHOWROOM_* variables.
	Getenv func(string) string

	// ready, when set, receives the base URL once a server listens.
	ready func(baseURL string)
}

// NewMain returns a Main on the process's streams and environment.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

type command struct {
	run  func(m *Main, ctx context.Context, args []string) error
	help string
}

var commands = map[string]command{
	"serve":   {(*Main).runServe, "run every role in one process: auth under /auth, the API, the workers"},
	"auth":    {(*Main).runAuth, "run the auth service alone"},
	"api":     {(*Main).runAPI, "run the processing API alone, verifying tokens with the auth service's keys"},
	"admin":   {(*Main).runAdmin, "manage companies, users and signing keys"},
	"worker":  {(*Main).runWorker, "run processing jobs beside 'showroom api'; serves /healthz, /readyz and /metrics only"},
	"process": {(*Main).runProcess, "run a configuration on photos: here, or with --server on a running service"},
	"migrate": {(*Main).runMigrate, "apply pending database migrations (Showroom's and the job queue's) and exit"},
	"version": {(*Main).runVersion, "print the version"},
}

// Run runs the subcommand args[0] with the rest of args. Help asked for
// (--help, -h, help) is printed on standard output and is no error; usage
// printed because of a mistake goes to standard error with a usageError.
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		m.usage(m.Stderr)
		return usageError("no command given")
	}
	switch args[0] {
	case "-h", "-help", "--help":
		m.usage(m.Stdout)
		return nil
	case "help":
		if len(args) == 1 {
			m.usage(m.Stdout)
			return nil
		}
		// 'showroom help process' is 'showroom process --help'.
		args = []string{args[1], "--help"}
	case "-version", "--version":
		args = []string{"version"}
	}
	c, ok := commands[args[0]]
	if !ok {
		return unknownCommand(args[0])
	}
	if err := c.run(m, ctx, args[1:]); !errors.Is(err, flag.ErrHelp) {
		return err
	}
	// The flag set has printed the command's help on standard output.
	return nil
}

// movedTools are the commands that left the binary for tools of their own,
// as a user of an older version would type them.
var movedTools = map[string]string{
	"eval":    "go run ./cmd/maskeval --images DIR",
	"gallery": "go run ./cmd/gallery --images DIR (or make gallery)",
}

// unknownCommand is the error for 'showroom name', name no command: the
// error and one usage line naming the commands, not the whole help.
func unknownCommand(name string) error {
	msg := fmt.Sprintf("unknown command %q", name)
	if strings.HasPrefix(name, "-") {
		msg = "unknown flag " + name
	}
	if tool, ok := movedTools[name]; ok {
		msg += fmt.Sprintf("; %s is a tool of its own in the source tree: %s", name, tool)
	}
	return usageError(fmt.Sprintf("%s\nUsage: showroom COMMAND [flags], COMMAND one of %s ('showroom --help' says what each does)",
		msg, strings.Join(commandNames(), ", ")))
}

// commandNames returns the commands' names in order.
func commandNames() []string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (m *Main) usage(w io.Writer) {
	names := commandNames()
	var b strings.Builder
	b.WriteString("Usage: showroom COMMAND [flags]\n\nCommands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  %-8s %s\n", n, commands[n].help)
	}
	b.WriteString("\nRun 'showroom COMMAND --help' for a command's flags, 'showroom --version' for the version.\n")
	fmt.Fprint(w, b.String())
}

func (m *Main) runVersion(ctx context.Context, args []string) error {
	fs := m.newFlagSet("version")
	fs.synopsis = "showroom version"
	if rest, err := fs.Parse(args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("version takes no arguments")
	}
	fmt.Fprintln(m.Stdout, "showroom", Version)
	return nil
}

// usageError is a mistake in the command line: exit code 2.
type usageError string

func (e usageError) Error() string { return string(e) }

// message is what a user is told of err: the public message of a
// *showroom.Error, the whole text of anything else.
func message(err error) string {
	var e *showroom.Error
	if errors.As(err, &e) && e.Code != showroom.EInternal {
		return e.Message
	}
	return err.Error()
}

func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}
