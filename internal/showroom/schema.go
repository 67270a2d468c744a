package showroom

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrPendingMigrations is the cause CheckMigrations gives when the database
// lacks migrations this build knows: 'showroom migrate' applies them.
var ErrPendingMigrations = errors.New("the database has pending migrations")

// ErrNewerSchema is the cause CheckMigrations gives when the database has
// migrations this build does not know: a newer build migrated it.
var ErrNewerSchema = errors.New("the database's schema is newer than this build")

// schemaRetry is the Retry-After of a request refused for the schema: a
// migration, or the rollout of a newer build, takes a while.
const schemaRetry = 30 * time.Second

// CheckMigrations compares the migrations a build knows with those applied
// to its database, for one set of them (what: "showroom", "river"). When
// the database lacks some, it returns an EUnavailable error whose message
// says what the operator must do, wrapping ErrPendingMigrations: a process
// on such a database answers no request but with it, since its queries
// would fail on tables and columns that are not there. When the database
// has migrations this build does not know, it returns a plain error
// wrapping ErrNewerSchema, to be logged, not refused: that is every
// process of the previous release during a rolling upgrade, and the
// migrations only add (docs/deploy.md), so they keep working.
func CheckMigrations(what string, known, applied []int) error {
	var pending, unknown []int
	for _, v := range known {
		if !slices.Contains(applied, v) {
			pending = append(pending, v)
		}
	}
	for _, v := range applied {
		if !slices.Contains(known, v) {
			unknown = append(unknown, v)
		}
	}
	switch {
	case len(pending) > 0:
		return &Error{Code: EUnavailable, RetryAfter: schemaRetry,
			Message: "the database has pending migrations; run 'showroom migrate'",
			Cause:   fmt.Errorf("%w: %s migrations %v", ErrPendingMigrations, what, pending)}
	case len(unknown) > 0:
		return fmt.Errorf("%w: %s migrations %v", ErrNewerSchema, what, unknown)
	}
	return nil
}

// MigrationSet is one set of migrations (what: "showroom", "river"): the
// versions a build knows and those its database has applied.
type MigrationSet struct {
	What           string
	Known, Applied []int
}

// CheckSchema runs CheckMigrations on each set and returns the first
// pending error (the one that makes a process refuse requests), else the
// first other error, else nil.
func CheckSchema(sets ...MigrationSet) error {
	var first error
	for _, s := range sets {
		err := CheckMigrations(s.What, s.Known, s.Applied)
		if errors.Is(err, ErrPendingMigrations) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}

// MigrationVersions returns the versions of the migrations in fsys that
// match pattern: the number each file's name starts with (007_name.sql).
func MigrationVersions(fsys fs.FS, pattern string) ([]int, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	versions := make([]int, 0, len(names))
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("migration %s: name must start with a number", name)
		}
		versions = append(versions, v)
	}
	return versions, nil
}
