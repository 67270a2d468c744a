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
// stops verifying. Bounded (see boundedCache), a flood of genuine tokens
// costs a re-check each, never memory.
type tokenCache = boundedCache[[sha256.Size]byte, *verifiedToken]

// verifiedToken is what a passed check proved.
type verifiedToken struct {
	principal showroom.Principal // System is the audience it was checked for
	by        signedBy
	exp       time.Time
	issued    time.Time // the iat claim, checked against the user's TokensNotBefore
}

func newTokenCache(max int) *tokenCache {
	return newBoundedCache[[sha256.Size]byte, *verifiedToken](max)
}

// boundedCache is a map safe for concurrent use that holds at most max
// entries: when full, an arbitrary entry makes room (map iteration starts
// at a random place), so what enters can never grow it.
type boundedCache[K comparable, V any] struct {
	max int

	mu      sync.RWMutex
	entries map[K]V
}

func newBoundedCache[K comparable, V any](max int) *boundedCache[K, V] {
	return &boundedCache[K, V]{max: max, entries: make(map[K]V)}
}

func (c *boundedCache[K, V]) get(k K) (V, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.entries[k]
	return v, ok
}

func (c *boundedCache[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; !ok && len(c.entries) >= c.max {
		for old := range c.entries {
			delete(c.entries, old)
			break
		}
	}
	c.entries[k] = v
}

func (c *boundedCache[K, V]) remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, k)
}

func (c *boundedCache[K, V]) len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}
