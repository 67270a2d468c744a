package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/showroom/showroom/internal/showroom"
)

// statusOf maps every error code to its HTTP status. docs/api.md lists the
// same table; TestErrorTableDocumented keeps the two in step.
var statusOf = map[string]int{
	showroom.EInvalidBody:         http.StatusBadRequest,
	showroom.EInvalidParameter:    http.StatusBadRequest,
	showroom.EUnknownParameter:    http.StatusBadRequest,
	showroom.EUnauthorized:        http.StatusUnauthorized,
	showroom.EInvalidToken:        http.StatusUnauthorized,
	showroom.ETokenExpired:        http.StatusUnauthorized,
	showroom.EInsufficientCredits: http.StatusPaymentRequired,
	showroom.EInvalidCredentials:  http.StatusForbidden,
	showroom.EForbidden:           http.StatusForbidden,
	showroom.EReservedName:        http.StatusForbidden,
	showroom.ENotFound:            http.StatusNotFound,
	showroom.EContentNotFound:     http.StatusNotFound,
	showroom.EConfigNotFound:      http.StatusNotFound,
	showroom.EJobNotFound:         http.StatusNotFound,
	showroom.EWebhookNotFound:     http.StatusNotFound,
	showroom.EMethodNotAllowed:    http.StatusMethodNotAllowed,
	showroom.ENotAcceptable:       http.StatusNotAcceptable,
	showroom.ERequestTimeout:      http.StatusRequestTimeout,
	showroom.EConflict:            http.StatusConflict,
	showroom.EContentInUse:        http.StatusConflict,
	showroom.ECancelled:           http.StatusConflict,
	showroom.EWebhookMissing:      http.StatusConflict,
	showroom.EPayloadTooLarge:     http.StatusRequestEntityTooLarge,
	showroom.EUnsupportedMedia:    http.StatusUnsupportedMediaType,
	showroom.EInvalidName:         http.StatusUnprocessableEntity,
	showroom.EInvalidConfig:       http.StatusUnprocessableEntity,
	showroom.EInvalidImage:        http.StatusUnprocessableEntity,
	showroom.EInvalidCallbackURL:  http.StatusUnprocessableEntity,
	showroom.ENoCarDetected:       http.StatusUnprocessableEntity,
	showroom.ECarCropped:          http.StatusUnprocessableEntity,
	showroom.ETooManyRequests:     http.StatusTooManyRequests,
	showroom.EInternal:            http.StatusInternalServerError,
	showroom.EServiceOverloaded:   http.StatusServiceUnavailable,
	showroom.EUnavailable:         http.StatusServiceUnavailable,
}

// errorBody is the contract's error body, with optional details.
type errorBody struct {
	Status    int               `json:"status"`
	Reason    string            `json:"reason"`
	ErrorCode string            `json:"errorCode"`
	Message   string            `json:"message"`
	Timestamp int64             `json:"timestamp"`
	Details   []showroom.Detail `json:"details,omitempty"`
}

// WriteError writes err as the contract's error body, for handlers mounted
// beside the API's own (the console's /auth proxy), so that every error a
// client sees has the one shape.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	writeError(w, r, log, err)
}

// writeError writes err as the contract's error body. Internal causes are
// logged here, once, and never shown to the client.
func writeError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var e *showroom.Error
	if !errors.As(err, &e) {
		e = showroom.Internal(err)
	}
	status, ok := statusOf[e.Code]
	if !ok {
		status = http.StatusInternalServerError
	}
	requestLogFrom(r.Context()).errorCode = e.Code
	switch {
	case e.Code == showroom.EServiceOverloaded:
		// Pushback under load is the service working as meant: at ERROR
		// it would bury the real errors.
		log.InfoContext(r.Context(), "request pushed back", "code", e.Code, "message", e.Message)
	case e.Code == showroom.EUnavailable:
		log.WarnContext(r.Context(), "request failed: a dependency is unavailable", "code", e.Code, "err", err)
	case status >= 500:
		log.ErrorContext(r.Context(), "request failed", "code", e.Code, "err", err)
	case e.Cause != nil:
		log.DebugContext(r.Context(), "request refused", "code", e.Code, "err", e.Cause)
	}
	h := w.Header()
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int((e.RetryAfter+time.Second-1)/time.Second)))
	}
	if status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", wwwAuthenticate(e.Code))
	}
	writeJSON(w, status, errorBody{
		Status:    status,
		Reason:    http.StatusText(status),
		ErrorCode: e.Code,
		Message:   e.Message,
		Timestamp: time.Now().UnixMilli(),
		Details:   e.Details,
	})
}

func wwwAuthenticate(code string) string {
	switch code {
	case showroom.EInvalidToken:
		return `Bearer realm="showroom", error="invalid_token", error_description="the token is invalid"`
	case showroom.ETokenExpired:
		return `Bearer realm="showroom", error="invalid_token", error_description="the token has expired"`
	}
	return `Bearer realm="showroom"`
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}
