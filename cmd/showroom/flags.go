package main

import (
	"bytes"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/showroom/showroom/internal/cliflag"
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

func (fs *flagSet) usage() { fs.command().Help(fs.Output(), fs.FlagSet) }

// command is what the help says of 'showroom name'.
func (fs *flagSet) command() cliflag.Command {
	return cliflag.Command{Name: "showroom " + fs.name, Synopsis: fs.synopsis, About: fs.about}
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
		return nil, fs.usageError(cliflag.Message(err))
	}
	if fs.envErr != nil {
		return nil, usageError(fs.envErr.Error())
	}
	return fs.Args(), nil
}

// usageError returns msg as a usage error, with the command's synopsis and
// where to find the rest under it.
func (fs *flagSet) usageError(msg string) error {
	return usageError(fs.command().Mistake(msg).Error())
}
