package showroom

import (
	"errors"
	"fmt"
	"slices"
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
// to its database, for one set of them (what: "showroom", "river"). Nil when
// they are the same; otherwise an EUnavailable error whose message says what
// the operator must do, wrapping ErrPendingMigrations or ErrNewerSchema. A
// process on such a database answers no request but with it: its queries
// would fail on tables and columns that are not there, or not as it knows
// them.
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
	case len(unknown) > 0:
		return &Error{Code: EUnavailable, RetryAfter: schemaRetry,
			Message: "the database's schema is newer than this build of Showroom; run the build that migrated it",
			Cause:   fmt.Errorf("%w: %s migrations %v", ErrNewerSchema, what, unknown)}
	case len(pending) > 0:
		return &Error{Code: EUnavailable, RetryAfter: schemaRetry,
			Message: "the database has pending migrations; run 'showroom migrate'",
			Cause:   fmt.Errorf("%w: %s migrations %v", ErrPendingMigrations, what, pending)}
	}
	return nil
}
