package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// Config is the auth service's configuration.
type Config struct {
	AccessTTL  time.Duration // 86400 s by the contract
	RefreshTTL time.Duration // 30 days by the contract
	// MaxFailures failed logins for one username within FailureWindow make
	// further attempts for it wait until the window ends (429). The counts
	// are kept in the store, shared by every auth process on it.
	MaxFailures   int
	FailureWindow time.Duration
	// MaxClientFailures is the same limit per client address.
	MaxClientFailures int
	// MaxHashes password checks run at once. Each argon2id check holds 19
	// MiB, so this bounds the memory logins can take; a login that cannot
	// start its check within HashWait is refused with SERVICE_OVERLOADED.
	MaxHashes int
	HashWait  time.Duration
	// CheckPassword checks a password against a stored hash; nil means the
	// package's CheckPassword. Tests put a slow or counting check here.
	CheckPassword func(hash, password string) (bool, error)
}

// DefaultConfig returns the contract's lifetimes and conservative limits.
func DefaultConfig() Config {
	return Config{
		AccessTTL:         86400 * time.Second,
		RefreshTTL:        30 * 24 * time.Hour,
		MaxFailures:       5,
		FailureWindow:     15 * time.Minute,
		MaxClientFailures: 50,
		// One check per core: more at once would only queue for CPU while
		// holding their memory.
		MaxHashes: runtime.NumCPU(),
		HashWait:  time.Second,
	}
}

// Validate reports a configuration that cannot work.
func (c Config) Validate() error {
	switch {
	case c.AccessTTL <= 0 || c.RefreshTTL <= 0:
		return errors.New("auth: token lifetimes must be positive")
	case c.MaxFailures < 0 || c.MaxClientFailures < 0:
		return errors.New("auth: failure limits must not be negative")
	case (c.MaxFailures > 0 || c.MaxClientFailures > 0) && c.FailureWindow <= 0:
		return errors.New("auth: failure window must be positive")
	case c.MaxHashes < 1:
		return errors.New("auth: at least one password check must be allowed at once")
	case c.HashWait < 0:
		return errors.New("auth: the wait for a password check must not be negative")
	}
	return nil
}

// TokenResponse is the contract's token response.
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	// Username and Company say whose tokens these are, for the access
	// log; they are not part of the response.
	Username string `json:"-"`
	Company  string `json:"-"`
}

// Service logs users in and hands out, refreshes and revokes tokens.
type Service struct {
	cfg      Config
	store    showroom.AuthStore
	keys     *KeyRing
	verifier *Verifier
	now      func() time.Time

	checking *checking
	// swept is when (Unix ns) this process last deleted ended windows of
	// failed logins.
	swept atomic.Int64
	// hashSlots holds a token for each password check running.
	hashSlots chan struct{}
	check     func(hash, password string) (bool, error)
	// dummyHash is checked when a username does not exist, so that an
	// unknown user costs the same time as a wrong password.
	dummyHash string
}

// NewService returns the auth service over store and keys.
func NewService(cfg Config, store showroom.AuthStore, keys *KeyRing) (*Service, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dummy, err := HashPassword("not a password of anyone")
	if err != nil {
		return nil, err
	}
	check := cfg.CheckPassword
	if check == nil {
		check = CheckPassword
	}
	return &Service{
		cfg:       cfg,
		store:     store,
		keys:      keys,
		verifier:  NewVerifier(keys, store),
		now:       time.Now,
		checking:  newChecking(),
		hashSlots: make(chan struct{}, cfg.MaxHashes),
		check:     check,
		dummyHash: dummy,
	}, nil
}

func errInvalidCredentials() error {
	return showroom.Errorf(showroom.EInvalidCredentials, "wrong username or password; contact an administrator")
}

func errTooMany(wait time.Duration) error {
	return &showroom.Error{
		Code:       showroom.ETooManyRequests,
		Message:    "too many failed logins; try again later",
		RetryAfter: wait,
	}
}

func errOverloaded() error {
	return &showroom.Error{
		Code:       showroom.EServiceOverloaded,
		Message:    "too many logins at once; try again shortly",
		RetryAfter: time.Second,
	}
}

