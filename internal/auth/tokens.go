// Package auth is Showroom's login service and token verifier: argon2id
// passwords, EdDSA-signed JWT access and refresh tokens with a kid, key
// rotation with a grace period, a JWKS for replicas, and brute-force limits.
package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
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

// sign makes a signed token of type typ for u and system.
func sign(key *showroom.SigningKey, u *showroom.User, system, typ string, now time.Time, ttl time.Duration) (string, *Claims, error) {
	c := &Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    Issuer,
			Subject:   u.Username,
			Audience:  jwt.ClaimStrings{system},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
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
// type and, for access tokens, audience.
type Verifier struct {
	keys KeySource
	// Leeway tolerates clock skew between the auth service and a replica.
	leeway time.Duration
	now    func() time.Time
}

// NewVerifier returns a verifier over keys.
func NewVerifier(keys KeySource) *Verifier {
	return &Verifier{keys: keys, leeway: 30 * time.Second, now: time.Now}
}

// parse verifies raw as a token of type typ. With audience set, the token
// must name it. Errors are *showroom.Error: ETokenExpired for a genuine but
// expired token, EInvalidToken for everything else.
func (v *Verifier) parse(ctx context.Context, raw, typ, audience string) (*Claims, error) {
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
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		if kid == "" {
			return nil, errors.New("token has no kid")
		}
		return v.keys.PublicKey(ctx, kid)
	}, opts...)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		// The signature was checked before the claims, so this token is
		// genuine.
		return nil, &showroom.Error{Code: showroom.ETokenExpired, Message: "the token has expired", Cause: err}
	case err != nil:
		return nil, &showroom.Error{Code: showroom.EInvalidToken, Message: "the token is invalid", Cause: err}
	case claims.Type != typ:
		return nil, &showroom.Error{Code: showroom.EInvalidToken, Message: fmt.Sprintf("the token is not an %s token", typ)}
	case claims.Subject == "" || claims.ID == "":
		return nil, showroom.Errorf(showroom.EInvalidToken, "the token is invalid")
	}
	return claims, nil
}

// VerifyAccess checks an access token for system and returns whom it speaks
// for.
func (v *Verifier) VerifyAccess(ctx context.Context, raw, system string) (*showroom.Principal, error) {
	c, err := v.parse(ctx, raw, TypeAccess, system)
	if err != nil {
		return nil, err
	}
	return &showroom.Principal{Username: c.Subject, Company: c.Company, System: system}, nil
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
