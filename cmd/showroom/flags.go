package main

import (
	"bytes"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// flagSet returns a flag set for a subcommand whose flags fall back to
// SHOWROOM_* environment variables: --data-dir reads SHOWROOM_DATA_DIR.
type flagSet struct {
	*flag.FlagSet
	m      *Main
	envErr error
}

// newFlagSet returns the flag set of 'showroom name'. Its Usage writes to
// fs.Output(), which Parse points at standard output for --help and at
// standard error for a mistake.
func (m *Main) newFlagSet(name string) *flagSet {
	fs := flag.NewFlagSet("showroom "+name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: showroom %s [flags]\n\nFlags:\n", name)
		fs.PrintDefaults()
	}
	return &flagSet{FlagSet: fs, m: m}
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
// into success; a mistake prints it on standard error.
func (fs *flagSet) Parse(args []string) ([]string, error) {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.FlagSet.Parse(args)
	fs.SetOutput(fs.m.Stderr)
	if err == flag.ErrHelp {
		fs.m.Stdout.Write(out.Bytes())
		return nil, err
	}
	fs.m.Stderr.Write(out.Bytes())
	if err != nil {
		return nil, usageError(err.Error())
	}
	if fs.envErr != nil {
		return nil, usageError(fs.envErr.Error())
	}
	return fs.Args(), nil
}
