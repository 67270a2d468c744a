// Package blobtest is the conformance suite every blob.Store must pass,
// the local folder and S3 alike, and a versitygw server for running it
// against S3.
package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/showroom/showroom/internal/blob"
)

// Run runs the suite against stores made by newStore, one per subtest.
func Run(t *testing.T, newStore func(t *testing.T) blob.Store) {
	ctx := context.Background()

	t.Run("put, get, size, replace, delete", func(t *testing.T) {
		s := newStore(t)
		key := blob.NewKey("content/1")
		mustPut(t, s, key, "hello")
		wantBlob(t, s, key, "hello")
		mustPut(t, s, key, "replaced")
		wantBlob(t, s, key, "replaced")
		if err := s.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
		wantMissing(t, s, key)
		if err := s.Delete(ctx, key); err != nil {
			t.Errorf("deleting a missing blob: %v", err)
		}
	})

	t.Run("reachable", func(t *testing.T) {
		if err := newStore(t).Reachable(ctx); err != nil {
			t.Errorf("Reachable of a new store: %v", err)
		}
	})

	t.Run("missing key", func(t *testing.T) {
		s := newStore(t)
		wantMissing(t, s, "content/1/nothing")
		if err := s.Delete(ctx, "content/1/nothing"); err != nil {
			t.Errorf("deleting a blob that never was: %v", err)
		}
	})

	t.Run("keys are apart", func(t *testing.T) {
		// A key that is a prefix of another, or a folder of it, names a
		// blob of its own.
		s := newStore(t)
		mustPut(t, s, "a/b", "1")
		mustPut(t, s, "a/bc", "2")
		mustPut(t, s, "x/y/z", "3")
		wantBlob(t, s, "a/b", "1")
		wantBlob(t, s, "a/bc", "2")
		wantMissing(t, s, "x/y")
		if err := s.Delete(ctx, "x/y"); err != nil {
			t.Errorf("deleting a key that only prefixes others: %v", err)
		}
		wantBlob(t, s, "x/y/z", "3")
	})

	t.Run("empty blob", func(t *testing.T) {
		s := newStore(t)
		mustPut(t, s, "a/empty", "")
		wantBlob(t, s, "a/empty", "")
	})

	// Callers pass both kinds: a bytes.Reader (known length, can rewind)
	// and a request body (neither).
	large := randomBytes(5<<20 + 123)
	for _, rc := range []struct {
		name string
		r    func() io.Reader
	}{
		{"seekable", func() io.Reader { return bytes.NewReader(large) }},
		{"unknown length", func() io.Reader { return onlyReader{bytes.NewReader(large)} }},
	} {
		t.Run("large blob, "+rc.name, func(t *testing.T) {
			s := newStore(t)
			if err := s.Put(ctx, "big/one", rc.r()); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Size(ctx, "big/one"); err != nil || n != int64(len(large)) {
				t.Errorf("Size = %d, %v; want %d", n, err, len(large))
			}
			if got, want := digest(t, s, "big/one"), sha256.Sum256(large); got != want {
				t.Error("the blob read back differs from the one put")
			}
		})
	}

	t.Run("failed put leaves nothing", func(t *testing.T) {
		s := newStore(t)
		boom := errors.New("reader failed")
		err := s.Put(ctx, "a/b", io.MultiReader(strings.NewReader("partial"), errReader{boom}))
		if err == nil {
			t.Fatal("Put with a failing reader succeeded")
		}
		wantMissing(t, s, "a/b")
		mustPut(t, s, "a/c", "old")
		if err := s.Put(ctx, "a/c", io.MultiReader(strings.NewReader("new"), errReader{boom})); err == nil {
			t.Fatal("Put with a failing reader succeeded")
		}
		wantBlob(t, s, "a/c", "old")
	})

	t.Run("cancelled context", func(t *testing.T) {
		s := newStore(t)
		mustPut(t, s, "a/old", "old")
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		for _, r := range []io.Reader{strings.NewReader("x"), onlyReader{strings.NewReader("x")}} {
			if err := s.Put(cctx, "a/b", r); !errors.Is(err, context.Canceled) {
				t.Errorf("Put (%T) with a cancelled context: err = %v, want context.Canceled", r, err)
			}
		}
		wantMissing(t, s, "a/b")
		if err := s.Put(cctx, "a/old", strings.NewReader("new")); err == nil {
			t.Error("Put over a blob with a cancelled context succeeded")
		}
		wantBlob(t, s, "a/old", "old")
		if rc, err := s.Get(cctx, "a/old"); !errors.Is(err, context.Canceled) {
			if err == nil {
				rc.Close()
			}
			t.Errorf("Get with a cancelled context: err = %v, want context.Canceled", err)
		}
		if _, err := s.Size(cctx, "a/old"); !errors.Is(err, context.Canceled) {
			t.Errorf("Size with a cancelled context: err = %v, want context.Canceled", err)
		}
		if err := s.Delete(cctx, "a/old"); !errors.Is(err, context.Canceled) {
			t.Errorf("Delete with a cancelled context: err = %v, want context.Canceled", err)
		}
		if err := s.Reachable(cctx); !errors.Is(err, context.Canceled) {
			t.Errorf("Reachable with a cancelled context: err = %v, want context.Canceled", err)
		}
		wantBlob(t, s, "a/old", "old")
	})

	t.Run("bad keys refused", func(t *testing.T) {
		s := newStore(t)
		long := strings.Repeat("a", 513)
		for _, key := range []string{"", "../escape", "a/../../b", "/abs", "a/", "a//b", "a/./b", "a b", "a\x00b", long} {
			if err := s.Put(ctx, key, strings.NewReader("x")); err == nil {
				t.Errorf("Put(%q) succeeded", key)
			}
			if rc, err := s.Get(ctx, key); err == nil || errors.Is(err, blob.ErrNotFound) {
				if err == nil {
					rc.Close()
				}
				t.Errorf("Get(%q): err = %v, want an invalid-key error", key, err)
			}
			if _, err := s.Size(ctx, key); err == nil || errors.Is(err, blob.ErrNotFound) {
				t.Errorf("Size(%q): err = %v, want an invalid-key error", key, err)
			}
			if err := s.Delete(ctx, key); err == nil {
				t.Errorf("Delete(%q) succeeded", key)
			}
		}
	})

	t.Run("concurrent puts of one key", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		vals := []string{strings.Repeat("a", 1<<16), strings.Repeat("b", 1<<16), strings.Repeat("c", 1<<16)}
		for _, v := range vals {
			wg.Go(func() {
				if err := s.Put(ctx, "k/same", strings.NewReader(v)); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		got := read(t, s, "k/same")
		if got != vals[0] && got != vals[1] && got != vals[2] {
			t.Errorf("blob is a mix of concurrent puts (%d bytes)", len(got))
		}
	})

	t.Run("concurrent puts of different keys", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				v := strings.Repeat(fmt.Sprint(i), 100_000+i)
				if err := s.Put(ctx, fmt.Sprintf("many/%d", i), onlyReader{strings.NewReader(v)}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for i := range 8 {
			wantBlob(t, s, fmt.Sprintf("many/%d", i), strings.Repeat(fmt.Sprint(i), 100_000+i))
		}
	})

	t.Run("keys are fresh", func(t *testing.T) {
		if a, b := blob.NewKey("p"), blob.NewKey("p"); a == b || !blob.ValidKey(a) || !strings.HasPrefix(a, "p/") {
			t.Errorf("NewKey gave %q and %q", a, b)
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// onlyReader hides every method of a reader but Read, as a request body
// does: its length is unknown and it cannot rewind.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

func randomBytes(n int) []byte {
	b := make([]byte, n)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(b)
	return b
}

func mustPut(t testing.TB, s blob.Store, key, v string) {
	t.Helper()
	if err := s.Put(context.Background(), key, strings.NewReader(v)); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func read(t testing.TB, s blob.Store, key string) string {
	t.Helper()
	rc, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, rc); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func digest(t testing.TB, s blob.Store, key string) [sha256.Size]byte {
	t.Helper()
	rc, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		t.Fatal(err)
	}
	return [sha256.Size]byte(h.Sum(nil))
}

func wantBlob(t testing.TB, s blob.Store, key, want string) {
	t.Helper()
	if got := read(t, s, key); got != want {
		t.Errorf("Get(%q) = %q, want %q", key, got, want)
	}
	if n, err := s.Size(context.Background(), key); err != nil || n != int64(len(want)) {
		t.Errorf("Size(%q) = %d, %v; want %d", key, n, err, len(want))
	}
}

func wantMissing(t testing.TB, s blob.Store, key string) {
	t.Helper()
	if rc, err := s.Get(context.Background(), key); !errors.Is(err, blob.ErrNotFound) {
		if err == nil {
			rc.Close()
		}
		t.Errorf("Get(%q) err = %v, want ErrNotFound", key, err)
	}
	if _, err := s.Size(context.Background(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Size(%q) err = %v, want ErrNotFound", key, err)
	}
}
