package webpush

import (
	"crypto/ecdh"
	"encoding/base64"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// ErrInvalidSubscription is wrapped by every error that says a subscription
// (endpoint, p256dh or auth) cannot be used. Such a subscription will never
// work as it is: the browser has to subscribe again.
var ErrInvalidSubscription = errors.New("webpush: invalid subscription")

// Sizes of the subscription keys (RFC 8291 §3.1, §3.2).
const (
	// P256DHLen is the length in octets of a user agent's public key: an
	// uncompressed P-256 point, 0x04 ‖ X(32) ‖ Y(32) (RFC 8291 §3.1).
	P256DHLen = 65
	// AuthLen is the length in octets of the authentication secret
	// (RFC 8291 §3.2).
	AuthLen = 16
)

// Subscription is where and for whom a push message is encrypted: what a
// browser's PushSubscription.toJSON() carries (RFC 8030 §4, RFC 8291 §2.1).
// Build it with [ParseSubscription], which checks every field;
// [Sender.Send] and [Encrypt] check the keys again and refuse a bad one.
// Printed with fmt, it shows the endpoint's origin only and no auth secret.
type Subscription struct {
	// Endpoint is the push resource URL (RFC 8030 §4): an absolute https
	// URL whose path is a capability token. Treat it as a secret.
	Endpoint string
	// P256DH is the user agent's ECDH public key, a 65-octet uncompressed
	// P-256 point (RFC 8291 §3.1).
	P256DH []byte
	// Auth is the 16-octet authentication secret (RFC 8291 §3.2). A secret.
	Auth []byte
}

// ParseSubscription checks and decodes the three fields of a browser's
// PushSubscription: the endpoint URL and the base64url "p256dh" and "auth"
// keys (RFC 8291 §2.1). The keys may be base64url or standard base64, with
// or without "=" padding, as browsers and stores vary.
//
// The endpoint must be an absolute https URL (RFC 8030 §8). Plain http is
// accepted only when allowInsecureLoopback is true and the host is a
// loopback one (127.0.0.0/8, ::1 or "localhost"): a test push service.
// p256dh must decode to a point on P-256 (65 octets, uncompressed) and auth
// to 16 octets.
//
// Every error wraps [ErrInvalidSubscription] and says which field is wrong
// and what was expected; it names the endpoint by its origin only and never
// repeats the auth secret.
func ParseSubscription(endpoint, p256dhB64, authB64 string, allowInsecureLoopback bool) (Subscription, error) {
	u, err := parseEndpoint(endpoint)
	if err != nil {
		return Subscription{}, err
	}
	if err := checkEndpointScheme(u, allowInsecureLoopback); err != nil {
		return Subscription{}, err
	}
	p256dh, err := decodeKey(p256dhB64)
	if err != nil {
		return Subscription{}, fmt.Errorf("%w: p256dh: not base64url (%v): pass the subscription's keys.p256dh as the browser gave it", ErrInvalidSubscription, err)
	}
	if _, err := parseP256DH(p256dh); err != nil {
		return Subscription{}, err
	}
	auth, err := decodeKey(authB64)
	if err != nil {
		return Subscription{}, fmt.Errorf("%w: auth: not base64url (%v): pass the subscription's keys.auth as the browser gave it", ErrInvalidSubscription, err)
	}
	if err := checkAuth(auth); err != nil {
		return Subscription{}, err
	}
	return Subscription{Endpoint: endpoint, P256DH: p256dh, Auth: auth}, nil
}

// decodeKey decodes base64url or standard base64, padded or not. The two
// alphabets differ only in "-_" against "+/"; a string that mixes them is
// refused by the decoder.
func decodeKey(s string) ([]byte, error) {
	s = strings.TrimRight(strings.TrimSpace(s), "=")
	if s == "" {
		return nil, errors.New("empty")
	}
	if strings.ContainsAny(s, "+/") {
		return base64.RawStdEncoding.DecodeString(s)
	}
	return base64.RawURLEncoding.DecodeString(s)
}

// parseP256DH refuses anything but an uncompressed point on P-256
// (RFC 8291 §3.1).
func parseP256DH(p []byte) (*ecdh.PublicKey, error) {
	if len(p) != P256DHLen {
		hint := ""
		if len(p) == 33 {
			hint = " (a compressed point; browsers send the uncompressed form)"
		}
		return nil, fmt.Errorf("%w: p256dh: want a %d-byte uncompressed P-256 point (base64url), got %d bytes%s",
			ErrInvalidSubscription, P256DHLen, len(p), hint)
	}
	if p[0] != 0x04 {
		return nil, fmt.Errorf("%w: p256dh: want an uncompressed P-256 point starting with 0x04, got first byte 0x%02x", ErrInvalidSubscription, p[0])
	}
	k, err := ecdh.P256().NewPublicKey(p)
	if err != nil {
		return nil, fmt.Errorf("%w: p256dh: not a point on P-256: the browser has to subscribe again", ErrInvalidSubscription)
	}
	return k, nil
}

// checkAuth refuses an authentication secret of the wrong length
// (RFC 8291 §3.2). The value itself is never put in the error.
func checkAuth(a []byte) error {
	if len(a) != AuthLen {
		return fmt.Errorf("%w: auth: want a %d-byte secret (base64url), got %d bytes", ErrInvalidSubscription, AuthLen, len(a))
	}
	return nil
}

// parseEndpoint parses an endpoint without letting its text (a capability
// URL) into the error.
func parseEndpoint(endpoint string) (*url.URL, error) {
	if endpoint == "" {
		return nil, fmt.Errorf("%w: endpoint is empty: pass the subscription's endpoint URL", ErrInvalidSubscription)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, errEndpointNotURL
	}
	return u, checkEndpointURL(u)
}

// errEndpointNotURL says an endpoint did not parse, without its text.
var errEndpointNotURL = fmt.Errorf("%w: endpoint is not an absolute URL with a host: pass the subscription's endpoint as the browser gave it", ErrInvalidSubscription)

// checkEndpointURL refuses a relative or host-less URL, and one carrying
// user credentials.
func checkEndpointURL(u *url.URL) error {
	if !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return errEndpointNotURL
	}
	if u.User != nil {
		return fmt.Errorf("%w: endpoint %s carries user credentials: push services never use them", ErrInvalidSubscription, origin(u))
	}
	return nil
}

