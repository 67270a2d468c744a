// Package storetest is the conformance suite every implementation of
// Showroom's storage interfaces must pass, SQLite and PostgreSQL alike. An
// implementation's own test calls these functions with a constructor that
// returns a fresh, empty store.
package storetest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// Auth runs the conformance suite of showroom.AuthStore.
func Auth(t *testing.T, newStore func(t *testing.T) showroom.AuthStore) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)

	t.Run("companies", func(t *testing.T) {
		s := newStore(t)
		c, err := s.CreateCompany(ctx, "acme")
		if err != nil || c.ID == 0 || c.Name != "acme" {
			t.Fatalf("CreateCompany = %+v, %v", c, err)
		}
		wantCode(t, "duplicate company", showroom.EConflict, func() error { _, err := s.CreateCompany(ctx, "acme"); return err }())
		got, err := s.FindCompany(ctx, "acme")
		if err != nil || got.ID != c.ID {
			t.Fatalf("FindCompany = %+v, %v", got, err)
		}
		wantCode(t, "unknown company", showroom.ENotFound, func() error { _, err := s.FindCompany(ctx, "ACME"); return err }())
	})

	t.Run("users", func(t *testing.T) {
		s := newStore(t)
		c := mustCompany(t, s, "acme")
		u := &showroom.User{Username: "alice", PasswordHash: "h1", CompanyID: c.ID, Systems: []string{"showroom", "other"}}
		if err := s.CreateUser(ctx, u); err != nil || u.ID == 0 {
			t.Fatalf("CreateUser: %v (id %d)", err, u.ID)
		}
		wantCode(t, "duplicate user", showroom.EConflict,
			s.CreateUser(ctx, &showroom.User{Username: "alice", PasswordHash: "h", CompanyID: c.ID}))
		got, err := s.FindUser(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != u.ID || got.Company != "acme" || got.PasswordHash != "h1" || !got.MaySystem("other") || got.MaySystem("x") {
			t.Errorf("FindUser = %+v", got)
		}
		// A new user refuses tokens issued before it: those of a deleted
		// user of the same name.
		if got.TokensNotBefore.IsZero() || !got.TokensNotBefore.Equal(got.CreatedAt) || !got.TokensNotBefore.Equal(u.TokensNotBefore) {
			t.Errorf("TokensNotBefore %v, want the creation time %v (CreateUser said %v)", got.TokensNotBefore, got.CreatedAt, u.TokensNotBefore)
		}
		wantCode(t, "unknown user", showroom.ENotFound, func() error { _, err := s.FindUser(ctx, "bob"); return err }())
		if n, err := s.CountUsers(ctx); err != nil || n != 1 {
			t.Errorf("CountUsers = %d, %v", n, err)
		}
	})

	t.Run("password change revokes refresh tokens", func(t *testing.T) {
		s := newStore(t)
		u := mustUser(t, s, "acme", "alice")
		tok := &showroom.RefreshToken{ID: "t1", UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := s.CreateRefreshToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if err := s.SetPassword(ctx, "alice", "h2", now); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindRefreshToken(ctx, "t1")
		if err != nil || got.RevokedAt.IsZero() {
			t.Errorf("after SetPassword token = %+v, %v; want revoked", got, err)
		}
		if u2, _ := s.FindUser(ctx, "alice"); u2.PasswordHash != "h2" || !u2.TokensNotBefore.Equal(now) {
			t.Errorf("hash %q, tokens not before %v; want h2, %v", u2.PasswordHash, u2.TokensNotBefore, now)
		}
		wantCode(t, "unknown user", showroom.ENotFound, s.SetPassword(ctx, "bob", "h", now))
	})

	t.Run("delete user", func(t *testing.T) {
		s := newStore(t)
		u := mustUser(t, s, "acme", "alice")
		tok := &showroom.RefreshToken{ID: "t1", UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := s.CreateRefreshToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteUser(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "deleted user", showroom.ENotFound, func() error { _, err := s.FindUser(ctx, "alice"); return err }())
		wantCode(t, "deleted user's refresh token", showroom.ENotFound, func() error { _, err := s.FindRefreshToken(ctx, "t1"); return err }())
		wantCode(t, "deleting again", showroom.ENotFound, s.DeleteUser(ctx, "alice"))
		// The name may be given again.
		u2 := &showroom.User{Username: "alice", PasswordHash: "h", CompanyID: u.CompanyID, Systems: []string{showroom.DefaultSystem}}
		if err := s.CreateUser(ctx, u2); err != nil {
			t.Errorf("user of a deleted one's name: %v", err)
		}
		if n, err := s.CountUsers(ctx); err != nil || n != 1 {
			t.Errorf("CountUsers = %d, %v", n, err)
		}
	})

	t.Run("refresh tokens", func(t *testing.T) {
		s := newStore(t)
		u := mustUser(t, s, "acme", "alice")
		tok := &showroom.RefreshToken{ID: "t1", UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		if err := s.CreateRefreshToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "duplicate token", showroom.EConflict, s.CreateRefreshToken(ctx, tok))
		got, err := s.FindRefreshToken(ctx, "t1")
		if err != nil || got.UserID != u.ID || !got.ExpiresAt.Equal(tok.ExpiresAt) || !got.RevokedAt.IsZero() {
			t.Fatalf("FindRefreshToken = %+v, %v", got, err)
		}
		if err := s.RevokeRefreshToken(ctx, "t1", now); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeRefreshToken(ctx, "t1", now.Add(time.Minute)); err != nil {
			t.Errorf("revoking twice: %v", err)
		}
		if got, _ := s.FindRefreshToken(ctx, "t1"); !got.RevokedAt.Equal(now) {
			t.Errorf("RevokedAt %v, want the first revocation %v", got.RevokedAt, now)
		}
		wantCode(t, "revoke unknown", showroom.ENotFound, s.RevokeRefreshToken(ctx, "nope", now))
		if err := s.DeleteRefreshTokensExpiredBefore(ctx, now.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantCode(t, "expired token deleted", showroom.ENotFound, func() error { _, err := s.FindRefreshToken(ctx, "t1"); return err }())
	})

	t.Run("login failures", func(t *testing.T) {
		s := newStore(t)
		const window = time.Minute
		failures := func(key string, at time.Time, window time.Duration) (int, time.Time) {
			t.Helper()
			n, start, err := s.LoginFailures(ctx, key, at, window)
			if err != nil {
				t.Fatal(err)
			}
			return n, start
		}
		add := func(key string, at time.Time) {
			t.Helper()
			if err := s.AddLoginFailure(ctx, key, at, window); err != nil {
				t.Fatal(err)
			}
		}
		if n, start := failures("u:alice", now, window); n != 0 || !start.IsZero() {
			t.Errorf("never failed: %d since %v, want none", n, start)
		}
		add("u:alice", now)
		add("u:alice", now.Add(10*time.Second))
		add("c:10.0.0.1", now.Add(20*time.Second))
		for _, tc := range []struct {
			key       string
			at        time.Time
			wantN     int
			wantStart time.Time
		}{
			{"u:alice", now.Add(30 * time.Second), 2, now},
			{"c:10.0.0.1", now.Add(30 * time.Second), 1, now.Add(20 * time.Second)},
			{"u:bob", now.Add(30 * time.Second), 0, time.Time{}},
			{"u:alice", now.Add(window - time.Millisecond), 2, now},
			{"u:alice", now.Add(window), 0, time.Time{}}, // the window has ended
		} {
			if n, start := failures(tc.key, tc.at, window); n != tc.wantN || !start.Equal(tc.wantStart) {
				t.Errorf("%s at +%v: %d since %v, want %d since %v", tc.key, tc.at.Sub(now), n, start, tc.wantN, tc.wantStart)
			}
		}
		// A failure after the window's end starts a new window.
		later := now.Add(window + time.Second)
		add("u:alice", later)
		if n, start := failures("u:alice", later, window); n != 1 || !start.Equal(later) {
			t.Errorf("new window: %d since %v, want 1 since %v", n, start, later)
		}
		if err := s.ClearLoginFailures(ctx, "u:alice"); err != nil {
			t.Fatal(err)
		}
		if n, _ := failures("u:alice", later, window); n != 0 {
			t.Errorf("after clear: %d failures", n)
		}
		if n, _ := failures("c:10.0.0.1", now.Add(30*time.Second), window); n != 1 {
			t.Errorf("clearing one key cleared another: %d failures", n)
		}

		// Failures added at once, as by several auth processes, all count.
		var wg sync.WaitGroup
		errs := make(chan error, 20)
		for range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- s.AddLoginFailure(ctx, "u:carol", now, window)
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := failures("u:carol", now, window); n != 20 {
			t.Errorf("20 failures added at once counted %d", n)
		}

		// Deleting ended windows keeps the live ones.
		if err := s.DeleteLoginFailuresBefore(ctx, now.Add(time.Second)); err != nil {
			t.Fatal(err)
		}
		for key, want := range map[string]int{"u:carol": 0, "c:10.0.0.1": 1} {
			if n, _ := failures(key, now.Add(30*time.Second), time.Hour); n != want {
				t.Errorf("%s after deleting windows begun before +1s: %d failures, want %d", key, n, want)
			}
		}
	})

	t.Run("signing keys", func(t *testing.T) {
		s := newStore(t)
		if keys, err := s.SigningKeys(ctx); err != nil || len(keys) != 0 {
			t.Fatalf("empty store has keys %v, %v", keys, err)
		}
		k1 := newKey(t, "k1", now)
		k2 := newKey(t, "k2", now.Add(time.Second))
		for _, k := range []*showroom.SigningKey{k1, k2} {
			if err := s.AddSigningKey(ctx, k); err != nil {
				t.Fatal(err)
			}
		}
		wantCode(t, "duplicate key", showroom.EConflict, s.AddSigningKey(ctx, newKey(t, "k1", now.Add(2*time.Second))))
		keys, err := s.SigningKeys(ctx)
		if err != nil || len(keys) != 2 {
			t.Fatalf("SigningKeys = %v, %v", keys, err)
		}
		if keys[0].ID != "k2" || !keys[0].RetiredAt.IsZero() || keys[1].ID != "k1" || !keys[1].RetiredAt.Equal(k2.CreatedAt) {
			t.Errorf("keys %+v %+v: want k2 current, k1 retired when k2 came", keys[0], keys[1])
		}
		if !keys[0].PrivateKey.Equal(k2.PrivateKey) {
			t.Errorf("stored key differs from the one added")
		}
		if err := s.DeleteSigningKeysRetiredBefore(ctx, now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if keys, _ := s.SigningKeys(ctx); len(keys) != 1 || keys[0].ID != "k2" {
			t.Errorf("after delete: %v; want only the current key", keys)
		}
	})
}

func wantCode(t *testing.T, what, code string, err error) {
	t.Helper()
	if got := showroom.ErrorCode(err); got != code {
		t.Errorf("%s: error %v (code %q), want code %s", what, err, got, code)
	}
}

func mustCompany(t *testing.T, s showroom.AuthStore, name string) *showroom.Company {
	t.Helper()
	c, err := s.CreateCompany(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustUser(t *testing.T, s showroom.AuthStore, company, username string) *showroom.User {
	t.Helper()
	c := mustCompany(t, s, company)
	u := &showroom.User{Username: username, PasswordHash: "h", CompanyID: c.ID, Systems: []string{showroom.DefaultSystem}}
	if err := s.CreateUser(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func newKey(t *testing.T, id string, at time.Time) *showroom.SigningKey {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &showroom.SigningKey{ID: id, PrivateKey: priv, CreatedAt: at}
}
