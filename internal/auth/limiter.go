package auth

import (
	"sync"
	"time"
)

// failureLimiter counts login attempts per key (a username, a client
// address) in a fixed window and says how long a key must wait once it has
// failed too often. An attempt is counted before its password is checked and
// forgiven if it succeeds, so what stays counted are failures. It forgets windows that have ended and holds at most maxKeys
// keys, so a flood of random usernames cannot grow it without bound.
type failureLimiter struct {
	limit   int
	window  time.Duration
	maxKeys int

	mu    sync.Mutex
	slots map[string]*failureSlot
}

type failureSlot struct {
	start time.Time
	count int
}

func newFailureLimiter(limit int, window time.Duration, maxKeys int) *failureLimiter {
	return &failureLimiter{limit: limit, window: window, maxKeys: maxKeys, slots: map[string]*failureSlot{}}
}

// reserve counts an attempt for key before it is checked and returns 0, or,
// when key has used up its window, how long it must wait (and counts
// nothing). Checking and counting under one lock is what bounds a burst:
// had the count been written after the slow password check, every request
// of a parallel burst would have been checked against the same old count.
func (l *failureLimiter) reserve(key string, now time.Time) time.Duration {
	if l == nil || l.limit <= 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.slots[key]
	if s != nil && now.Sub(s.start) < l.window && s.count >= l.limit {
		return s.start.Add(l.window).Sub(now)
	}
	if s == nil || now.Sub(s.start) >= l.window {
		if s == nil && len(l.slots) >= l.maxKeys {
			l.sweep(now)
			if len(l.slots) >= l.maxKeys {
				return 0 // full of live windows: stop counting new keys rather than grow
			}
		}
		s = &failureSlot{start: now}
		l.slots[key] = s
	}
	s.count++
	return 0
}

// release gives back an attempt reserved for key that was never checked
// (another limit or the hashing bound refused it), so that it does not count
// as a failure.
func (l *failureLimiter) release(key string) {
	if l == nil || l.limit <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.slots[key]; s != nil && s.count > 0 {
		s.count--
	}
}

// reset forgets key's failures after a success, the attempt it reserved
// included.
func (l *failureLimiter) reset(key string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.slots, key)
	l.mu.Unlock()
}

func (l *failureLimiter) sweep(now time.Time) {
	for k, s := range l.slots {
		if now.Sub(s.start) >= l.window {
			delete(l.slots, k)
		}
	}
}