// startHash waits up to HashWait for a free password-check slot. The caller
// must call endHash once its check is done.
func (s *Service) startHash(ctx context.Context) error {
	select {
	case s.hashSlots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(s.cfg.HashWait)
	defer t.Stop()
	select {
	case s.hashSlots <- struct{}{}:
		return nil
	case <-t.C:
		return errOverloaded()
	case <-ctx.Done():
		// The client has gone; nobody reads the answer.
		return errOverloaded()
	}
}

func (s *Service) endHash() { <-s.hashSlots }

// Login checks the credentials and returns a fresh token pair. A wrong
// username, a wrong password and a system the user may not use all answer
// alike, after the same work. client identifies the caller (its address)
// for the brute-force limit; only those failures count against it and the
// username (see limiter.go).
func (s *Service) Login(ctx context.Context, username, password, system, client string) (*TokenResponse, error) {
	keys := s.failureKeys(username, client)
	userFailed, err := s.startCheck(ctx, keys)
	if err != nil {
		return nil, err
	}
	u, err := s.checkLogin(ctx, keys, username, password, system)
	s.checking.end(keys)
	if err != nil {
		return nil, err
	}
	if userFailed {
		// A success forgets the username's failures (not the client's).
		if err := s.store.ClearLoginFailures(ctx, keys[0].key); err != nil {
			return nil, showroom.Internal(err)
		}
	}
	return s.issue(ctx, u, system, s.now())
}

// checkLogin checks the credentials, in a check startCheck started, and
// counts a failure against keys. It returns the user only if the login may
// go on.
func (s *Service) checkLogin(ctx context.Context, keys []failureKey, username, password, system string) (*showroom.User, error) {
	u, err := s.store.FindUser(ctx, username)
	if err != nil && showroom.ErrorCode(err) != showroom.ENotFound {
		return nil, showroom.Internal(err)
	}
	hash := s.dummyHash
	if u != nil {
		hash = u.PasswordHash
	}
	// Unknown users take a slot and a check too: the same cost and the same
	// 503 as known ones, so neither timing nor overload tells them apart.
	if err := s.startHash(ctx); err != nil {
		return nil, err
	}
	ok, err := s.check(hash, password)
	s.endHash()
	if err != nil {
		return nil, showroom.Internal(fmt.Errorf("user %q: %w", username, err))
	}
	if u == nil || !ok || !u.MaySystem(system) {
		if err := s.countFailure(ctx, keys, s.now()); err != nil {
			return nil, err
		}
		return nil, errInvalidCredentials()
	}
	return u, nil
}

func (s *Service) issue(ctx context.Context, u *showroom.User, system string, now time.Time) (*TokenResponse, error) {
	key, err := s.keys.Signer()
	if err != nil {
		return nil, showroom.Internal(err)
	}
	access, _, err := sign(key, u, system, TypeAccess, now, s.cfg.AccessTTL)
	if err != nil {
		return nil, showroom.Internal(err)
	}
	refresh, rc, err := sign(key, u, system, TypeRefresh, now, s.cfg.RefreshTTL)
	if err != nil {
		return nil, showroom.Internal(err)
	}
	rec := &showroom.RefreshToken{ID: rc.ID, UserID: u.ID, CreatedAt: now, ExpiresAt: rc.ExpiresAt.Time}
	if err := s.store.CreateRefreshToken(ctx, rec); err != nil {
		return nil, showroom.Internal(err)
	}
	return &TokenResponse{
		AccessToken:  access,
		RefreshToken: refresh,
		TokenType:    "bearer",
		ExpiresIn:    int64(math.Round(s.cfg.AccessTTL.Seconds())),
		Username:     u.Username,
		Company:      u.Company,
	}, nil
}

// checkRefresh verifies a refresh token and its server-side record.
func (s *Service) checkRefresh(ctx context.Context, raw string) (*Claims, *showroom.RefreshToken, error) {
	c, _, err := s.verifier.parse(ctx, raw, TypeRefresh, "")
	if err != nil {
		// At /refresh an expired token is as unusable as a forged one: the
		// contract's answer for both is INVALID_TOKEN.
		var e *showroom.Error
		if errors.As(err, &e) && e.Code == showroom.ETokenExpired {
			e.Code = showroom.EInvalidToken
		}
		return nil, nil, err
	}
	rec, err := s.store.FindRefreshToken(ctx, c.ID)
	if showroom.ErrorCode(err) == showroom.ENotFound {
		return nil, nil, showroom.Errorf(showroom.EInvalidToken, "the token is invalid")
	} else if err != nil {
		return nil, nil, showroom.Internal(err)
	}
	return c, rec, nil
}

// Refresh returns a new access token for a valid, unrevoked refresh token.
// The refresh token itself is returned unchanged: it stays valid for the 30
// days it was issued for.
func (s *Service) Refresh(ctx context.Context, raw string) (*TokenResponse, error) {
	c, rec, err := s.checkRefresh(ctx, raw)
	if err != nil {
		return nil, err
	}
	if !rec.RevokedAt.IsZero() {
		return nil, showroom.Errorf(showroom.EInvalidToken, "the token has been revoked")
	}
	u, err := s.store.FindUser(ctx, c.Subject)
	if showroom.ErrorCode(err) == showroom.ENotFound {
		return nil, showroom.Errorf(showroom.EInvalidToken, "the token is invalid")
	} else if err != nil {
		return nil, showroom.Internal(err)
	}
	system := ""
	if len(c.Audience) == 1 {
		system = c.Audience[0]
	}
	if u.ID != rec.UserID || !u.MaySystem(system) {
		return nil, showroom.Errorf(showroom.EInvalidToken, "the token is invalid")
	}
	key, err := s.keys.Signer()
	if err != nil {
		return nil, showroom.Internal(err)
	}
	now := s.now()
	access, _, err := sign(key, u, system, TypeAccess, now, s.cfg.AccessTTL)
	if err != nil {
		return nil, showroom.Internal(err)
	}
	return &TokenResponse{
		AccessToken:  access,
		RefreshToken: raw,
		TokenType:    "bearer",
		ExpiresIn:    int64(math.Round(s.cfg.AccessTTL.Seconds())),
		Username:     u.Username,
		Company:      u.Company,
	}, nil
}

// Logout revokes a refresh token. Revoking one already revoked succeeds.
func (s *Service) Logout(ctx context.Context, raw string) error {
	_, rec, err := s.checkRefresh(ctx, raw)
	if err != nil {
		return err
	}
	if err := s.store.RevokeRefreshToken(ctx, rec.ID, s.now()); err != nil {
		return showroom.Internal(err)
	}
	return nil
}

// Verifier returns a verifier over the service's own keys, for an API served
// in the same process.
func (s *Service) Verifier() *Verifier { return s.verifier }

// Keys returns the service's key ring.
func (s *Service) Keys() *KeyRing { return s.keys }
