package auth

import (
	"sync"
	"time"
)

// failureLimiter counts failed logins per key (a username, a client address)
// in a fixed window and says how long a key must wait once it has failed
// too often. It forgets windows that have ended and holds at most maxKeys
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

// wait returns how long key must wait before trying again, 0 if it may try
// now.
func (l *failureLimiter) wait(key string, now time.Time) time.Duration {
	if l == nil || l.limit <= 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.slots[key]
	if s == nil || now.Sub(s.start) >= l.window {
		return 0
	}
	if s.count >= l.limit {
		return s.start.Add(l.window).Sub(now)
	}
	return 0
}

// fail records a failure for key.
func (l *failureLimiter) fail(key string, now time.Time) {
	if l == nil || l.limit <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.slots[key]
	if s == nil || now.Sub(s.start) >= l.window {
		if s == nil && len(l.slots) >= l.maxKeys {
			l.sweep(now)
			if len(l.slots) >= l.maxKeys {
				return // full of live windows: stop counting new keys rather than grow
			}
		}
		s = &failureSlot{start: now}
		l.slots[key] = s
	}
	s.count++
}

// reset forgets key's failures after a success.
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
