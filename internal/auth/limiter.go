package auth

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// Failed logins count in the store, shared by every auth process on the
// database and kept across restarts; only failures are counted, so correct
// logins never use up a window, however many arrive at once.
//
// A parallel burst is held to the limit by checking no more passwords at
// once for a key than the failures it has left: an attempt beyond them
// waits (it is not refused) until one running ends and its failure, if it
// was one, is counted. That is exact within a process; replicas do not see
// each other's running checks, so a burst spread over n of them may get up
// to n times the failures left checked.

// failureKey is a key failed logins count against, with its limit: the
// username's or the client's.
type failureKey struct {
	key string
	max int // 0: not limited
}

// failureKeys are the keys a login's failures count against.
func (s *Service) failureKeys(username, client string) []failureKey {
	return []failureKey{
		{key: "u:" + strings.ToLower(username), max: s.cfg.MaxFailures},
		{key: "c:" + client, max: s.cfg.MaxClientFailures},
	}
}

// checking counts, per key, the password checks of this process that have
// started and whose failure, if they fail, is not yet counted in the store.
// It holds only keys with a check running, so its size is bounded by the
// logins in progress.
type checking struct {
	mu      sync.Mutex
	running map[string]int
	// ended is closed, and replaced, whenever a check ends.
	ended chan struct{}
}

func newChecking() *checking {
	return &checking{running: map[string]int{}, ended: make(chan struct{})}
}

// since returns what tryStart must be given: a channel that a check ending
// from now on closes.
func (c *checking) since() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// tryStart starts a check for keys if each has failures left beyond the
// checks running for it (failed[i] is what the store counted for keys[i],
// read after since returned read). Otherwise it returns a channel closed
// when a running check ends; closed already if one ended after read, whose
// failure failed may lack.
func (c *checking) tryStart(keys []failureKey, failed []int, read <-chan struct{}) (started bool, wait <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if read != c.ended {
		return false, read
	}
	for i, k := range keys {
		if k.max > 0 && failed[i]+c.running[k.key] >= k.max {
			return false, c.ended
		}
	}
	for _, k := range keys {
		if k.max > 0 {
			c.running[k.key]++
		}
	}
	return true, nil
}

// end ends a check tryStart started, and wakes those waiting for one to.
func (c *checking) end(keys []failureKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		if k.max <= 0 {
			continue
		}
		if c.running[k.key]--; c.running[k.key] <= 0 {
			delete(c.running, k.key)
		}
	}
	close(c.ended)
	c.ended = make(chan struct{})
}

// startCheck returns once a password check for keys may run, and the
// caller must then call s.checking.end(keys) once its failure, if any, is
// counted. It refuses with 429 a key that has used up its window, telling
// how long until the window ends, and waits while the checks running could
// use it up. It also says whether the username (keys[0]) has failures for a
// success to forget.
func (s *Service) startCheck(ctx context.Context, keys []failureKey) (userFailed bool, err error) {
	failed := make([]int, len(keys))
	for {
		read := s.checking.since()
		now := s.now()
		for i, k := range keys {
			if k.max <= 0 {
				continue
			}
			n, start, err := s.store.LoginFailures(ctx, k.key, now, s.cfg.FailureWindow)
			if err != nil {
				return false, showroom.Internal(err)
			}
			if n >= k.max {
				return false, errTooMany(start.Add(s.cfg.FailureWindow).Sub(now))
			}
			failed[i] = n
		}
		started, wait := s.checking.tryStart(keys, failed, read)
		if started {
			return failed[0] > 0, nil
		}
		select {
		case <-wait:
		case <-ctx.Done():
			return false, errOverloaded() // the client has gone; nobody reads the answer
		}
	}
}

// sweepEvery is how often a process deletes windows that have ended, on
// the way of a failure: rows are written only by failures, so no failures,
// no rows to delete.
const sweepEvery = time.Minute

// countFailure counts a failed login against each of keys, and now and then
// deletes the windows that have ended, so that the table holds only the
// failures of the last window: at most a row per key that failed in it,
// each bought with a password check.
func (s *Service) countFailure(ctx context.Context, keys []failureKey, now time.Time) error {
	for _, k := range keys {
		if k.max <= 0 {
			continue
		}
		if err := s.store.AddLoginFailure(ctx, k.key, now, s.cfg.FailureWindow); err != nil {
			return showroom.Internal(err)
		}
	}
	if last := s.swept.Load(); now.UnixNano()-last >= int64(sweepEvery) && s.swept.CompareAndSwap(last, now.UnixNano()) {
		// A failed sweep is tried again a minute later; the login's
		// answer does not depend on it.
		_ = s.store.DeleteLoginFailuresBefore(ctx, now.Add(-s.cfg.FailureWindow))
	}
	return nil
}
