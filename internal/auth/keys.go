package auth

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// KeyRing holds the signing keys: the current one signs, every key not yet
// past its grace period verifies. It reloads from the store when asked for a
// key it does not know, so a replica sees a rotation made by another.
type KeyRing struct {
	store showroom.AuthStore
	// grace is how long a retired key keeps verifying: the longest token
	// lifetime, so every token it signed can expire on its own.
	grace time.Duration
	now   func() time.Time

	mu         sync.RWMutex
	keys       []*showroom.SigningKey // newest first
	lastReload time.Time
}

// minReload limits reloads triggered by unknown key IDs, so a flood of
// forged tokens does not become a flood of queries.
const minReload = 10 * time.Second

// NewKeyRing loads the keys from store, creating the first key if there is
// none.
func NewKeyRing(ctx context.Context, store showroom.AuthStore, grace time.Duration) (*KeyRing, error) {
	r := &KeyRing{store: store, grace: grace, now: time.Now}
	if err := r.reload(ctx); err != nil {
		return nil, err
	}
	if r.current() == nil {
		if _, err := r.Rotate(ctx); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *KeyRing) reload(ctx context.Context) error {
	keys, err := r.store.SigningKeys(ctx)
	if err != nil {
		return fmt.Errorf("load signing keys: %w", err)
	}
	r.mu.Lock()
	r.keys, r.lastReload = keys, r.now()
	r.mu.Unlock()
	return nil
}

func (r *KeyRing) current() *showroom.SigningKey {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, k := range r.keys {
		if k.RetiredAt.IsZero() {
			return k
		}
	}
	return nil
}

// Rotate makes a new current key; the previous keys keep verifying for the
// grace period, and keys past it are deleted.
func (r *KeyRing) Rotate(ctx context.Context) (*showroom.SigningKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	id := make([]byte, 12)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	k := &showroom.SigningKey{
		ID:         base64.RawURLEncoding.EncodeToString(id),
		PrivateKey: priv,
		CreatedAt:  r.now().UTC().Truncate(time.Millisecond),
	}
	if err := r.store.AddSigningKey(ctx, k); err != nil {
		return nil, err
	}
	if err := r.store.DeleteSigningKeysRetiredBefore(ctx, k.CreatedAt.Add(-r.grace)); err != nil {
		return nil, err
	}
	return k, r.reload(ctx)
}

// Signer returns the current signing key.
func (r *KeyRing) Signer() (*showroom.SigningKey, error) {
	if k := r.current(); k != nil {
		return k, nil
	}
	return nil, errors.New("no current signing key")
}

// PublicKey implements KeySource.
func (r *KeyRing) PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	if k := r.lookup(kid); k != nil {
		return k, nil
	}
	r.mu.RLock()
	stale := r.now().Sub(r.lastReload) >= minReload
	r.mu.RUnlock()
	if stale {
		if err := r.reload(ctx); err != nil {
			return nil, err
		}
		if k := r.lookup(kid); k != nil {
			return k, nil
		}
	}
	return nil, errUnknownKey
}

func (r *KeyRing) lookup(kid string) ed25519.PublicKey {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, k := range r.keys {
		if k.ID == kid && r.usable(k) {
			return k.PrivateKey.Public().(ed25519.PublicKey)
		}
	}
	return nil
}

func (r *KeyRing) usable(k *showroom.SigningKey) bool {
	return k.RetiredAt.IsZero() || r.now().Before(k.RetiredAt.Add(r.grace))
}

// JWKS returns the public keys that may verify a live token, as a JSON Web
// Key Set.
func (r *KeyRing) JWKS() JWKS {
	r.mu.RLock()
	defer r.mu.RUnlock()
	set := JWKS{Keys: []JWK{}}
	for _, k := range r.keys {
		if r.usable(k) {
			set.Keys = append(set.Keys, publicJWK(k.ID, k.PrivateKey.Public().(ed25519.PublicKey)))
		}
	}
	return set
}
