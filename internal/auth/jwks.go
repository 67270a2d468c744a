package auth

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// JWKS is a JSON Web Key Set (RFC 7517) of Ed25519 public keys.
type JWKS struct {
	Keys []JWK `json:"keys"`
}

// JWK is one public key (RFC 8037, OKP Ed25519).
type JWK struct {
	KeyType string `json:"kty"`
	Curve   string `json:"crv"`
	X       string `json:"x"`
	KeyID   string `json:"kid"`
	Alg     string `json:"alg"`
	Use     string `json:"use"`
}

func publicJWK(kid string, pub ed25519.PublicKey) JWK {
	return JWK{KeyType: "OKP", Curve: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), KeyID: kid, Alg: "EdDSA", Use: "sig"}
}

var errUnknownKey = errors.New("unknown signing key")

// JWKSClient is a KeySource that reads the auth service's JWKS over HTTP, so
// an API replica verifies tokens without sharing a secret. It caches the set
// and refetches when it meets an unknown key ID, at most every minReload.
type JWKSClient struct {
	url    string
	client *http.Client

	mu        sync.Mutex
	keys      map[string]ed25519.PublicKey
	lastFetch time.Time
}

// NewJWKSClient returns a client for the key set at url
// (e.g. http://auth:8081/.well-known/jwks.json).
func NewJWKSClient(url string, client *http.Client) *JWKSClient {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	return &JWKSClient{url: url, client: client}
}

// PublicKey implements KeySource.
func (c *JWKSClient) PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.keys[kid]; ok {
		return k, nil
	}
	if c.keys != nil && time.Since(c.lastFetch) < minReload {
		return nil, errUnknownKey
	}
	keys, err := c.fetch(ctx)
	c.lastFetch = time.Now()
	if err != nil {
		return nil, err
	}
	c.keys = keys
	if k, ok := keys[kid]; ok {
		return k, nil
	}
	return nil, errUnknownKey
}

func (c *JWKSClient) fetch(ctx context.Context) (map[string]ed25519.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch JWKS: %s", resp.Status)
	}
	var set JWKS
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("fetch JWKS: %w", err)
	}
	keys := make(map[string]ed25519.PublicKey, len(set.Keys))
	for _, k := range set.Keys {
		if k.KeyType != "OKP" || k.Curve != "Ed25519" {
			continue
		}
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || len(x) != ed25519.PublicKeySize {
			continue
		}
		keys[k.KeyID] = ed25519.PublicKey(x)
	}
	return keys, nil
}
