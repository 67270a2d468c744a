package main

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helpFlag is one flag as 'showroom ROLE --help' describes it.
type helpFlag struct {
	env string // the variable it falls back to
	def string // its default, unquoted; "" for the zero value
}

var (
	helpFlagLine  = regexp.MustCompile(`^  --([a-z-]+)`)
	helpEnvAndDef = regexp.MustCompile(`\(env ([A-Z_]+)\)(?: \(default (.+)\))?$`)
)

// roleFlags returns the flags 'showroom role --help' lists, with the
// environment variable and default each names: what the role's flag set
// defines, with no environment set.
func roleFlags(t testing.TB, role string) map[string]helpFlag {
	t.Helper()
	// An empty SHOWROOM_WARM_UP keeps testGetenv's 0 for tests out of the
	// defaults.
	stdout, _, err := run(t, map[string]string{"SHOWROOM_WARM_UP": ""}, "", role, "--help")
	if err != nil {
		t.Fatalf("showroom %s --help: %v", role, err)
	}
	flags := map[string]helpFlag{}
	name := ""
	for _, line := range strings.Split(stdout, "\n") {
		if m := helpFlagLine.FindStringSubmatch(line); m != nil {
			name = m[1]
			flags[name] = helpFlag{}
			continue
		}
		if name == "" || !strings.HasPrefix(line, "    \t") {
			continue
		}
		if m := helpEnvAndDef.FindStringSubmatch(line); m != nil {
			def := m[2]
			if s, err := strconv.Unquote(def); err == nil {
				def = s
			}
			flags[name] = helpFlag{env: m[1], def: def}
		}
	}
	if len(flags) == 0 {
		t.Fatalf("showroom %s --help lists no flags:\n%s", role, stdout)
	}
	return flags
}

// settingsRow is one row of a settings table: a flag (or only variables),
// the roles it is listed with and its default cell.
type settingsRow struct {
	line  int
	flag  string   // without "--"; "" for a row of variables only
	env   []string // the SHOWROOM_ variables the row names
	roles []string // role names
	def   string   // the default cell
}

var codeSpan = regexp.MustCompile("`([^`]*)`")

// roleLetters are the roles' letters in the settings tables' roles column.
var roleLetters = map[string]string{"s": "serve", "a": "auth", "p": "api", "w": "worker"}

// settingsTable parses the table of file whose header row has a "roles"
// column: the cells before it name the flag and its variable.
func settingsTable(t *testing.T, file string) []settingsRow {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	cells := func(line string) []string {
		line = strings.ReplaceAll(strings.Trim(strings.TrimSpace(line), "|"), `\|`, "\x00")
		var out []string
		for _, c := range strings.Split(line, "|") {
			out = append(out, strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|")))
		}
		return out
	}
	var rows []settingsRow
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "| flag") {
			continue
		}
		header := cells(lines[i])
		rolesAt, defAt := slices.Index(header, "roles"), slices.Index(header, "default")
		if rolesAt < 1 || defAt < 0 {
			t.Fatalf("%s:%d: the settings table has no roles or default column: %q", file, i+1, lines[i])
		}
		for i += 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
			c := cells(lines[i])
			if len(c) != len(header) {
				t.Fatalf("%s:%d: %d cells, the header has %d", file, i+1, len(c), len(header))
			}
			r := settingsRow{line: i + 1, def: c[defAt]}
			for _, m := range codeSpan.FindAllStringSubmatch(strings.Join(c[:rolesAt], " "), -1) {
				switch {
				case strings.HasPrefix(m[1], "--") && r.flag == "":
					r.flag = strings.TrimPrefix(m[1], "--")
				case strings.HasPrefix(m[1], "SHOWROOM_"):
					r.env = append(r.env, m[1])
				}
			}
			for _, f := range strings.FieldsFunc(c[rolesAt], func(r rune) bool { return r == ' ' || r == ',' }) {
				switch {
				case roleLetters[f] != "":
					r.roles = append(r.roles, roleLetters[f])
				case f == "admin" || f == "migrate" || f == "process":
					r.roles = append(r.roles, f)
				case f == "all" && r.flag == "":
				default:
					t.Errorf("%s:%d: role %q is none of s a p w, admin, migrate, process", file, r.line, f)
				}
			}
			rows = append(rows, r)
		}
		return rows
	}
	t.Fatalf("%s: no settings table (a header row starting \"| flag\" with a roles column)", file)
	return nil
}

// sameDefault reports whether the documented default doc is the flag's
// default def: durations by their value, the home folder as ~.
func sameDefault(doc, def string) bool {
	if doc == def {
		return true
	}
	if a, err := time.ParseDuration(doc); err == nil {
		b, err := time.ParseDuration(def)
		return err == nil && a == b
	}
	if rest, ok := strings.CutPrefix(doc, "~/"); ok {
		home, err := os.UserHomeDir()
		return err == nil && home+"/"+rest == def
	}
	return false
}

var roleDefault = regexp.MustCompile("`(serve|auth|api|worker)`: `([^`]*)`")

