package httpapi

import (
	"math"
	"sync"
	"time"
)

// companyLimiter is a token bucket per company: rate tokens a second up to
// burst. Buckets that have refilled are forgotten, so the map holds only
// companies that were busy lately.
type companyLimiter struct {
	rate  float64
	burst float64

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newCompanyLimiter(rate float64, burst int) *companyLimiter {
	return &companyLimiter{rate: rate, burst: float64(burst), buckets: map[string]*bucket{}}
}

// take spends a token of company's bucket; with none left it returns how
// long until the next one.
func (l *companyLimiter) take(company string, now time.Time) time.Duration {
	if l == nil || l.rate <= 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute {
		for k, b := range l.buckets {
			if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b, ok := l.buckets[company]
	if !ok {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[company] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
}
