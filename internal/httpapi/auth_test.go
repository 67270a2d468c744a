package httpapi_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/showroom/showroom/internal/auth"
	"github.com/showroom/showroom/internal/showroom"
)

// claimsOf decodes a JWT's header and claims without verifying it.
func claimsOf(t testing.TB, tok string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a JWS compact serialisation", tok)
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

func TestLogin(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	before := time.Now().Unix()
	res := e.do("POST", "/auth/login", jsonBody(map[string]string{
		"username": "alice", "password": testPassword, "system": "showroom",
	}), nil).wantStatus(http.StatusOK)
	if got := res.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", got)
	}
	var body map[string]any
	res.decode(&body)
	if body["token_type"] != "bearer" || body["expires_in"] != float64(86400) {
		t.Errorf("token_type %v, expires_in %v; want bearer, 86400", body["token_type"], body["expires_in"])
	}
	for _, tc := range []struct {
		field, typ string
		ttl        int64
	}{
		{"access_token", "access", 86400},
		{"refresh_token", "refresh", 30 * 86400},
	} {
		tok, _ := body[tc.field].(string)
		h, c := claimsOf(t, tok)
		if h["alg"] != "EdDSA" || h["kid"] == nil || h["kid"] == "" {
			t.Errorf("%s header %v: want alg EdDSA and a kid", tc.field, h)
		}
		iat, exp := int64(c["iat"].(float64)), int64(c["exp"].(float64))
		if iat < before-1 || exp-iat != tc.ttl {
			t.Errorf("%s: iat %d exp %d, want lifetime %d", tc.field, iat, exp, tc.ttl)
		}
		if c["sub"] != "alice" || c["company"] != "acme" || c["typ"] != tc.typ || c["jti"] == nil {
			t.Errorf("%s claims %v", tc.field, c)
		}
		if aud, _ := c["aud"].([]any); len(aud) != 1 || aud[0] != "showroom" {
			t.Errorf("%s aud %v, want [showroom]", tc.field, c["aud"])
		}
	}
}

func TestLoginBadRequests(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	const msg = "all parameters username, password and system are required"
	big := `{"username":"alice","password":"` + strings.Repeat("x", 70<<10) + `","system":"showroom"}`
	for _, tc := range []struct {
		name    string
		method  string
		body    string
		headers map[string]string
		status  int
		code    string
	}{
		{"empty body", "POST", "", nil, 400, showroom.EInvalidBody},
		{"malformed JSON", "POST", `{"username":`, nil, 400, showroom.EInvalidBody},
		{"array", "POST", `["alice"]`, nil, 400, showroom.EInvalidBody},
		{"two values", "POST", `{"username":"alice","password":"x","system":"s"} {}`, nil, 400, showroom.EInvalidBody},
		{"missing system", "POST", `{"username":"alice","password":"x"}`, nil, 400, showroom.EInvalidBody},
		{"empty password", "POST", `{"username":"alice","password":"","system":"showroom"}`, nil, 400, showroom.EInvalidBody},
		{"number username", "POST", `{"username":42,"password":"x","system":"showroom"}`, nil, 400, showroom.EInvalidBody},
		{"null password", "POST", `{"username":"alice","password":null,"system":"showroom"}`, nil, 400, showroom.EInvalidBody},
		{"text content type", "POST", `{"username":"alice","password":"x","system":"showroom"}`,
			map[string]string{"Content-Type": "text/plain"}, 415, showroom.EUnsupportedMedia},
		{"form content type", "POST", `username=alice`,
			map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, showroom.EUnsupportedMedia},
		{"too large", "POST", big, nil, 413, showroom.EPayloadTooLarge},
		{"GET", "GET", "", nil, 405, showroom.EMethodNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := e.do(tc.method, "/auth/login", rawJSON(tc.body), tc.headers).wantError(tc.status, tc.code)
			if tc.status == 400 && body["message"] != msg {
				t.Errorf("message %q, want %q", body["message"], msg)
			}
		})
	}
	res := e.do("GET", "/auth/login", nil, nil)
	if got := res.header.Get("Allow"); got != "POST" {
		t.Errorf("Allow %q, want POST", got)
	}
	e.do("GET", "/auth/nothing-here", nil, nil).wantError(404, showroom.ENotFound)
}

