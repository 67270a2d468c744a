package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// TestVerifierRemembers checks that remembering verified access tokens
// changes no answer of VerifyAccess: every case is asked twice, so that the
// second answer comes from the cache where the cache could answer.
func TestVerifierRemembers(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	ring, db := newTestRing(t, time.Hour)
	co, err := db.CreateCompany(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	alice := &showroom.User{Username: "alice", CompanyID: co.ID, Company: "acme", Systems: []string{"showroom"}}
	key, _ := ring.Signer()
	token := func(system, typ string, issued time.Time, ttl time.Duration) string {
		t.Helper()
		s, _, err := sign(key, alice, system, typ, issued, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// A token signed by a key that is not the ring's, under the ring's kid.
	other, _ := newTestRing(t, time.Hour)
	foreign, _ := other.Signer()
	forgedKey := *foreign
	forgedKey.ID = key.ID
	forged, _, _ := sign(&forgedKey, alice, "showroom", TypeAccess, t0, time.Hour)

	access := token("showroom", TypeAccess, t0, time.Hour)
	tampered := access[:len(access)-4] + strings.Map(func(r rune) rune { return r ^ 1 }, access[len(access)-4:])
	for _, tc := range []struct {
		name   string
		raw    string
		system string
		at     time.Time
		want   string // error code, or "" for alice
	}{
		{"genuine", access, "showroom", t0, ""},
		{"genuine, for another system", access, "elsewhere", t0, showroom.EInvalidToken},
		{"genuine again, after the other system was refused", access, "showroom", t0, ""},
		{"a minute before expiry", access, "showroom", t0.Add(59 * time.Minute), ""},
		{"after expiry, within the leeway", access, "showroom", t0.Add(time.Hour + 10*time.Second), ""},
		{"after expiry and the leeway", access, "showroom", t0.Add(time.Hour + time.Minute), showroom.ETokenExpired},
		{"signature tampered with", tampered, "showroom", t0, showroom.EInvalidToken},
		{"signed by another key under the same kid", forged, "showroom", t0, showroom.EInvalidToken},
		{"a refresh token", token("showroom", TypeRefresh, t0, time.Hour), "showroom", t0, showroom.EInvalidToken},
		{"issued for another system", token("elsewhere", TypeAccess, t0, time.Hour), "showroom", t0, showroom.EInvalidToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := NewVerifier(ring, nil)
			v.now = func() time.Time { return t0 }
			// Verified once at t0 for showroom when it can be, so the
			// cache holds what it would hold in a running server.
			v.VerifyAccess(ctx, tc.raw, "showroom")
			v.now = func() time.Time { return tc.at }
			for i := range 2 {
				p, err := v.VerifyAccess(ctx, tc.raw, tc.system)
				switch {
				case tc.want == "" && (err != nil || p.Username != "alice" || p.Company != "acme" || p.System != tc.system):
					t.Errorf("ask %d: %+v, %v; want alice of acme for %s", i+1, p, err, tc.system)
				case tc.want != "" && showroom.ErrorCode(err) != tc.want:
					t.Errorf("ask %d: %+v, %v; want %s", i+1, p, err, tc.want)
				}
			}
		})
	}

	t.Run("forged tokens never enter", func(t *testing.T) {
		v := NewVerifier(ring, nil)
		for _, raw := range []string{tampered, forged, "a.b.c", access + "x"} {
			v.VerifyAccess(ctx, raw, "showroom")
		}
		if n := v.cache.len(); n != 0 {
			t.Errorf("the cache holds %d entries after only forged tokens", n)
		}
	})

	t.Run("a principal handed out is the caller's own", func(t *testing.T) {
		v := NewVerifier(ring, nil)
		p, _ := v.VerifyAccess(ctx, access, "showroom")
		p.Company = "evil"
		if p, _ := v.VerifyAccess(ctx, access, "showroom"); p.Company != "acme" {
			t.Errorf("the cached principal was changed through an earlier answer: %+v", p)
		}
	})

	t.Run("bounded", func(t *testing.T) {
		v := NewVerifier(ring, nil)
		v.cache = newTokenCache(3)
		var tokens []string
		for i := range 10 {
			tokens = append(tokens, token("showroom", TypeAccess, t0.Add(time.Duration(i)*time.Second), time.Hour))
		}
		for round := range 2 {
			for i, raw := range tokens {
				if _, err := v.VerifyAccess(ctx, raw, "showroom"); err != nil {
					t.Errorf("round %d, token %d: %v", round, i, err)
				}
				if n := v.cache.len(); n > 3 {
					t.Fatalf("the cache holds %d entries, bound 3", n)
				}
			}
		}
	})
}

// TestVerifierForgetsRetiredKeys checks that a remembered token stops
// passing when the key that signed it stops verifying, even though the
// token itself has not expired.
func TestVerifierForgetsRetiredKeys(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	ring, db := newTestRing(t, time.Hour)
	co, _ := db.CreateCompany(ctx, "acme")
	alice := &showroom.User{Username: "alice", CompanyID: co.ID, Company: "acme", Systems: []string{"showroom"}}
	key, _ := ring.Signer()
	// Longer-lived than the grace period, as no Showroom token is: this
	// isolates the key's end from the token's.
	raw, _, err := sign(key, alice, "showroom", TypeAccess, t0, 10*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	v := NewVerifier(ring, nil)
	if _, err := v.VerifyAccess(ctx, raw, "showroom"); err != nil {
		t.Fatal(err)
	}
	if _, err := ring.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	within := t0.Add(30 * time.Minute)
	ring.now, v.now = func() time.Time { return within }, func() time.Time { return within }
	if _, err := v.VerifyAccess(ctx, raw, "showroom"); err != nil {
		t.Errorf("within the retired key's grace: %v", err)
	}
	after := t0.Add(2 * time.Hour)
	ring.now, v.now = func() time.Time { return after }, func() time.Time { return after }
	for i := range 2 {
		if _, err := v.VerifyAccess(ctx, raw, "showroom"); showroom.ErrorCode(err) != showroom.EInvalidToken {
			t.Errorf("ask %d after the key's grace: %v, want %s", i+1, err, showroom.EInvalidToken)
		}
	}
	if n := v.cache.len(); n != 0 {
		t.Errorf("the cache still holds %d entries for a key that no longer verifies", n)
	}
}

// TestAccessTokensOfChangedUsers checks that an access token issued before
// its user's password changed, or of a deleted user, is refused, by the
// auth service's own verifier and by an api's that verifies with the JWKS
// and reads the same database; that a verifier trusts what it read of a
// user for UserCheckInterval and no longer; and that tokens issued after
// the change, in the same second too, pass.
func TestAccessTokensOfChangedUsers(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		backend int // in backends
		split   bool
	}{{0, false}, {0, true}, {1, true}} {
		t.Run(backends[tc.backend].name+"/"+map[bool]string{false: "auth service", true: "api with the JWKS"}[tc.split], func(t *testing.T) {
			split := tc.split
			db := backends[tc.backend].open(t)()
			addUser(t, db, "alice", "first password")
			svc := newLimitService(t, db, limitConfig())
			v := svc.Verifier()
			if split {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					json.NewEncoder(w).Encode(svc.Keys().JWKS())
				}))
				t.Cleanup(srv.Close)
				v = NewVerifier(NewJWKSClient(srv.URL, nil), db)
			}
			clock := time.Now()
			v.now = func() time.Time { return clock }
			login := func(password string) string {
				t.Helper()
				resp, err := svc.Login(ctx, "alice", password, "showroom", "192.0.2.1")
				if err != nil {
					t.Fatal(err)
				}
				return resp.AccessToken
			}
			verify := func(what, tok, wantCode string) {
				t.Helper()
				p, err := v.VerifyAccess(ctx, tok, "showroom")
				if got := showroom.ErrorCode(err); got != wantCode || (err == nil && p.Username != "alice") {
					t.Errorf("%s: %+v, %v; want %q", what, p, err, wantCode)
				}
				if wantCode == showroom.EInvalidToken && err != nil && !strings.Contains(err.Error(), "revoked") {
					t.Errorf("%s: %v, want a revoked token", what, err)
				}
			}
			first := login("first password")
			verify("before the change", first, "")

			time.Sleep(5 * time.Millisecond) // a token of the 2 ms before a change may pass
			if err := db.SetPassword(ctx, "alice", fakeHash("second password"), time.Now()); err != nil {
				t.Fatal(err)
			}
			second := login("second password") // in the same second, most likely
			verify("just after the change, within the interval", first, "")
			clock = clock.Add(UserCheckInterval)
			verify("after the change and the interval", first, showroom.EInvalidToken)
			verify("issued after the change", second, "")

			time.Sleep(5 * time.Millisecond)
			if err := db.DeleteUser(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			clock = clock.Add(UserCheckInterval)
			verify("of a deleted user", second, showroom.EInvalidToken)
			addUser(t, db, "alice", "third password")
			clock = clock.Add(UserCheckInterval)
			verify("of a deleted user whose name is given again", second, showroom.EInvalidToken)
			verify("of the new user", login("third password"), "")
		})
	}
}

