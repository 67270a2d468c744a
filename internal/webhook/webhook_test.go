package webhook_test

import (
	"testing"
	"time"

	"github.com/showroom/showroom/internal/webhook"
)

// TestDefaultSchedule: the defaults try a delivery 8 times over about an
// hour, each wait twice the one before, as the docs promise receivers.
// (internal/river's tests deliver through the queue to real receivers.)
func TestDefaultSchedule(t *testing.T) {
	c := webhook.DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for n := 1; n < c.MaxAttempts; n++ {
		d := c.RetryDelay(n)
		if n > 1 && d != 2*c.RetryDelay(n-1) {
			t.Errorf("wait after attempt %d: %v, want twice %v", n, d, c.RetryDelay(n-1))
		}
		total += d
	}
	if c.MaxAttempts != 8 || c.RetryDelay(1) != 30*time.Second || total < 55*time.Minute || total > 65*time.Minute {
		t.Errorf("%d attempts, first wait %v, over %v; want 8 from 30s over about an hour", c.MaxAttempts, c.RetryDelay(1), total)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*webhook.Config)
	}{
		{"no workers", func(c *webhook.Config) { c.Workers = 0 }},
		{"no attempts", func(c *webhook.Config) { c.MaxAttempts = 0 }},
		{"no timeout", func(c *webhook.Config) { c.Timeout = 0 }},
		{"no backoff", func(c *webhook.Config) { c.Backoff = 0 }},
	} {
		c := webhook.DefaultConfig()
		tc.change(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", tc.name, c)
		}
	}
}
