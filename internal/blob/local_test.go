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