// TestIssuedBefore checks the comparison of a token's iat, read back from
// the token, with a user's TokensNotBefore, at many instants: a token issued
// at or after it passes (so does one a clock behind the changer's issues,
// dated at it), one issued 2 ms or more before it is refused.
func TestIssuedBefore(t *testing.T) {
	ctx := context.Background()
	ring, _ := newTestRing(t, time.Hour)
	key, _ := ring.Signer()
	v := NewVerifier(ring, nil)
	base := time.Now()
	for i := range 200 {
		nb := base.Add(time.Duration(i) * 1234567 * time.Nanosecond)
		for _, tc := range []struct {
			name       string
			issued     time.Time
			notBefore  time.Time // u.TokensNotBefore when signing
			wantBefore bool
		}{
			{"at the change", nb, time.Time{}, false},
			{"just after", nb.Add(time.Microsecond), time.Time{}, false},
			{"a second after", nb.Add(time.Second), time.Time{}, false},
			{"2 ms before", nb.Add(-2 * time.Millisecond), time.Time{}, true},
			{"a second before", nb.Add(-time.Second), time.Time{}, true},
			{"after, by a clock 3 s behind", nb.Add(-3 * time.Second), nb, false},
		} {
			u := &showroom.User{Username: "alice", Company: "acme", TokensNotBefore: tc.notBefore}
			raw, _, err := sign(key, u, "showroom", TypeAccess, tc.issued, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			v.now = func() time.Time { return tc.issued }
			c, _, err := v.parse(ctx, raw, TypeAccess, "showroom")
			if err != nil {
				t.Fatal(err)
			}
			if got := issuedBefore(c.IssuedAt.Time, nb); got != tc.wantBefore {
				t.Fatalf("nb %v, %s: iat %v read as issued before: %v, want %v", nb, tc.name, c.IssuedAt.Time, got, tc.wantBefore)
			}
		}
	}
}
