package blob_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/showroom/showroom/internal/blob"
	"github.com/showroom/showroom/internal/blob/blobtest"
	"github.com/showroom/showroom/internal/showroom"
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

// TestLocalDiskFull: a Put that finds the disk full (a real ENOSPC, from
// writes to /dev/full) fails with ErrUnavailable, which the API answers
// 503 with Retry-After, leaves nothing under the key, and the store works
// again once there is room.
func TestLocalDiskFull(t *testing.T) {
	s, err := blob.NewLocal(filepath.Join(t.TempDir(), "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	blob.SetCreateTemp(s, func(dir, _ string) (*os.File, error) {
		fd, err := syscall.Open("/dev/full", syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			t.Skipf("no /dev/full: %v", err)
		}
		return os.NewFile(uintptr(fd), filepath.Join(dir, ".tmp-full")), nil
	})
	ctx := t.Context()
	err = s.Put(ctx, "content/1/a", strings.NewReader("some bytes"))
	var e *showroom.Error
	if !errors.Is(err, blob.ErrUnavailable) || !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &e) ||
		e.Code != showroom.EUnavailable || e.RetryAfter <= 0 || e.Message != "the server is out of storage space; try again later" {
		t.Fatalf("Put on a full disk: %v (%#v), want ErrUnavailable from ENOSPC, SERVICE_UNAVAILABLE with a Retry-After", err, e)
	}
	if _, err := s.Size(ctx, "content/1/a"); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Size after the failed Put: %v, want ErrNotFound", err)
	}
	blob.SetCreateTemp(s, os.CreateTemp)
	if err := s.Put(ctx, "content/1/a", strings.NewReader("some bytes")); err != nil {
		t.Fatalf("Put with room again: %v", err)
	}
}
