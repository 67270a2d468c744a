package blob

import "os"

// SetCreateTemp replaces how l makes its temporary files, for tests that
// need writes to fail as on a full disk.
func SetCreateTemp(l *Local, create func(dir, pattern string) (*os.File, error)) {
	l.createTemp = create
}
