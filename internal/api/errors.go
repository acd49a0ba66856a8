package api

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is an API error: an HTTP status, a stable numeric code from the
// catalog below, and a message that says what to do next. It is the JSON
// body of every failed request: {"error":{"code":40001,"message":"…"}}.
type Error struct {
	Status  int    `json:"-"`
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s", e.Code, e.Message) }

// with returns a copy of e whose message ends with detail.
func (e *Error) with(format string, args ...any) *Error {
	c := *e
	c.Message = e.Message + ": " + fmt.Sprintf(format, args...)
	return &c
}

// The error catalog. Codes are stable: clients may match on them.
var (
	errBadJSON          = &Error{http.StatusBadRequest, 40001, "request body is not the JSON this endpoint takes"}
	errBadSubscription  = &Error{http.StatusBadRequest, 40002, "invalid push subscription"}
	errEmptyMessage     = &Error{http.StatusBadRequest, 40003, "message is empty: pass the text to send"}
	errMissingEndpoint  = &Error{http.StatusBadRequest, 40004, "endpoint is missing: pass the subscription's endpoint"}
	errUnauthorized     = &Error{http.StatusUnauthorized, 40101, "missing or wrong API token: send 'Authorization: Bearer <token>' with the token from the daemon's state directory (file api-token)"}
	errForeignOrigin    = &Error{http.StatusForbidden, 40301, "request from a foreign web origin refused"}
	errForeignHost      = &Error{http.StatusForbidden, 40302, "request for a foreign Host refused (DNS rebinding guard): use the daemon's loopback address"}
	errDeviceNotFound   = &Error{http.StatusNotFound, 40401, "no device with that endpoint is registered"}
	errTooLarge         = &Error{http.StatusRequestEntityTooLarge, 41301, "request body too large"}
	errUnsupportedMedia = &Error{http.StatusUnsupportedMediaType, 41501, "send the body as application/json"}
	errInternal         = &Error{http.StatusInternalServerError, 50001, "internal error; the daemon's log has the details"}
)

// asError maps any error to an *Error, hiding internals behind errInternal.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return errInternal
}