// checkEndpointScheme allows https, and http on a loopback host only when
// allowed (RFC 8030 §8 requires https).
func checkEndpointScheme(u *url.URL, allowInsecureLoopback bool) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if allowInsecureLoopback && isLoopbackHost(u.Hostname()) {
			return nil
		}
		if isLoopbackHost(u.Hostname()) {
			return fmt.Errorf("%w: endpoint %s is plain http: allowed only for a loopback test push service when insecure loopback is allowed", ErrInvalidSubscription, origin(u))
		}
		return fmt.Errorf("%w: endpoint %s is plain http: push services use https (RFC 8030 §8); plain http is allowed only for a loopback host", ErrInvalidSubscription, origin(u))
	default:
		return fmt.Errorf("%w: endpoint %s: want an https URL (RFC 8030 §8)", ErrInvalidSubscription, origin(u))
	}
}

// isLoopbackHost reports whether host (no port, no brackets) is "localhost"
// or a loopback address: 127.0.0.0/8 or ::1.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Unmap().IsLoopback()
}

// origin is scheme://host[:port] of u (RFC 6454 §4): what errors name
// instead of the full endpoint, and the VAPID audience (RFC 8292 §2). The
// host is lowercased and a default port (443 for https, 80 for http) is
// dropped.
func origin(u *url.URL) string {
	host := strings.ToLower(u.Host)
	switch {
	case u.Scheme == "https" && strings.HasSuffix(host, ":443"):
		host = strings.TrimSuffix(host, ":443")
	case u.Scheme == "http" && strings.HasSuffix(host, ":80"):
		host = strings.TrimSuffix(host, ":80")
	}
	return u.Scheme + "://" + host
}
