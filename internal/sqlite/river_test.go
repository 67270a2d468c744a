package sqlite

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/riverqueue/river/riverdriver"
)

// outboxListener stands for River's SQLite listener: it reads its outbox,
// then waits its poll (here 10 s) or for its context to end.
type outboxListener struct {
	riverdriver.Listener
	mu     sync.Mutex
	outbox []*riverdriver.Notification
	// cutShort, when set, is what a wait cut short returns instead of the
	// context's error, as a query interrupted mid-read may.
	cutShort error
}

func (l *outboxListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	for {
		l.mu.Lock()
		if len(l.outbox) > 0 {
			n := l.outbox[0]
			l.outbox = l.outbox[1:]
			l.mu.Unlock()
			return n, nil
		}
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.cutShort != nil {
				return nil, l.cutShort
			}
			return nil, ctx.Err()
		case <-time.After(10 * time.Second):
		}
	}
}

func (l *outboxListener) add(n *riverdriver.Notification) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outbox = append(l.outbox, n)
}

// TestCommitWakesTheListener checks that a commit this process announces
// has the listener read the outbox at once instead of at its next poll,
// that a notification written before the wait is not missed, and that
// the listener still stops when its context ends.
func TestCommitWakesTheListener(t *testing.T) {
	inner := &outboxListener{}
	d := &RiverDriver{}
	l := &wakeableListener{Listener: inner, commits: &d.commits}

	inner.add(&riverdriver.Notification{Topic: "insert", Payload: "before"})
	if n, err := l.WaitForNotification(context.Background()); err != nil || n.Payload != "before" {
		t.Fatalf("a notification written before the wait: %v, %v", n, err)
	}

	got := make(chan *riverdriver.Notification)
	go func() {
		n, err := l.WaitForNotification(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- n
	}()
	time.Sleep(20 * time.Millisecond) // the listener is waiting out its poll
	inner.mu.Lock()
	inner.cutShort = errors.New("interrupted")
	inner.mu.Unlock()
	inner.add(&riverdriver.Notification{Topic: "insert", Payload: "job"})
	d.commits.fire()
	select {
	case n := <-got:
		if n.Payload != "job" {
			t.Errorf("woken with %q", n.Payload)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("a commit did not wake the listener")
	}

	inner.mu.Lock()
	inner.cutShort = nil
	inner.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := l.WaitForNotification(ctx)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	d.commits.fire() // nothing new: it waits again
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ended with %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the listener did not stop with its context")
	}
}
