// Package blobtest is the conformance suite every blob.Store must pass: the
// local folder now, S3 later.
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"io"
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

	t.Run("missing key", func(t *testing.T) {
		wantMissing(t, newStore(t), "content/1/nothing")
	})

	t.Run("empty blob", func(t *testing.T) {
		s := newStore(t)
		mustPut(t, s, "a/empty", "")
		wantBlob(t, s, "a/empty", "")
	})

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

	t.Run("cancelled put leaves nothing", func(t *testing.T) {
		s := newStore(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := s.Put(cctx, "a/b", strings.NewReader("x")); err == nil {
			t.Fatal("Put with a cancelled context succeeded")
		}
		wantMissing(t, s, "a/b")
	})

	t.Run("bad keys refused", func(t *testing.T) {
		s := newStore(t)
		for _, key := range []string{"", "../escape", "a/../../b", "/abs", "a//b", "a/./b", "a b"} {
			if err := s.Put(ctx, key, strings.NewReader("x")); err == nil {
				t.Errorf("Put(%q) succeeded", key)
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

	t.Run("keys are fresh", func(t *testing.T) {
		if a, b := blob.NewKey("p"), blob.NewKey("p"); a == b || !blob.ValidKey(a) || !strings.HasPrefix(a, "p/") {
			t.Errorf("NewKey gave %q and %q", a, b)
		}
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

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
	if _, err := s.Get(context.Background(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Get(%q) err = %v, want ErrNotFound", key, err)
	}
	if _, err := s.Size(context.Background(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Size(%q) err = %v, want ErrNotFound", key, err)
	}
}