// TestLoginFailuresLookAlike checks that a wrong username, a wrong password
// and a system the user may not use get the same answer after about the
// same time, so that usernames cannot be enumerated.
func TestLoginFailuresLookAlike(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	e.addUser("acme", "bob", "othersystem")
	cases := []struct {
		name string
		body map[string]string
	}{
		{"unknown user", map[string]string{"username": "nobody", "password": testPassword, "system": "showroom"}},
		{"wrong password", map[string]string{"username": "alice", "password": "wrong password", "system": "showroom"}},
		{"other system", map[string]string{"username": "bob", "password": testPassword, "system": "showroom"}},
	}
	// The cases take turns, so that a change in the machine's load falls
	// on all of them alike.
	times := make([][]time.Duration, len(cases))
	for range 4 { // under the per-username limit of 5
		for i, tc := range cases {
			start := time.Now()
			body := e.do("POST", "/auth/login", jsonBody(tc.body), nil).wantError(403, showroom.EInvalidCredentials)
			times[i] = append(times[i], time.Since(start))
			if body["message"] != "wrong username or password; contact an administrator" {
				t.Errorf("%s: message %q", tc.name, body["message"])
			}
		}
	}
	medians := make([]time.Duration, len(cases))
	for i, ds := range times {
		sort.Slice(ds, func(a, b int) bool { return ds[a] < ds[b] })
		medians[i] = (ds[1] + ds[2]) / 2
	}
	// Each answer costs one argon2id check (~tens of ms); a missing check
	// would make one case several times faster than the others.
	for i := range cases {
		if medians[i]*3 < medians[0] || medians[0]*3 < medians[i] {
			t.Errorf("timing differs: %s %v vs %s %v", cases[i].name, medians[i], cases[0].name, medians[0])
		}
	}
}

func TestLoginRateLimit(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	for range 5 {
		e.do("POST", "/auth/login", jsonBody(map[string]string{"username": "alice", "password": "nope", "system": "showroom"}), nil).
			wantError(403, showroom.EInvalidCredentials)
	}
	res := e.do("POST", "/auth/login", jsonBody(map[string]string{
		"username": "ALICE", "password": testPassword, "system": "showroom",
	}), nil)
	res.wantError(429, showroom.ETooManyRequests)
	if ra := res.header.Get("Retry-After"); ra == "" || ra == "0" {
		t.Errorf("Retry-After %q, want seconds to wait", ra)
	}
	// Another user is not affected.
	e.addUser("acme", "carol")
	e.login("carol")
}

// TestLoginBurstIsLimited checks that a parallel burst of wrong passwords
// gets at most the per-username limit (5) checked: the rest are refused with
// 429 before any hashing, and a correct password then waits too.
func TestLoginBurstIsLimited(t *testing.T) {
	const burst = 30
	for _, tc := range []struct {
		name     string
		username string
	}{
		{"known user", "alice"},
		{"unknown user", "nobody"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var checks atomic.Int32
			cfg := auth.DefaultConfig()
			cfg.MaxHashes = burst // only the failure limit may hold the burst back
			cfg.HashWait = time.Minute
			cfg.CheckPassword = func(hash, password string) (bool, error) {
				checks.Add(1)
				time.Sleep(20 * time.Millisecond) // keep the burst's checks overlapping
				return auth.CheckPassword(hash, password)
			}
			e := newEnvAuth(t, cfg)
			e.addUser("acme", "alice")
			results := make(chan *response, burst)
			var wg sync.WaitGroup
			for range burst {
				wg.Add(1)
				go func() {
					defer wg.Done()
					results <- e.do("POST", "/auth/login", jsonBody(map[string]string{
						"username": tc.username, "password": "wrong password", "system": "showroom",
					}), nil)
				}()
			}
			wg.Wait()
			close(results)
			count := map[int]int{}
			for res := range results {
				count[res.status]++
				switch res.status {
				case http.StatusForbidden:
					res.wantError(403, showroom.EInvalidCredentials)
				case http.StatusTooManyRequests:
					res.wantError(429, showroom.ETooManyRequests)
					if ra := res.header.Get("Retry-After"); ra == "" || ra == "0" {
						t.Errorf("Retry-After %q, want seconds to wait", ra)
					}
				default:
					t.Errorf("status %d: %s", res.status, res.body)
				}
			}
			if count[403] != 5 || count[429] != burst-5 || checks.Load() != 5 {
				t.Errorf("%v, %d passwords checked; want 5 x 403, %d x 429, 5 checked", count, checks.Load(), burst-5)
			}
			// The documented lockout: even the right password waits for the window.
			res := e.do("POST", "/auth/login", jsonBody(map[string]string{
				"username": "alice", "password": testPassword, "system": "showroom",
			}), nil)
			if tc.username == "alice" {
				res.wantError(429, showroom.ETooManyRequests)
			} else {
				res.wantStatus(200) // another username's burst does not lock alice out
			}
		})
	}
}

