package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Local is a Store in a folder of the local file system.
type Local struct {
	root string
	// createTemp is os.CreateTemp; tests give files that fail as a full
	// disk does.
	createTemp func(dir, pattern string) (*os.File, error)
}

var _ Store = (*Local)(nil)

// NewLocal returns a Store in the folder root, creating it if needed.
func NewLocal(root string) (*Local, error) {
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, fmt.Errorf("blob store: %w", err)
	}
	return &Local{root: root, createTemp: os.CreateTemp}, nil
}

// path returns key's file. A context already done stops the operation
// here, as it would stop a request to a remote store.
func (l *Local) path(ctx context.Context, key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("blob store: invalid key %q", key)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return filepath.Join(l.root, filepath.FromSlash(key)), nil
}

// Put implements Store: the bytes go to a temporary file in the target's
// folder, are synced, and the file is renamed into place, so a crash leaves
// either the old blob or the new one, never a partial file under the key.
// A disk without room for them fails it with ErrUnavailable.
func (l *Local) Put(ctx context.Context, key string, r io.Reader) error {
	return full(l.put(ctx, key, r))
}

func (l *Local) put(ctx context.Context, key string, r io.Reader) (err error) {
	p, err := l.path(ctx, key)
	if err != nil {
		return err
	}
	dir := filepath.Dir(p)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	// The leading dot keeps temporary files apart from keys' last segments
	// only by convention; they never match a key made by NewKey.
	f, err := l.createTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = io.Copy(f, ctxReader{ctx, r}); err != nil {
		return fmt.Errorf("blob store: write %s: %w", key, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("blob store: sync %s: %w", key, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("blob store: close %s: %w", key, err)
	}
	if err = os.Rename(f.Name(), p); err != nil {
		return fmt.Errorf("blob store: rename %s: %w", key, err)
	}
	// Sync the folder so the rename itself survives a crash.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Get implements Store.
func (l *Local) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	p, err := l.path(ctx, key)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, fmt.Errorf("blob store: %w", err)
	}
	// The folders that hold longer keys are no blobs.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("blob store: %w", err)
		}
		return nil, ErrNotFound
	}
	return f, nil
}

// Size implements Store.
func (l *Local) Size(ctx context.Context, key string) (int64, error) {
	p, err := l.path(ctx, key)
	if err != nil {
		return 0, err
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.Mode().IsRegular()) {
		return 0, ErrNotFound
	} else if err != nil {
		return 0, fmt.Errorf("blob store: %w", err)
	}
	return fi.Size(), nil
}

// Delete implements Store.
func (l *Local) Delete(ctx context.Context, key string) error {
	p, err := l.path(ctx, key)
	if err != nil {
		return err
	}
	// A folder that holds longer keys is no blob, so there is nothing to
	// delete; os.Remove would take it if empty and fail if not.
	if fi, err := os.Lstat(p); err != nil || fi.IsDir() {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("blob store: %w", err)
		}
		return nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob store: %w", err)
	}
	return nil
}

// Reachable implements Store: the folder is there (a disk that was not
// mounted, a folder removed under the process, fail).
func (l *Local) Reachable(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := os.Stat(l.root)
	if err != nil {
		return fmt.Errorf("blob store: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("blob store: %s is not a folder", l.root)
	}
	return nil
}

// ctxReader stops a long copy when the context is cancelled.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
