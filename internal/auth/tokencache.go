package auth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// tokenCache remembers access tokens that passed the full check, keyed by
// the SHA-256 of the raw token (the token itself is not kept). Only the
// Verifier puts into it, after a check passed, so a forged token never
// enters; an entry is never used past the token's expiry or after its key
// stops verifying. It holds at most max entries: when full, an arbitrary
// entry makes room (map iteration starts at a random place), so a flood of
// genuine tokens costs a re-check each, never memory.
type tokenCache struct {
	max int

	mu      sync.RWMutex
	entries map[[sha256.Size]byte]*verifiedToken
}

// verifiedToken is what a passed check proved.
type verifiedToken struct {
	principal showroom.Principal // System is the audience it was checked for
	by        signedBy
	exp       time.Time
	issued    time.Time // the iat claim, checked against the user's TokensNotBefore
}

func newTokenCache(max int) *tokenCache {
	return &tokenCache{max: max, entries: make(map[[sha256.Size]byte]*verifiedToken)}
}

func (c *tokenCache) get(sum [sha256.Size]byte) *verifiedToken {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[sum]
}

func (c *tokenCache) put(sum [sha256.Size]byte, t *verifiedToken) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[sum]; !ok && len(c.entries) >= c.max {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[sum] = t
}

func (c *tokenCache) remove(sum [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, sum)
}

func (c *tokenCache) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
