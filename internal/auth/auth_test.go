package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
	"github.com/showroom/showroom/internal/sqlite"
)

func TestPassword(t *testing.T) {
	h, err := HashPassword("s3cret pass")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(h, "s3cret") {
		t.Errorf("hash %q", h)
	}
	h2, _ := HashPassword("s3cret pass")
	if h == h2 {
		t.Error("two hashes of one password are equal: no salt")
	}
	for _, tc := range []struct {
		pw   string
		want bool
	}{{"s3cret pass", true}, {"s3cret pas", false}, {"", false}} {
		if ok, err := CheckPassword(h, tc.pw); ok != tc.want || err != nil {
			t.Errorf("CheckPassword(%q) = %v, %v", tc.pw, ok, err)
		}
	}
	for _, bad := range []string{"", "plain", "$argon2i$v=19$m=1,t=1,p=1$AAAA$AAAA", "$argon2id$v=19$m=x$AAAA$AAAA", "$argon2id$v=19$m=8,t=1,p=1$!!$AAAA"} {
		if _, err := CheckPassword(bad, "x"); err == nil {
			t.Errorf("CheckPassword accepted hash %q", bad)
		}
	}
}

func newTestRing(t testing.TB, grace time.Duration) (*KeyRing, *sqlite.DB) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r, err := NewKeyRing(context.Background(), db, grace)
	if err != nil {
		t.Fatal(err)
	}
	return r, db
}

func TestKeyRingGracePeriod(t *testing.T) {
	ctx := context.Background()
	r, _ := newTestRing(t, time.Hour)
	first, _ := r.Signer()
	if _, err := r.Rotate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := r.PublicKey(ctx, first.ID); err != nil {
		t.Errorf("retired key no longer verifies within its grace: %v", err)
	}
	if n := len(r.JWKS().Keys); n != 2 {
		t.Errorf("JWKS has %d keys, want 2", n)
	}
	later := time.Now().Add(2 * time.Hour)
	r.now = func() time.Time { return later }
	if _, err := r.PublicKey(ctx, first.ID); err == nil {
		t.Error("retired key still verifies after its grace period")
	}
	if n := len(r.JWKS().Keys); n != 1 {
		t.Errorf("JWKS after grace has %d keys, want 1", n)
	}
}

// TestKeyRingSeesRotationElsewhere checks that a replica picks up a key that
// another process rotated in, when it meets a token signed by it.
func TestKeyRingSeesRotationElsewhere(t *testing.T) {
	ctx := context.Background()
	r, db := newTestRing(t, time.Hour)
	other, err := NewKeyRing(ctx, db, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	k, err := other.Rotate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r.lastReload = time.Time{} // as if minReload had passed
	if _, err := r.PublicKey(ctx, k.ID); err != nil {
		t.Errorf("replica does not find the rotated key: %v", err)
	}
}

// TestJWKSClientVerifies checks that a separately running API verifies
// tokens through the auth service's JWKS, and refetches after a rotation.
func TestJWKSClientVerifies(t *testing.T) {
	ctx := context.Background()
	r, db := newTestRing(t, time.Hour)
	c, _ := db.CreateCompany(ctx, "acme")
	u := &showroom.User{Username: "alice", PasswordHash: "x", CompanyID: c.ID, Company: "acme", Systems: []string{"showroom"}}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	var fetches atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fetches.Add(1)
		json.NewEncoder(w).Encode(r.JWKS())
	}))
	defer srv.Close()
	client := NewJWKSClient(srv.URL, nil)
	v := NewVerifier(client, db)

	key, _ := r.Signer()
	tok, _, err := sign(key, u, "showroom", TypeAccess, time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.VerifyAccess(ctx, tok, "showroom")
	if err != nil || p.Username != "alice" || p.Company != "acme" {
		t.Fatalf("VerifyAccess = %+v, %v", p, err)
	}
	if _, err := v.VerifyAccess(ctx, tok, "showroom"); err != nil || fetches.Load() != 1 {
		t.Errorf("second verification: %v, %d fetches; want the cached set", err, fetches.Load())
	}
	k2, err := r.Rotate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok2, _, _ := sign(k2, u, "showroom", TypeAccess, time.Now(), time.Hour)
	client.lastFetch = time.Time{}
	if _, err := v.VerifyAccess(ctx, tok2, "showroom"); err != nil {
		t.Errorf("token of the new key: %v", err)
	}
	// Unknown kids do not make a fetch each.
	before := fetches.Load()
	for range 5 {
		v.VerifyAccess(ctx, strings.Replace(tok2, "e", "f", 1), "showroom")
	}
	if fetches.Load() > before+1 {
		t.Errorf("%d fetches for 5 bad tokens", fetches.Load()-before)
	}
}

// TestLoginHashesBounded checks that however many logins arrive at once, no
// more than MaxHashes password checks (19 MiB each) run together.
func TestLoginHashesBounded(t *testing.T) {
	for _, maxHashes := range []int{1, 2} {
		t.Run(fmt.Sprint(maxHashes), func(t *testing.T) {
			ring, db := newTestRing(t, time.Hour)
			var running, peak atomic.Int32
			cfg := DefaultConfig()
			cfg.MaxHashes, cfg.HashWait = maxHashes, time.Minute
			cfg.CheckPassword = func(hash, password string) (bool, error) {
				n := running.Add(1)
				defer running.Add(-1)
				for {
					if p := peak.Load(); n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				time.Sleep(2 * time.Millisecond)
				return false, nil
			}
			svc, err := NewService(cfg, db, ring)
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			for i := range 40 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					// One username and address each, so that no failure limit applies.
					_, err := svc.Login(context.Background(), fmt.Sprint("user", i), "pw", "showroom", fmt.Sprint("client", i))
					if showroom.ErrorCode(err) != showroom.EInvalidCredentials {
						t.Errorf("login %d: %v, want INVALID_CREDENTIALS", i, err)
					}
				}()
			}
			wg.Wait()
			if p := peak.Load(); p < 1 || int(p) > maxHashes {
				t.Errorf("%d checks ran at once, want at most %d", p, maxHashes)
			}
		})
	}
}