// checkSettings checks a settings table against the roles' flag sets: each
// flag of a role in exact is listed with that role and no listed role lacks
// it; each flag listed for another role (process) exists there; variables
// and defaults are the flags'.
func checkSettings(t *testing.T, file string, rows []settingsRow, flags map[string]map[string]helpFlag, exact []string) {
	listed := map[string][]string{} // flag: roles
	for _, r := range rows {
		if r.flag == "" {
			for _, env := range r.env {
				if env != "SHOWROOM_MALLOC_TUNING" {
					t.Errorf("%s:%d: %s has no flag; only SHOWROOM_MALLOC_TUNING is a variable alone", file, r.line, env)
				}
			}
			continue
		}
		if _, dup := listed[r.flag]; dup {
			t.Errorf("%s:%d: --%s is listed twice", file, r.line, r.flag)
		}
		listed[r.flag] = r.roles
		if len(r.roles) == 0 {
			t.Errorf("%s:%d: --%s names no role", file, r.line, r.flag)
		}
		if want := envName(r.flag); !slices.Equal(r.env, []string{want}) {
			t.Errorf("%s:%d: --%s names variables %v, want %s", file, r.line, r.flag, r.env, want)
		}
		spans := codeSpan.FindAllStringSubmatch(r.def, -1)
		perRole := map[string]string{}
		for _, m := range roleDefault.FindAllStringSubmatch(r.def, -1) {
			perRole[m[1]] = m[2]
		}
		for _, role := range r.roles {
			f, ok := flags[role][r.flag]
			if !ok {
				t.Errorf("%s:%d: --%s is listed for %s, which has no such flag", file, r.line, r.flag, role)
				continue
			}
			if f.env != envName(r.flag) {
				t.Errorf("--%s of %s reads %s, want %s", r.flag, role, f.env, envName(r.flag))
			}
			// A default in prose ("number of cores", "(none: SQLite in
			// `--data-dir`)") is not checked; one in code is.
			if !strings.HasPrefix(r.def, "`") {
				continue
			}
			doc, ok := perRole[role]
			if !ok {
				doc = spans[0][1]
			}
			zero := f.def == "" || f.def == "0" || f.def == "false"
			if !sameDefault(doc, f.def) && !(zero && (doc == "0" || doc == "false")) {
				t.Errorf("%s:%d: --%s of %s defaults to %q, the table says %q", file, r.line, r.flag, role, f.def, doc)
			}
		}
	}
	for _, role := range exact {
		for _, flag := range slices.Sorted(maps.Keys(flags[role])) {
			if !slices.Contains(listed[flag], role) {
				t.Errorf("%s: %s has --%s, which the settings table does not list for it", file, role, flag)
			}
		}
	}
}

// deployRoles are the roles whose every flag the settings tables list;
// process is listed only where it shares a flag with them.
var deployRoles = []string{"serve", "auth", "api", "worker", "admin", "migrate"}

// TestDeploySettings: docs/deploy.md's settings table lists every flag of
// every role with exactly the roles that have it, their variables and
// defaults, so that an operator can trust it role by role.
func TestDeploySettings(t *testing.T) {
	flags := map[string]map[string]helpFlag{}
	for _, role := range append(deployRoles, "process") {
		flags[role] = roleFlags(t, role)
	}
	checkSettings(t, "../../docs/deploy.md", settingsTable(t, "../../docs/deploy.md"), flags, deployRoles)
}

// TestDeployREADMESettings: the README's settings table does the same for
// the server roles.
func TestDeployREADMESettings(t *testing.T) {
	flags := map[string]map[string]helpFlag{}
	for _, role := range []string{"serve", "auth", "api", "worker", "process"} {
		flags[role] = roleFlags(t, role)
	}
	checkSettings(t, "../../README.md", settingsTable(t, "../../README.md"), flags, []string{"serve", "auth", "api", "worker"})
}

var (
	execStart = regexp.MustCompile(`^ExecStart=\S*showroom (\S+)(.*)$`)
	envLine   = regexp.MustCompile(`^(SHOWROOM_[A-Z_]+)=`)
)

// TestDeploySystemdUnits: every flag in docs/deploy.md's systemd units
// exists for the unit's role, and every SHOWROOM_ variable of the shared
// environment file is read by at least one of them.
func TestDeploySystemdUnits(t *testing.T) {
	b, err := os.ReadFile("../../docs/deploy.md")
	if err != nil {
		t.Fatal(err)
	}
	_, units, ok := strings.Cut(string(b), "\n## systemd units\n")
	if !ok {
		t.Fatal("docs/deploy.md has no section \"## systemd units\"")
	}
	units, _, _ = strings.Cut(units, "\n## ")
	flags := map[string]map[string]helpFlag{}
	var envFile []string
	inBlock, blocks := false, 0
	for _, line := range strings.Split(units, "\n") {
		if strings.HasPrefix(line, "```") {
			if inBlock = !inBlock; inBlock {
				blocks++
			}
			continue
		}
		if !inBlock {
			continue
		}
		if m := envLine.FindStringSubmatch(line); m != nil && blocks == 1 {
			envFile = append(envFile, m[1])
		}
		m := execStart.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		role := m[1]
		if flags[role] == nil {
			flags[role] = roleFlags(t, role)
		}
		for _, arg := range strings.Fields(m[2]) {
			if name, ok := strings.CutPrefix(arg, "--"); ok {
				name, _, _ = strings.Cut(name, "=")
				if _, ok := flags[role][name]; !ok {
					t.Errorf("%s: showroom %s has no --%s", line, role, name)
				}
			}
		}
	}
	if want := []string{"api", "auth", "worker"}; !slices.Equal(slices.Sorted(maps.Keys(flags)), want) {
		t.Errorf("units for %v, want one for each of %v", slices.Sorted(maps.Keys(flags)), want)
	}
	if len(envFile) == 0 {
		t.Error("the first block of the systemd section sets no SHOWROOM_ variable")
	}
	for _, env := range envFile {
		read := env == "SHOWROOM_MALLOC_TUNING"
		for _, fs := range flags {
			for name := range fs {
				read = read || envName(name) == env
			}
		}
		if !read {
			t.Errorf("showroom.env sets %s, which none of the units' roles reads", env)
		}
	}
}
