// Package auth is Showroom's login service and token verifier: argon2id
// passwords, EdDSA-signed JWT access and refresh tokens with a kid, key
// rotation with a grace period, a JWKS for replicas, and brute-force limits.
package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/showroom/showroom/internal/showroom"
)

// Token types, carried in the typ claim so that one kind of token is never
// accepted as the other.
const (
	TypeAccess  = "access"
	TypeRefresh = "refresh"
)

// Issuer is the iss claim of every Showroom token.
const Issuer = "showroom-auth"

// Claims are the claims of a Showroom token.
type Claims struct {
	jwt.RegisteredClaims
	Company string `json:"company"`
	Type    string `json:"typ"`
}

// KeySource finds the public key for a key ID: the KeyRing in-process, a
// JWKSClient in a separate API process.
type KeySource interface {
	PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error)
}

func newTokenID() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand never fails on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func init() {
	// Tokens carry their times to the millisecond (RFC 7519 allows
	// NumericDates that are not whole), so that an access token issued in
	// the same second as its user's password change, but before it, is
	// refused, and one issued just after is not. This package is the only
	// user of the JWT library in the process.
	jwt.TimePrecision = time.Millisecond
}

// sign makes a signed token of type typ for u and system. A token is never
// dated before u's TokensNotBefore: were the clock of the process that set
// it ahead of this one's, a token issued just after a password change would
// otherwise be refused (by up to the verifiers' leeway of skew).
func sign(key *showroom.SigningKey, u *showroom.User, system, typ string, now time.Time, ttl time.Duration) (string, *Claims, error) {
	issued := tokenTime(now)
	if nb := tokenTime(u.TokensNotBefore); issued.Before(nb) {
		issued = nb
	}
	c := &Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    Issuer,
			Subject:   u.Username,
			Audience:  jwt.ClaimStrings{system},
			IssuedAt:  jwt.NewNumericDate(issued),
			ExpiresAt: jwt.NewNumericDate(issued.Add(ttl)),
			ID:        newTokenID(),
		},
		Company: u.Company,
		Type:    typ,
	}
	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	t.Header["kid"] = key.ID
	s, err := t.SignedString(key.PrivateKey)
	return s, c, err
}

// Verifier checks tokens: signature against a KeySource, issuer, expiry,
// type and, for access tokens, audience and that the user still exists and
// has not changed its password since the token was issued. Access tokens
// that pass are remembered until they expire (see tokenCache), and what it
// read of a user for UserCheckInterval, so a client that sends the same
// token with every request pays for the signature check once and for the
// database read once in that interval.
type Verifier struct {
	keys  KeySource
	users UserSource
	// Leeway tolerates clock skew between the auth service and a replica.
	leeway     time.Duration
	now        func() time.Time
	cache      *tokenCache
	userStates *userCache
}

// maxCachedTokens bounds the verified access tokens a Verifier remembers:
// a few MB, more than the users active in a day of a large deployment.
const maxCachedTokens = 10_000

// NewVerifier returns a verifier over keys that looks the users of access
// tokens up in users. With users nil, a token stays valid until it expires
// whatever becomes of its user.
func NewVerifier(keys KeySource, users UserSource) *Verifier {
	return &Verifier{keys: keys, users: users, leeway: 30 * time.Second, now: time.Now,
		cache: newTokenCache(maxCachedTokens), userStates: newUserCache(maxCachedUsers)}
}

// signedBy is the key that verified a token.
type signedBy struct {
	kid string
	key ed25519.PublicKey
}

// parse verifies raw as a token of type typ. With audience set, the token
// must name it. Errors are *showroom.Error: ETokenExpired for a genuine but
// expired token, EInvalidToken for everything else.
func (v *Verifier) parse(ctx context.Context, raw, typ, audience string) (*Claims, signedBy, error) {
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{jwt.SigningMethodEdDSA.Alg()}),
		jwt.WithIssuer(Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(v.leeway),
		jwt.WithTimeFunc(v.now),
	}
	if audience != "" {
		opts = append(opts, jwt.WithAudience(audience))
	}
	claims := &Claims{}
	var by signedBy
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		key, err := v.keys.PublicKey(ctx, kid)
		by = signedBy{kid: kid, key: key}
		return key, err
	}, opts...)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		// The signature was checked before the claims, so this token is
		// genuine.
		return nil, by, &showroom.Error{Code: showroom.ETokenExpired, Message: "the token has expired", Cause: err}
	case err != nil:
		return nil, by, &showroom.Error{Code: showroom.EInvalidToken, Message: "the token is invalid", Cause: err}
	case claims.Type != typ:
		return nil, by, &showroom.Error{Code: showroom.EInvalidToken, Message: fmt.Sprintf("the token is not an %s token", typ)}
	case claims.Subject == "" || claims.ID == "":
		return nil, by, showroom.Errorf(showroom.EInvalidToken, "the token is invalid")
	}
	return claims, by, nil
}

// VerifyAccess checks an access token for system and returns whom it speaks
// for.
func (v *Verifier) VerifyAccess(ctx context.Context, raw, system string) (*showroom.Principal, error) {
	sum := sha256.Sum256([]byte(raw))
	t, _ := v.cache.get(sum)
	if t == nil || !v.holds(ctx, t, system) {
		c, by, err := v.parse(ctx, raw, TypeAccess, system)
		if err != nil {
			if t != nil && t.principal.System == system {
				v.cache.remove(sum) // expired, or its key retired
			}
			return nil, err
		}
		t = &verifiedToken{principal: showroom.Principal{Username: c.Subject, Company: c.Company, System: system},
			by: by, exp: c.ExpiresAt.Time}
		if c.IssuedAt != nil {
			t.issued = c.IssuedAt.Time
		}
		// Within the leeway after exp the token still passes, but only the
		// full check may say so.
		if v.now().Before(t.exp) {
			v.cache.put(sum, t)
		}
	}
	if err := v.userAllows(ctx, t.principal.Username, t.issued); err != nil {
		if showroom.ErrorCode(err) == showroom.EInvalidToken {
			v.cache.remove(sum)
		}
		return nil, err
	}
	p := t.principal
	return &p, nil
}

// holds reports whether a remembered verification still stands for system:
// it was made for that system, the token has not expired, and the key that
// verified it is one the key source still accepts (a key past its grace
// period, or gone from the JWKS, takes its tokens' entries with it).
func (v *Verifier) holds(ctx context.Context, t *verifiedToken, system string) bool {
	if t.principal.System != system || !v.now().Before(t.exp) {
		return false
	}
	key, err := v.keys.PublicKey(ctx, t.by.kid)
	return err == nil && key.Equal(t.by.key)
}

// TokenFromHeader takes the token out of an Authorization header value. Both
// forms of the contract are accepted: "Bearer <token>" and the bare token.
func TokenFromHeader(h string) (string, bool) {
	h = strings.TrimSpace(h)
	if h == "" || strings.EqualFold(h, "bearer") {
		return "", false
	}
	if scheme, rest, ok := strings.Cut(h, " "); ok {
		if !strings.EqualFold(scheme, "bearer") {
			return "", false
		}
		h = strings.TrimSpace(rest)
	}
	return h, h != ""
}
