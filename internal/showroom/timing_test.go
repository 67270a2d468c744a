package showroom_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// TestTimingJSON: timings read the same in the job record and the stores,
// milliseconds with a fraction, and come back as they were written.
func TestTimingJSON(t *testing.T) {
	ts := []showroom.Timing{{Name: "decode", Duration: 1500 * time.Microsecond}, {Name: "DetectCarMask", Duration: 2 * time.Second}}
	b, err := json.Marshal(ts)
	if err != nil {
		t.Fatal(err)
	}
	const want = `[{"name":"decode","ms":1.5},{"name":"DetectCarMask","ms":2000}]`
	if string(b) != want || showroom.TimingsJSON(ts) != want {
		t.Errorf("JSON %s, stored %s; want %s", b, showroom.TimingsJSON(ts), want)
	}
	back := showroom.ParseTimings(want)
	if len(back) != 2 || back[0] != ts[0] || back[1] != ts[1] {
		t.Errorf("read back %+v, want %+v", back, ts)
	}
	if got := showroom.TimingsJSON(nil); got != "[]" {
		t.Errorf("no timings stored as %s, want []", got)
	}
	if got := showroom.ParseTimings("[]"); got == nil || len(got) != 0 {
		t.Errorf("no timings read as %#v, want empty, not nil", got)
	}
}
