package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// FuzzVerifyAccess feeds the token parser what an attacker would send in
// an Authorization header: mangled tokens, tokens of the wrong type, other
// algorithms, huge and binary strings. Whatever arrives, the answer is
// INVALID_TOKEN or TOKEN_EXPIRED, never a panic, and a token that passes
// speaks for the user it was signed for and no one else.
func FuzzVerifyAccess(f *testing.F) {
	ctx := context.Background()
	ring, db := newTestRing(f, time.Hour)
	c, err := db.CreateCompany(ctx, "acme")
	if err != nil {
		f.Fatal(err)
	}
	u := &showroom.User{Username: "alice", CompanyID: c.ID, Company: "acme", Systems: []string{"showroom"}}
	key, err := ring.Signer()
	if err != nil {
		f.Fatal(err)
	}
	now := time.Now()
	access, _, _ := sign(key, u, "showroom", TypeAccess, now, time.Hour)
	refresh, _, _ := sign(key, u, "showroom", TypeRefresh, now, time.Hour)
	expired, _, _ := sign(key, u, "showroom", TypeAccess, now.Add(-2*time.Hour), time.Hour)
	other, _, _ := sign(key, u, "elsewhere", TypeAccess, now, time.Hour)
	for _, s := range []string{
		access, refresh, expired, other, "", ".", "..", "a.b.c",
		"Bearer " + access, "bearer  " + access, " " + access,
		// alg none and HS256 signed with the public key: classic confusions.
		"eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJhbGljZSJ9.",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl",
		strings.Replace(access, ".", "..", 1), access[:len(access)/2],
		strings.Repeat("A", 10000), "\xff\xfe\x00",
	} {
		f.Add(s)
	}
	v := NewVerifier(ring, nil)
	f.Fuzz(func(t *testing.T, header string) {
		raw, ok := TokenFromHeader(header)
		if !ok {
			return
		}
		p, err := v.VerifyAccess(ctx, raw, "showroom")
		if err != nil {
			if code := showroom.ErrorCode(err); code != showroom.EInvalidToken && code != showroom.ETokenExpired {
				t.Fatalf("VerifyAccess(%q): code %s, want INVALID_TOKEN or TOKEN_EXPIRED (%v)", raw, code, err)
			}
			return
		}
		if p.Username != "alice" || p.Company != "acme" || p.System != "showroom" {
			t.Fatalf("VerifyAccess(%q) accepted a token for %+v", raw, p)
		}
	})
}
