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
	errUnauthorized     = &Error{http.StatusUnauthorized, 40101, "missing or wrong API token: send 'Authorization: Bearer <token>' with the token from the daemon's state directory (file api-token); a browser signs in with a link from `attn pair`"}
	errForeignOrigin    = &Error{http.StatusForbidden, 40301, "request from a foreign web origin refused"}
	errForeignHost      = &Error{http.StatusForbidden, 40302, "request for a foreign Host refused (DNS rebinding guard): use the daemon's loopback address, or add this name with --public-url"}
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

// Errors of the routing and decision endpoints.
var (
	errBadPane     = &Error{http.StatusBadRequest, 40005, "pane must be a tmux pane id like %3, or host/%3"}
	errBadMute     = &Error{http.StatusBadRequest, 40006, "a mute needs an end: \"for\" (e.g. \"1h\"), \"until\" (RFC 3339) or \"until_finished\": true"}
	errBadKinds    = &Error{http.StatusBadRequest, 40007, "kinds maps a kind (blocked, asked, finished, error) to true, false or null (back to the default)"}
	errBadDeviceID = &Error{http.StatusBadRequest, 40008, "device id must be a number, as GET /api/devices lists them"}
	errNoDevice    = &Error{http.StatusNotFound, 40402, "no device with that id: GET /api/devices lists them"}
	errNotMuted    = &Error{http.StatusNotFound, 40403, "that pane is not muted"}
	errBadPresence = &Error{http.StatusBadRequest, 40009, "presence needs device_id and visible; focused is a pane like host/%3"}
	errBadLimit    = &Error{http.StatusBadRequest, 40010, "limit must be a number from 1 to 1000"}
)

// Errors of browser sign-in.
var (
	errPairingMissing = &Error{http.StatusBadRequest, 40021, "code is missing: open the whole link `attn pair` printed"}
	errPairingUnknown = &Error{http.StatusForbidden, 40303, "this pairing link is not valid: run `attn pair` for a new one"}
	errPairingUsed    = &Error{http.StatusGone, 41001, "this pairing link was already used (a link works once): run `attn pair` for a new one"}
	errPairingExpired = &Error{http.StatusGone, 41002, "this pairing link expired (a link works for 10 minutes): run `attn pair` for a new one"}
	errBearerOnly     = &Error{http.StatusForbidden, 40304, "only the daemon's API token may do this: run `attn pair` on the machine where `attn serve` runs"}
	errBrowserOnly    = &Error{http.StatusBadRequest, 40022, "this acts on a signed-in browser's own credential; the API token has none"}
	errNoOrigin       = &Error{http.StatusForbidden, 40305, "a browser request that changes something must carry an Origin header"}
	errNotYourDevice  = &Error{http.StatusForbidden, 40306, "that device is not the one this browser registered: omit device or pass this browser's own"}
	errNoCredential   = &Error{http.StatusNotFound, 40405, "no signed-in browser with that id: GET /api/credentials lists them"}
	errBadCredential  = &Error{http.StatusBadRequest, 40023, "credential id must be a number, as GET /api/credentials lists them"}
)

// Errors of other hosts: their listing, per-host credentials, remote hook
// events and the MCP endpoint (hosttoken.go, mcp.go).
var (
	errUnknownHost     = &Error{http.StatusNotFound, 40480, "no such host: attn addresses its own host (by its hostname, or local) and the concrete aliases of your SSH config; GET /api/hosts lists them"}
	errBadHookEvent    = &Error{http.StatusBadRequest, 40080, "not a hook event: send the JSON event `attn hook` makes"}
	errHostToken       = &Error{http.StatusUnauthorized, 40180, "missing or wrong host credential: send 'Authorization: Bearer <token>' with the token `attn host token HOST` printed for this host"}
	errWrongHost       = &Error{http.StatusForbidden, 40380, "this credential speaks for another host"}
	errNoHostsAPI      = &Error{http.StatusNotFound, 40481, "this daemon serves no other hosts"}
	errNoTokenForHost  = &Error{http.StatusNotFound, 40482, "that host has no credential: `attn host token HOST` issues one"}
	errHostTokenBearer = &Error{http.StatusForbidden, 40381, "only the daemon's API token may issue or revoke host credentials: run `attn host token HOST` on the machine where `attn serve` runs"}
)

// errBadName refuses a device name that cannot be shown safely.
var errBadName = &Error{http.StatusBadRequest, 40012, "invalid device name"}
