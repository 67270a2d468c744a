package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/showroom/showroom/internal/showroom"
)

// TestWarningsCounted: /metrics counts results' warnings by code, every
// code shown from the start.
func TestWarningsCounted(t *testing.T) {
	m := New()
	m.Warning(showroom.WarnCarCutByFrame)
	m.Warning(showroom.WarnCarCutByFrame)
	m.Warning(showroom.WarnTilted)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`showroom_job_warnings_total{code="CAR_CUT_BY_FRAME"} 2`,
		`showroom_job_warnings_total{code="TILTED"} 1`,
		`showroom_job_warnings_total{code="LOW_CONFIDENCE"} 0`,
		`showroom_job_warnings_total{code="CAR_SMALL_IN_PHOTO"} 0`,
		`showroom_job_warnings_total{code="WINDOWS_NOT_FOUND"} 0`,
		`showroom_job_warnings_total{code="BACKGROUND_ENLARGED"} 0`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
