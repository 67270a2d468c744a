// Package showroom holds Showroom's domain: companies and their users,
// signing keys and refresh tokens, content, configurations and jobs, the
// storage interfaces over them, and the one error type. It depends on no
// database, HTTP or image library; adapters implement its interfaces.
package showroom

import (
	"context"
	"crypto/ed25519"
	"regexp"
	"time"
)

// DefaultSystem is the system name the API service answers to unless
// configured otherwise; tokens carry it as their audience.
const DefaultSystem = "showroom"

// Company owns users, content and configurations; nothing crosses companies.
type Company struct {
	ID        int64
	Name      string
	CreatedAt time.Time
}

// User is a login of a company.
type User struct {
	ID       int64
	Username string
	// PasswordHash is an argon2id hash in PHC string form, never a password.
	PasswordHash string
	CompanyID    int64
	Company      string // the company's name, filled in on reads
	// Systems are the systems the user may log in to.
	Systems []string
	// TokensNotBefore: access tokens of the user issued before it are
	// refused. It is set when the user is created and when the password
	// changes; zero for users created before it existed, until then.
	TokensNotBefore time.Time
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// MaySystem reports whether u may log in to system.
func (u *User) MaySystem(system string) bool {
	for _, s := range u.Systems {
		if s == system {
			return true
		}
	}
	return false
}

// Principal is who an access token speaks for.
type Principal struct {
	Username string
	Company  string
	System   string
}

// SigningKey is an Ed25519 key pair that signs tokens. The newest key that
// is not retired signs; retired keys still verify until tokens they signed
// have expired.
type SigningKey struct {
	ID         string // the JWT kid
	PrivateKey ed25519.PrivateKey
	CreatedAt  time.Time
	RetiredAt  time.Time // zero while the key is current
}

// RefreshToken is the server-side record of an issued refresh token, so it
// can be revoked.
type RefreshToken struct {
	ID        string // the JWT jti
	UserID    int64
	CreatedAt time.Time
	ExpiresAt time.Time
	RevokedAt time.Time // zero unless revoked
}

// AuthStore keeps companies, users, signing keys, refresh tokens and the
// failed-login counts. Lookups of something that does not exist return an
// *Error with code ENotFound; creating a duplicate returns EConflict.
type AuthStore interface {
	LoginFailureStore

	CreateCompany(ctx context.Context, name string) (*Company, error)
	FindCompany(ctx context.Context, name string) (*Company, error)

	// CreateUser stores u (its CompanyID must exist) and sets u.ID.
	CreateUser(ctx context.Context, u *User) error
	FindUser(ctx context.Context, username string) (*User, error)
	CountUsers(ctx context.Context) (int, error)
	// SetPassword replaces the user's password hash, revokes all of the
	// user's refresh tokens and sets TokensNotBefore to now, in one
	// transaction.
	SetPassword(ctx context.Context, username, hash string, now time.Time) error
	// DeleteUser deletes the user and its refresh tokens; FindUser then
	// finds no such user, which is what refuses its access tokens.
	DeleteUser(ctx context.Context, username string) error

	// SigningKeys returns every stored key, newest first.
	SigningKeys(ctx context.Context) ([]*SigningKey, error)
	// AddSigningKey stores k as the current key and retires the others as of
	// k.CreatedAt, in one transaction.
	AddSigningKey(ctx context.Context, k *SigningKey) error
	// DeleteSigningKeysRetiredBefore removes keys that can no longer have
	// valid tokens.
	DeleteSigningKeysRetiredBefore(ctx context.Context, t time.Time) error

	CreateRefreshToken(ctx context.Context, t *RefreshToken) error
	FindRefreshToken(ctx context.Context, id string) (*RefreshToken, error)
	RevokeRefreshToken(ctx context.Context, id string, at time.Time) error
	// DeleteRefreshTokensExpiredBefore forgets tokens that cannot be used.
	DeleteRefreshTokensExpiredBefore(ctx context.Context, t time.Time) error
}

// LoginFailureStore counts failed logins by key (a username, a client
// address) in fixed windows. The counts live in the database, so that every
// auth process on it, and the one started after a restart, sees the same
// ones. A window lasts window from its first failure; one that began at or
// before now-window has ended and counts nothing.
type LoginFailureStore interface {
	// LoginFailures returns key's failures in its window at now and when
	// that window began; 0 and the zero time if it has none.
	LoginFailures(ctx context.Context, key string, now time.Time, window time.Duration) (n int, start time.Time, err error)
	// AddLoginFailure counts one failure of key at now, in key's window if
	// it has not ended, else in a new one beginning at now. It is one atomic
	// step however many processes add at once.
	AddLoginFailure(ctx context.Context, key string, now time.Time, window time.Duration) error
	// ClearLoginFailures forgets key's failures.
	ClearLoginFailures(ctx context.Context, key string) error
	// DeleteLoginFailuresBefore forgets windows that began before t, so
	// that the table keeps only windows that may still count.
	DeleteLoginFailuresBefore(ctx context.Context, t time.Time) error
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9]{1,64}$`)

// ValidName reports whether s is a valid content or configuration name:
// 1 to 64 ASCII letters and digits, nothing else.
func ValidName(s string) bool { return nameRE.MatchString(s) }
