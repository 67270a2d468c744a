package showroom

import (
	"errors"
	"fmt"
	"time"
)

// Error codes. Each code maps to one HTTP status in the httpapi package's
// table; docs/api.md lists them all. Codes are part of the public interface:
// never rename one.
const (
	EInvalidBody         = "INVALID_BODY"            // 400
	EInvalidParameter    = "INVALID_PARAMETER"       // 400: a query parameter
	EUnknownParameter    = "UNKNOWN_PARAMETER"       // 400: a query parameter the endpoint does not take
	EUnauthorized        = "UNAUTHORIZED"            // 401: no credentials
	EInvalidToken        = "INVALID_TOKEN"           // 401
	ETokenExpired        = "TOKEN_EXPIRED"           // 401
	EInsufficientCredits = "INSUFFICIENT_CREDITS"    // 402
	EInvalidCredentials  = "INVALID_CREDENTIALS"     // 403
	EForbidden           = "FORBIDDEN"               // 403
	EReservedName        = "RESERVED_NAME"           // 403
	ENotFound            = "NOT_FOUND"               // 404
	EContentNotFound     = "CONTENT_NOT_FOUND"       // 404
	EConfigNotFound      = "CONFIGURATION_NOT_FOUND" // 404
	EJobNotFound         = "JOB_NOT_FOUND"           // 404
	EWebhookNotFound     = "WEBHOOK_NOT_FOUND"       // 404
	EMethodNotAllowed    = "METHOD_NOT_ALLOWED"      // 405
	ENotAcceptable       = "NOT_ACCEPTABLE"          // 406
	ERequestTimeout      = "REQUEST_TIMEOUT"         // 408: the body arrived too slowly
	EConflict            = "CONFLICT"                // 409
	EContentInUse        = "CONTENT_IN_USE"          // 409
	ECancelled           = "CANCELLED"               // 409: a job whose client went away
	EWebhookMissing      = "WEBHOOK_NOT_CONFIGURED"  // 409: a callback URL without a signing secret
	EPayloadTooLarge     = "PAYLOAD_TOO_LARGE"       // 413
	EUnsupportedMedia    = "UNSUPPORTED_MEDIA_TYPE"  // 415
	EInvalidName         = "INVALID_NAME"            // 422
	EInvalidConfig       = "INVALID_CONFIGURATION"   // 422
	EInvalidImage        = "INVALID_IMAGE"           // 422
	EInvalidCallbackURL  = "INVALID_CALLBACK_URL"    // 422
	ENoCarDetected       = "NO_CAR_DETECTED"         // 422
	ECarCropped          = "CAR_CROPPED"             // 422
	ETooManyRequests     = "TOO_MANY_REQUESTS"       // 429
	EInternal            = "INTERNAL"                // 500
	EServiceOverloaded   = "SERVICE_OVERLOADED"      // 503
	EUnavailable         = "SERVICE_UNAVAILABLE"     // 503
)

// Error is the one error type of Showroom. Code selects the HTTP status and
// is shown to the client with Message; Cause is logged, never shown.
type Error struct {
	Code    string
	Message string
	// Details points at the offending parts of a request body, for
	// validation errors.
	Details []Detail
	// RetryAfter, when set, is sent as the Retry-After header.
	RetryAfter time.Duration
	Cause      error
}

// Detail names one problem in a request body: Pointer is a JSON pointer
// (RFC 6901) into the body, Problem says what is wrong there.
type Detail struct {
	Pointer string `json:"pointer"`
	Problem string `json:"problem"`
}

// Errorf returns an *Error with the given code and a formatted public message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the cause, so errors.Is and errors.As see through an Error.
func (e *Error) Unwrap() error { return e.Cause }

// ErrorCode returns the code of err, EInternal for an error that is not an
// *Error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// Internal wraps an unexpected error: the client sees a generic message and
// the cause is logged.
func Internal(cause error) *Error {
	var e *Error
	if errors.As(cause, &e) && e.Code == EUnavailable {
		return e // a dependency briefly away is not a fault of ours
	}
	return &Error{Code: EInternal, Message: "internal error", Cause: cause}
}
