package httpapi_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/showroom/showroom/internal/httpapi"
)

type pingOK struct{}

func (pingOK) Ping(context.Context) error { return nil }

// TestReadyzWaitsForChecks: /readyz answers 503, naming the check, until
// an added check passes, then 200.
func TestReadyzWaitsForChecks(t *testing.T) {
	api := httpapi.NewAPIServer(httpapi.APIConfig{}, nil, pingOK{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var warm atomic.Bool
	api.AddReadyCheck("engine", func(context.Context) error {
		if !warm.Load() {
			return errors.New("warming up")
		}
		return nil
	})
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		api.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, `"engine":"warming up"`) {
		t.Fatalf("before warm-up: %d %s, want 503 naming the engine", code, body)
	}
	warm.Store(true)
	if code, body := get(); code != http.StatusOK {
		t.Fatalf("after warm-up: %d %s, want 200", code, body)
	}
}
