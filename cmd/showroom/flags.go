package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// flagSet returns a flag set for a subcommand whose flags fall back to
// SHOWROOM_* environment variables: --data-dir reads SHOWROOM_DATA_DIR.
type flagSet struct {
	*flag.FlagSet
	m      *Main
	name   string
	envErr error
	// synopsis is the command's one usage line, "showroom NAME [flags]"
	// unless the command sets it; about, when set, follows it in --help.
	synopsis, about string
}

// newFlagSet returns the flag set of 'showroom name'. Its Usage (--help)
// prints the synopsis, about and the flags, as --name; a mistake prints
// only the error and the synopsis (Parse).
func (m *Main) newFlagSet(name string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet("showroom "+name, flag.ContinueOnError), m: m, name: name,
		synopsis: "showroom " + name + " [flags]"}
	fs.SetOutput(m.Stderr)
	fs.FlagSet.Usage = fs.usage
	return fs
}

func (fs *flagSet) usage() {
	w := fs.Output()
	fmt.Fprintf(w, "Usage: %s\n", fs.synopsis)
	if fs.about != "" {
		fmt.Fprintf(w, "\n%s\n", fs.about)
	}
	fs.printFlags(w)
}

// printFlags lists the flags as flag.PrintDefaults does, but written the
// way the docs write them, --name; nothing when the command has none.
func (fs *flagSet) printFlags(w io.Writer) {
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

// envName is the environment variable a flag falls back to.
func envName(flagName string) string {
	return "SHOWROOM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// env returns the environment value for flag name, or def.
func (fs *flagSet) env(name, def string) string {
	if v := fs.m.Getenv(envName(name)); v != "" {
		return v
	}
	return def
}

func (fs *flagSet) String(p *string, name, def, usage string) {
	fs.StringVar(p, name, fs.env(name, def), usage+" (env "+envName(name)+")")
}

func (fs *flagSet) Int(p *int, name string, def int, usage string) {
	v := def
	if s := fs.env(name, ""); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			v = n
		} else {
			fs.deferErr(fmt.Errorf("%s: %q is not a whole number", envName(name), s))
		}
	}
	fs.IntVar(p, name, v, usage+" (env "+envName(name)+")")
}

func (fs *flagSet) Int64(p *int64, name string, def int64, usage string) {
	v := def
	if s := fs.env(name, ""); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			v = n
		} else {
			fs.deferErr(fmt.Errorf("%s: %q is not a whole number", envName(name), s))
		}
	}
	fs.Int64Var(p, name, v, usage+" (env "+envName(name)+")")
}

func (fs *flagSet) Bool(p *bool, name string, def bool, usage string) {
	v := def
	if s := fs.env(name, ""); s != "" {
		if b, err := strconv.ParseBool(s); err == nil {
			v = b
		} else {
			fs.deferErr(fmt.Errorf("%s: %q is not true or false", envName(name), s))
		}
	}
	fs.BoolVar(p, name, v, usage+" (env "+envName(name)+")")
}

func (fs *flagSet) Duration(p *time.Duration, name string, def time.Duration, usage string) {
	v := def
	if s := fs.env(name, ""); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			v = d
		} else {
			fs.deferErr(fmt.Errorf("%s: %q is not a duration such as 30s or 1h", envName(name), s))
		}
	}
	fs.DurationVar(p, name, v, usage+" (env "+envName(name)+")")
}

// deferErr records a bad environment value; Parse reports it.
func (fs *flagSet) deferErr(err error) {
	if fs.envErr == nil {
		fs.envErr = err
	}
}

// Parse parses args; a bad environment value or a flag error is a usage
// error, and positional arguments are returned. --help (or -h) prints the
// usage on standard output and returns flag.ErrHelp, which Main.Run turns
// into success. A mistake returns the error with the synopsis under it,
// which main prints: two lines, not the whole help.
func (fs *flagSet) Parse(args []string) ([]string, error) {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.FlagSet.Parse(args)
	fs.SetOutput(fs.m.Stderr)
	if err == flag.ErrHelp {
		fs.m.Stdout.Write(out.Bytes())
		return nil, err
	}
	if err != nil {
		return nil, fs.usageError(flagMessages.Replace(err.Error()))
	}
	if fs.envErr != nil {
		return nil, usageError(fs.envErr.Error())
	}
	return fs.Args(), nil
}

// usageError returns msg as a usage error, with the command's synopsis and
// where to find the rest under it.
func (fs *flagSet) usageError(msg string) error {
	return usageError(fmt.Sprintf("%s\nUsage: %s ('showroom %s --help' lists the flags)", msg, fs.synopsis, fs.name))
}

// flagMessages rewrites the flag package's errors to name flags as the help
// and the docs do, --name.
var flagMessages = strings.NewReplacer(
	"flag provided but not defined: -", "unknown flag --",
	"for flag -", "for flag --",
	"for -", "for --",
	"flag needs an argument: -", "flag needs an argument: --",
)
