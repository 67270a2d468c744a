package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/showroom"
	"golang.org/x/term"
)

const adminCommands = `  showroom admin --data-dir DIR company add NAME
  showroom admin --data-dir DIR user add --company NAME --username U [--system showroom]   (password on stdin)
  showroom admin --data-dir DIR user passwd --username U                                   (password on stdin)
  showroom admin --data-dir DIR user delete --username U
  showroom admin --data-dir DIR rotate-keys
  showroom admin --data-dir DIR credits add --company NAME N
  showroom admin --data-dir DIR credits set --company NAME (N | --unlimited)
  showroom admin --data-dir DIR credits show --company NAME
On PostgreSQL, give --database-url postgres://... (or SHOWROOM_DATABASE_URL) instead of --data-dir.`

func (m *Main) runAdmin(ctx context.Context, args []string) error {
	var dataDir string
	var d databaseFlags
	fs := m.newFlagSet("admin")
	fs.String(&dataDir, "data-dir", "./data", "directory of the SQLite database")
	d.register(fs)
	fs.synopsis, fs.about = "showroom admin [--data-dir DIR] COMMAND ...", "Commands:\n"+adminCommands
	rest, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return adminMistake("admin: no command given")
	}
	// The database is opened once a command's arguments are good, so
	// that `admin user add --help` or a typo creates no ./data.
	var opened *database
	open := func() (*database, error) {
		if opened == nil {
			db, err := d.open(ctx, dataDir)
			if err != nil {
				return nil, err
			}
			opened = db
		}
		return opened, nil
	}
	defer func() {
		if opened != nil {
			opened.Close()
		}
	}()

	switch cmd := strings.Join(rest[:min(2, len(rest))], " "); {
	case cmd == "company add":
		if len(rest) != 3 {
			return usageError("usage: showroom admin company add NAME")
		}
		if err := validCompanyName(rest[2]); err != nil {
			return err
		}
		db, err := open()
		if err != nil {
			return err
		}
		if _, err := db.CreateCompany(ctx, rest[2]); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "company %q created\n", rest[2])
		return nil
	case cmd == "user add":
		var company, username string
		var systems stringList
		ufs := m.newFlagSet("admin user add")
		ufs.String(&company, "company", "", "company of the user (must exist)")
		ufs.String(&username, "username", "", "login name")
		ufs.Var(&systems, "system", "a system the user may log in to; repeat or separate with commas (default showroom)")
		if _, err := ufs.Parse(rest[2:]); err != nil {
			return err
		}
		if company == "" || username == "" {
			return usageError("user add needs --company and --username")
		}
		if len(systems) == 0 {
			systems = stringList{showroom.DefaultSystem}
		}
		password, err := m.readPassword()
		if err != nil {
			return err
		}
		db, err := open()
		if err != nil {
			return err
		}
		if err := createUser(ctx, db, company, username, password, systems, false); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "user %q created in company %q (systems: %s)\n", username, company, strings.Join(systems, ", "))
		return nil
	case cmd == "user passwd":
		var username string
		ufs := m.newFlagSet("admin user passwd")
		ufs.String(&username, "username", "", "login name")
		if _, err := ufs.Parse(rest[2:]); err != nil {
			return err
		}
		if username == "" {
			return usageError("user passwd needs --username")
		}
		password, err := m.readPassword()
		if err != nil {
			return err
		}
		hash, err := auth.HashPassword(password)
		if err != nil {
			return err
		}
		db, err := open()
		if err != nil {
			return err
		}
		if err := db.SetPassword(ctx, username, hash, time.Now()); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "password of %q changed; the user's refresh tokens are revoked, and its access tokens within %v\n", username, auth.UserCheckInterval)
		return nil
	case cmd == "user delete":
		var username string
		ufs := m.newFlagSet("admin user delete")
		ufs.String(&username, "username", "", "login name")
		if _, err := ufs.Parse(rest[2:]); err != nil {
			return err
		}
		if username == "" {
			return usageError("user delete needs --username")
		}
		db, err := open()
		if err != nil {
			return err
		}
		if err := db.DeleteUser(ctx, username); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "user %q deleted; its refresh tokens are gone, and its access tokens are refused within %v\n", username, auth.UserCheckInterval)
		return nil
	case cmd == "rotate-keys":
		db, err := open()
		if err != nil {
			return err
		}
		keys, err := auth.NewKeyRing(ctx, db, auth.DefaultConfig().RefreshTTL)
		if err != nil {
			return err
		}
		k, err := keys.Rotate(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "new signing key %s; tokens signed by earlier keys stay valid until they expire\n", k.ID)
		return nil
	case cmd == "credits add" || cmd == "credits set" || cmd == "credits show":
		return m.adminCredits(ctx, open, rest[1], rest[2:])
	default:
		return adminMistake(fmt.Sprintf("admin: unknown command %q", strings.Join(rest, " ")))
	}
}