// TestLoginOverloaded checks that logins beyond the password-check slots are
// refused with 503 SERVICE_OVERLOADED and Retry-After, known and unknown
// users alike, and that a refused login does not count as a failure.
func TestLoginOverloaded(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	cfg := auth.DefaultConfig()
	cfg.MaxHashes = 1
	cfg.HashWait = 10 * time.Millisecond
	cfg.CheckPassword = func(hash, password string) (bool, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release // hold the one slot until the test lets go
		return auth.CheckPassword(hash, password)
	}
	e := newEnvAuth(t, cfg)
	e.addUser("acme", "alice")
	e.addUser("acme", "bob")
	first := make(chan *response, 1)
	go func() {
		first <- e.do("POST", "/auth/login", jsonBody(map[string]string{
			"username": "bob", "password": testPassword, "system": "showroom",
		}), nil)
	}()
	<-entered // bob's check holds the only slot

	for _, tc := range []struct {
		name, username, password string
	}{
		{"unknown user", "nobody", testPassword},
		{"wrong password", "alice", "wrong password"},
		{"right password", "alice", testPassword},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// More tries than the failure limit: a refused login is not a failure.
			for range 6 {
				res := e.do("POST", "/auth/login", jsonBody(map[string]string{
					"username": tc.username, "password": tc.password, "system": "showroom",
				}), nil)
				body := res.wantError(503, showroom.EServiceOverloaded)
				if body["message"] != "too many logins at once; try again shortly" {
					t.Errorf("message %q", body["message"])
				}
				if ra := res.header.Get("Retry-After"); ra != "1" {
					t.Errorf("Retry-After %q, want 1", ra)
				}
			}
		})
	}
	close(release)
	(<-first).wantStatus(200)
	e.login("alice")
}

func TestRefresh(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	res := e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": tok.RefreshToken}), nil).wantStatus(200)
	if got := res.header.Get("Cache-Control"); got != "no-store" {
		t.Errorf("Cache-Control %q, want no-store", got)
	}
	var fresh auth.TokenResponse
	res.decode(&fresh)
	if fresh.AccessToken == "" || fresh.AccessToken == tok.AccessToken || fresh.TokenType != "bearer" || fresh.ExpiresIn != 86400 {
		t.Errorf("refresh answer %+v", fresh)
	}
	e.do("GET", "/v1/me", nil, map[string]string{"Authorization": "Bearer " + fresh.AccessToken}).wantStatus(200)

	const msg = "parameter refresh_token is required"
	for _, body := range []string{"", "{}", `{"refresh_token":""}`, `{"refresh_token":7}`, `{"refresh_token":`} {
		got := e.do("POST", "/auth/refresh", rawJSON(body), nil).wantError(400, showroom.EInvalidBody)
		if got["message"] != msg {
			t.Errorf("body %q: message %q, want %q", body, got["message"], msg)
		}
	}
}

// forge signs claims with key under kid: tokens the service did not make.
func forge(t testing.TB, key ed25519.PrivateKey, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validClaims are the claims the service would put in a token of typ.
func validClaims(typ string, ttl time.Duration) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": auth.Issuer, "sub": "alice", "company": "acme", "aud": []string{"showroom"},
		"iat": now.Unix(), "exp": now.Add(ttl).Unix(), "jti": "j" + now.String(), "typ": typ,
	}
}

