package sqlite

import (
	"context"
	"sync"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riversqlite"
)

// RiverDriver is River's SQLite driver with a listener this process can
// wake. SQLite has no notifications: River's driver writes them to an
// outbox table that its listener reads every 50 ms (a constant of the
// driver), so a job this process enqueued waited 11–26 ms on average
// before a worker took it (docs/benchmarks.md). Once a transaction that
// enqueued a River job commits, the store wakes the listeners of this
// process, which read the outbox at once. Other processes on the same file
// still read it every 50 ms.
type RiverDriver struct {
	*riversqlite.Driver
	commits wakeup
}

func newRiverDriver(d *riversqlite.Driver) *RiverDriver { return &RiverDriver{Driver: d} }

// GetListener implements riverdriver.Driver.
func (d *RiverDriver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &wakeableListener{Listener: d.Driver.GetListener(params), commits: &d.commits}
}

// wakeableListener is River's SQLite listener, made to read the outbox
// again as soon as this process commits a notification.
type wakeableListener struct {
	riverdriver.Listener
	commits *wakeup
}

// WaitForNotification implements riverdriver.Listener. River's listener
// reads the outbox, then waits 50 ms or until its context ends: the wait
// is ended early, without losing a notification, by a context that a
// commit ends (a read that is cut short leaves the outbox's cursor where
// it was).
func (l *wakeableListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	for {
		commit := l.commits.next()
		wctx, cancel := context.WithCancel(ctx)
		go func() {
			select {
			case <-commit:
				cancel()
			case <-wctx.Done():
			}
		}()
		n, err := l.Listener.WaitForNotification(wctx)
		// Woken by a commit, whatever the cut-short wait returned (a read
		// interrupted mid-query may fail otherwise than as cancelled):
		// read the outbox again.
		woken := err != nil && ctx.Err() == nil && wctx.Err() != nil
		cancel()
		if woken {
			continue
		}
		return n, err
	}
}

// wakeup wakes every waiter at once: next returns a channel that the next
// fire closes.
type wakeup struct {
	mu sync.Mutex
	ch chan struct{}
}

func (w *wakeup) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

func (w *wakeup) fire() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}