// adminMistake is a missing or unknown admin command: the error and one
// usage line, as a flag mistake is, not the whole list of commands.
func adminMistake(msg string) error {
	return usageError(msg + "\nUsage: showroom admin [--data-dir DIR] COMMAND ... ('showroom admin --help' lists the commands)")
}

// createUser creates a user, and its company too when createCompany is set.
func createUser(ctx context.Context, db showroom.AuthStore, company, username, password string, systems []string, createCompany bool) error {
	if err := validUsername(username); err != nil {
		return err
	}
	if n := utf8.RuneCountInString(password); n < 8 || n > 1024 {
		return errors.New("the password must have 8 to 1024 characters")
	}
	c, err := db.FindCompany(ctx, company)
	if showroom.ErrorCode(err) == showroom.ENotFound && createCompany {
		c, err = db.CreateCompany(ctx, company)
	}
	if showroom.ErrorCode(err) == showroom.ENotFound {
		return fmt.Errorf("company %q does not exist; create it with 'showroom admin company add'", company)
	} else if err != nil {
		return err
	}
	hash, err := auth.HashPassword(password)
	if err != nil {
		return err
	}
	return db.CreateUser(ctx, &showroom.User{Username: username, PasswordHash: hash, CompanyID: c.ID, Systems: systems})
}

func validCompanyName(s string) error {
	if s == "" || utf8.RuneCountInString(s) > 64 || strings.TrimSpace(s) != s || strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return errors.New("a company name has 1 to 64 characters, no control characters and no leading or trailing space")
	}
	return nil
}

func validUsername(s string) error {
	if s == "" || utf8.RuneCountInString(s) > 128 || strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return errors.New("a username has 1 to 128 characters and no spaces or control characters")
	}
	return nil
}

// readPassword reads the password from the first line of standard input; on
// a terminal it prompts and does not echo.
func (m *Main) readPassword() (string, error) {
	if f, ok := m.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(m.Stderr, "Password: ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(m.Stderr)
		return string(b), err
	}
	line, err := bufio.NewReader(m.Stdin).ReadString('\n')
	if err != nil && line == "" {
		return "", errors.New("no password on standard input")
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// stringList is a repeatable, comma-separated flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// adminCredits runs `admin credits VERB`; open gives the database once the
// arguments are good.
func (m *Main) adminCredits(ctx context.Context, open func() (*database, error), verb string, args []string) error {
	var company string
	var unlimited bool
	fs := m.newFlagSet("admin credits " + verb)
	fs.String(&company, "company", "", "the company")
	if verb == "set" {
		fs.BoolVar(&unlimited, "unlimited", false, "make the balance unlimited (the default for a new company)")
	}
	rest, err := fs.Parse(args)
	if err != nil {
		return err
	}
	if company == "" {
		return usageError("credits " + verb + " needs --company")
	}
	var n int64
	switch {
	case verb == "show":
		if len(rest) != 0 {
			return usageError("credits show takes no amount")
		}
	case unlimited:
		if len(rest) != 0 {
			return usageError("give an amount or --unlimited, not both")
		}
	default:
		if len(rest) != 1 {
			return usageError("credits " + verb + " needs one amount, a whole number")
		}
		if n, err = strconv.ParseInt(rest[0], 10, 64); err != nil || (verb == "set" && n < 0) {
			return usageError(fmt.Sprintf("%q is not a valid amount", rest[0]))
		}
	}
	db, err := open()
	if err != nil {
		return err
	}
	c, err := db.FindCompany(ctx, company)
	if err != nil {
		return err
	}
	switch {
	case verb == "add":
		err = db.AddCredits(ctx, c.ID, n)
	case verb == "set" && unlimited:
		err = db.SetCredits(ctx, c.ID, nil)
	case verb == "set":
		err = db.SetCredits(ctx, c.ID, &n)
	}
	if err != nil {
		return err
	}
	u, err := db.Usage(ctx, c.ID, 0)
	if err != nil {
		return err
	}
	if u.Unlimited {
		fmt.Fprintf(m.Stdout, "company %q: credits unlimited\n", company)
	} else {
		fmt.Fprintf(m.Stdout, "company %q: balance %d credits\n", company, u.Balance)
	}
	return nil
}