func TestRefreshRejectsBadTokens(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	keys, err := e.db.SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	realKey, kid := keys[0].PrivateKey, keys[0].ID
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	expired := validClaims("refresh", -time.Hour)
	expired["iat"] = time.Now().Add(-31 * 24 * time.Hour).Unix()
	_, refreshClaims := claimsOf(t, tok.RefreshToken)
	tampered := jwt.MapClaims(refreshClaims)
	tampered["sub"] = "mallory"

	for _, tc := range []struct{ name, token string }{
		{"garbage", "not-a-token"},
		{"access token", tok.AccessToken},
		{"forged signature", forge(t, otherKey, kid, validClaims("refresh", time.Hour))},
		{"unknown kid", forge(t, realKey, "nope", validClaims("refresh", time.Hour))},
		{"expired", forge(t, realKey, kid, expired)},
		{"never issued", forge(t, realKey, kid, validClaims("refresh", time.Hour))},
		{"tampered", strings.Join(append(strings.Split(forge(t, otherKey, kid, tampered), ".")[:2],
			strings.Split(tok.RefreshToken, ".")[2]), ".")},
		{"alg none", strings.Split(tok.RefreshToken, ".")[0] + "." + strings.Split(tok.RefreshToken, ".")[1] + "."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": tc.token}), nil).
				wantError(401, showroom.EInvalidToken)
		})
	}
}

func TestLogoutRevokes(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	body := jsonBody(map[string]string{"refresh_token": tok.RefreshToken})
	e.do("POST", "/auth/logout", body, nil).wantStatus(204)
	e.do("POST", "/auth/logout", jsonBody(map[string]string{"refresh_token": tok.RefreshToken}), nil).wantStatus(204)
	e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": tok.RefreshToken}), nil).
		wantError(401, showroom.EInvalidToken)
	e.do("POST", "/auth/logout", jsonBody(map[string]string{"refresh_token": "junk"}), nil).
		wantError(401, showroom.EInvalidToken)
	// Another session of the same user is untouched.
	other := e.login("alice")
	e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": other.RefreshToken}), nil).wantStatus(200)
}

func TestPasswordChangeRevokesRefreshTokens(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	hash, err := auth.HashPassword("a new password")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.SetPassword(context.Background(), "alice", hash, time.Now()); err != nil {
		t.Fatal(err)
	}
	e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": tok.RefreshToken}), nil).
		wantError(401, showroom.EInvalidToken)
}

func TestJWKSAndRotation(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	old := e.login("alice")
	if _, err := e.svc.Keys().Rotate(context.Background()); err != nil {
		t.Fatal(err)
	}
	fresh := e.login("alice")
	oldH, _ := claimsOf(t, old.AccessToken)
	newH, _ := claimsOf(t, fresh.AccessToken)
	if oldH["kid"] == newH["kid"] {
		t.Fatalf("rotation did not change the signing key")
	}
	var set auth.JWKS
	e.do("GET", "/auth/.well-known/jwks.json", nil, nil).wantStatus(200).decode(&set)
	kids := map[string]bool{}
	for _, k := range set.Keys {
		if k.KeyType != "OKP" || k.Curve != "Ed25519" || k.Alg != "EdDSA" {
			t.Errorf("key %+v", k)
		}
		kids[k.KeyID] = true
	}
	if !kids[oldH["kid"].(string)] || !kids[newH["kid"].(string)] {
		t.Errorf("JWKS %v lacks the old or the new key", kids)
	}
	// Tokens of the retired key keep working until they expire.
	for _, tok := range []auth.TokenResponse{old, fresh} {
		e.do("GET", "/v1/me", nil, map[string]string{"Authorization": "Bearer " + tok.AccessToken}).wantStatus(200)
		e.do("POST", "/auth/refresh", jsonBody(map[string]string{"refresh_token": tok.RefreshToken}), nil).wantStatus(200)
	}
}

