package auth

import (
	"context"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// UserSource finds a user by username: the database's AuthStore, which the
// auth service and every api process read.
type UserSource interface {
	FindUser(ctx context.Context, username string) (*showroom.User, error)
}

// UserCheckInterval is how long a Verifier trusts what it last read of a
// user: its TokensNotBefore, or that it no longer exists. An access token
// issued before a password change, or of a deleted user, is refused by
// every process at most this long after the change; a process reads each
// user whose tokens it sees at most once in this time, not once a request.
const UserCheckInterval = 5 * time.Second

// maxCachedUsers bounds the users a Verifier remembers. Only users named by
// tokens that passed the signature check enter, so forged names cannot
// fill it.
const maxCachedUsers = 10_000

// userState is what a Verifier last read of a user.
type userState struct {
	notBefore time.Time // tokens issued before it are refused; zero: none
	gone      bool      // the user no longer exists: every token is refused
	read      time.Time
}

// userCache remembers userStates by username, bounded as tokenCache is.
type userCache = boundedCache[string, userState]

func newUserCache(max int) *userCache { return newBoundedCache[string, userState](max) }

// tokenTime is t as a token carries it: to the millisecond (see
// jwt.TimePrecision in tokens.go).
func tokenTime(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// issuedBefore reports whether a token whose iat claim reads issued was
// issued before notBefore. The claim is read back through a float64, which
// may put it up to a millisecond early: a token is taken to be issued before
// only when it reads a whole millisecond earlier. So a token issued at or
// after notBefore always passes, one issued two milliseconds or more before
// it never does.
func issuedBefore(issued, notBefore time.Time) bool {
	return issued.Add(time.Millisecond).Before(tokenTime(notBefore))
}

func errRevoked() error {
	return showroom.Errorf(showroom.EInvalidToken, "the token has been revoked: the user's password has changed, or the user no longer exists; log in again")
}

// userAllows refuses a token of username issued at issued if the user no
// longer exists or changed its password since, as last read at most
// UserCheckInterval ago.
func (v *Verifier) userAllows(ctx context.Context, username string, issued time.Time) error {
	if v.users == nil {
		return nil
	}
	now := v.now()
	s, ok := v.userStates.get(username)
	if !ok || now.Sub(s.read) >= UserCheckInterval || now.Before(s.read) {
		u, err := v.users.FindUser(ctx, username)
		switch {
		case showroom.ErrorCode(err) == showroom.ENotFound:
			s = userState{gone: true, read: now}
		case err != nil:
			return showroom.Internal(err)
		default:
			s = userState{notBefore: u.TokensNotBefore, read: now}
		}
		v.userStates.put(username, s)
	}
	if s.gone || issuedBefore(issued, s.notBefore) {
		return errRevoked()
	}
	return nil
}
