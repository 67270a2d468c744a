// Package cliflag reads the command lines of Showroom's programs (the
// service's binary and the developers' tools) one way: help lists the
// flags as the docs write them, --name, on standard output; a mistake is
// answered with the error and the command's one usage line, not the whole
// help.
package cliflag

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"strings"
)

// Command is what a program says about itself.
type Command struct {
	// Name is how the command is typed: "gallery", "showroom serve".
	Name string
	// Synopsis is its one usage line, without "Usage: ".
	Synopsis string
	// About, when set, follows the synopsis in the help.
	About string
}

// Help writes the command's help: its synopsis, About and fs's flags.
func (c Command) Help(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\n", c.Synopsis)
	if c.About != "" {
		fmt.Fprintf(w, "\n%s\n", c.About)
	}
	PrintFlags(w, fs)
}

// Parse parses args into fs. --help (or -h) writes the help on stdout and
// returns flag.ErrHelp, which the caller treats as success. A mistake
// returns Mistake's error, for the caller to print; fs itself prints
// nothing.
func (c Command) Parse(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.Usage = func() { c.Help(fs.Output(), fs) }
	err := fs.Parse(args)
	if err == flag.ErrHelp {
		stdout.Write(out.Bytes())
		return err
	}
	if err != nil {
		return c.Mistake(messages.Replace(err.Error()))
	}
	return nil
}

// ParseTool is Parse for a tool that explains its own mistakes: a mistake
// is written on stderr as "NAME: error" over the usage line and ErrUsage
// returned; --help returns flag.ErrHelp as Parse does.
func (c Command) ParseTool(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	err := c.Parse(fs, args, stdout)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	fmt.Fprintf(stderr, "%s: %v\n", c.Name, err)
	return ErrUsage
}

// Refuse writes msg on stderr as a mistake of the command line (the
// synopsis under it, as Mistake) and returns ErrUsage: a flag that is
// needed and missing.
func (c Command) Refuse(stderr io.Writer, msg string) error {
	fmt.Fprintf(stderr, "%s: %v\n", c.Name, c.Mistake(msg))
	return ErrUsage
}

// Mistake returns msg with the command's synopsis under it and where to
// find the rest: two lines, not the whole help.
func (c Command) Mistake(msg string) error {
	return fmt.Errorf("%s\nUsage: %s ('%s --help' lists the flags)", msg, c.Synopsis, c.Name)
}

// messages rewrites the flag package's errors to name flags as the help
// and the docs do, --name.
var messages = strings.NewReplacer(
	"flag provided but not defined: -", "unknown flag --",
	"for flag -", "for flag --",
	"for -", "for --",
	"flag needs an argument: -", "flag needs an argument: --",
)

// Message returns the flag package's error err naming flags as --name.
func Message(err error) string { return messages.Replace(err.Error()) }

// PrintFlags lists fs's flags under "Flags:" as flag.PrintDefaults does,
// but written the way the docs write them, --name; nothing when there are
// none.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		fmt.Fprintf(&b, "  --%s", f.Name)
		typ, usage := flag.UnquoteUsage(f)
		if typ != "" {
			b.WriteString(" " + typ)
		}
		b.WriteString("\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t"))
		if !isZeroDefault(f) {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					fmt.Fprintf(&b, " (default %q)", f.DefValue)
					b.WriteString("\n")
					return
				}
			}
			fmt.Fprintf(&b, " (default %v)", f.DefValue)
		}
		b.WriteString("\n")
	})
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", b.String())
	}
}

// isZeroDefault reports whether f's default is its type's zero value, which
// the help leaves unsaid (as flag.PrintDefaults does).
func isZeroDefault(f *flag.Flag) bool {
	t := reflect.TypeOf(f.Value)
	if t.Kind() != reflect.Pointer {
		return f.DefValue == ""
	}
	zero, ok := reflect.New(t.Elem()).Interface().(flag.Value)
	return ok && f.DefValue == zero.String()
}

// ErrUsage is a mistake in a command line that the program has already
// explained on the standard error: Main exits with 2 for it.
var ErrUsage = errors.New("usage")

// Main runs a tool's run with the command line's arguments and a context
// an interrupt cancels, and exits as every tool does: 0 on success or
// after --help, 2 after a usage mistake (ErrUsage), 1 with "name: error"
// on the standard error after anything else.
func Main(name string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, ErrUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}