func TestAPIAuthentication(t *testing.T) {
	e := newEnv(t)
	e.addUser("acme", "alice")
	tok := e.login("alice")
	keys, err := e.db.SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key, kid := keys[0].PrivateKey, keys[0].ID
	expired := validClaims("access", -time.Hour)
	expired["iat"] = time.Now().Add(-25 * time.Hour).Unix()
	otherAud := validClaims("access", time.Hour)
	otherAud["aud"] = []string{"elsewhere"}
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)

	for _, tc := range []struct {
		name, header string
		status       int
		code         string
	}{
		{"bearer", "Bearer " + tok.AccessToken, 200, ""},
		{"bare token", tok.AccessToken, 200, ""},
		{"lower-case scheme", "bearer " + tok.AccessToken, 200, ""},
		{"missing", "", 401, showroom.EUnauthorized},
		{"empty bearer", "Bearer ", 401, showroom.EUnauthorized},
		{"basic scheme", "Basic YWxpY2U6eA==", 401, showroom.EUnauthorized},
		{"garbage", "Bearer abc.def.ghi", 401, showroom.EInvalidToken},
		{"refresh token", "Bearer " + tok.RefreshToken, 401, showroom.EInvalidToken},
		{"expired", "Bearer " + forge(t, key, kid, expired), 401, showroom.ETokenExpired},
		{"expired and forged", "Bearer " + forge(t, otherKey, kid, expired), 401, showroom.EInvalidToken},
		{"other audience", "Bearer " + forge(t, key, kid, otherAud), 401, showroom.EInvalidToken},
		{"forged", "Bearer " + forge(t, otherKey, kid, validClaims("access", time.Hour)), 401, showroom.EInvalidToken},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := e.do("GET", "/v1/me", nil, map[string]string{"Authorization": tc.header})
			if tc.status == 200 {
				var me map[string]string
				res.wantStatus(200).decode(&me)
				if me["username"] != "alice" || me["company"] != "acme" {
					t.Errorf("me = %v", me)
				}
				return
			}
			res.wantError(tc.status, tc.code)
			if !strings.HasPrefix(res.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("WWW-Authenticate %q", res.header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestAccessTokensRevokedByUserChange checks that an access token issued
// before its user's password changed, or before the user was deleted, is
// refused by the API (401 INVALID_TOKEN), and that one issued after works.
// The API reads the user it has not seen in auth.UserCheckInterval: here
// the old token is first sent after the change.
func TestAccessTokensRevokedByUserChange(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		change func(e *env)
	}{
		{"password changed", func(e *env) {
			// What `showroom admin user passwd` does, with the password
			// the harness logs in with.
			hash, err := auth.HashPassword(testPassword)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.db.SetPassword(ctx, "alice", hash, time.Now()); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted and created again", func(e *env) {
			if err := e.db.DeleteUser(ctx, "alice"); err != nil {
				t.Fatal(err)
			}
			e.addUser("acme", "alice")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.addUser("acme", "alice")
			before := e.login("alice")
			tc.change(e)
			me := func(tok string) *response {
				return e.do("GET", "/v1/me", nil, map[string]string{"Authorization": "Bearer " + tok})
			}
			res := me(before.AccessToken)
			body := res.wantError(401, showroom.EInvalidToken)
			want := "the token has been revoked: the user's password has changed, or the user no longer exists; log in again"
			if len(body) != 5 || body["message"] != want {
				t.Errorf("body %s, want status, reason, errorCode, timestamp and the message %q", res.body, want)
			}
			if got, want := res.header.Get("WWW-Authenticate"), `Bearer realm="showroom", error="invalid_token", error_description="the token is invalid"`; got != want {
				t.Errorf("WWW-Authenticate %q, want %q", got, want)
			}
			after := e.login("alice")
			me(after.AccessToken).wantStatus(200)
			me(before.AccessToken).wantError(401, showroom.EInvalidToken)
		})
	}
	t.Run("deleted", func(t *testing.T) {
		e := newEnv(t)
		e.addUser("acme", "alice")
		tok := e.login("alice")
		if err := e.db.DeleteUser(ctx, "alice"); err != nil {
			t.Fatal(err)
		}
		e.do("GET", "/v1/me", nil, map[string]string{"Authorization": "Bearer " + tok.AccessToken}).wantError(401, showroom.EInvalidToken)
	})
}
