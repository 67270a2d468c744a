package blob_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/blob/blobtest"
)

func TestLocal(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s, err := blob.NewLocal(filepath.Join(t.TempDir(), "blobs"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// A failed Put must not leave its temporary file behind either.
func TestLocalNoTempFilesLeft(t *testing.T) {
	root := t.TempDir()
	s, err := blob.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	s.Put(t.Context(), "a/b", errAfter{})
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && strings.HasPrefix(fi.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

type errAfter struct{}

func (errAfter) Read(p []byte) (int, error) { return 0, os.ErrClosed }

// A folder removed under the store, or a file in its place, is
// unreachable; the folder put back makes it reachable again.
func TestLocalReachable(t *testing.T) {
	root := filepath.Join(t.TempDir(), "blobs")
	s, err := blob.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Reachable(t.Context()); err != nil {
		t.Fatalf("Reachable: %v", err)
	}
	if err := os.Remove(root); err != nil {
		t.Fatal(err)
	}
	if err := s.Reachable(t.Context()); err == nil {
		t.Error("Reachable with the folder removed")
	}
	if err := os.WriteFile(root, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Reachable(t.Context()); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("Reachable with a file in the folder's place: %v", err)
	}
	os.Remove(root)
	if err := os.Mkdir(root, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := s.Reachable(t.Context()); err != nil {
		t.Errorf("Reachable with the folder back: %v", err)
	}
}
