package webpush

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the text a Result.Detail quotes.
const (
	maxSnippet  = 200 // octets of quoted text kept
	minTokenRun = 24  // a token-like run this long is replaced
)

// snippet turns the start of a response body (or an error's text) into a
// short printable string fit for Result.Detail and logs: the endpoint path
// and the JWT are replaced where they appear, white space and control
// characters collapse to single spaces, and every run of at least 24
// token characters (base64, base64url, JWT, percent-encoding) is replaced
// by "[redacted]" — a push service echoing a token, a key or a capability
// URL in its error page must not put it in our logs. The result is at most
// about 200 octets.
func snippet(b []byte, path, jwt string) string {
	s := string(b)
	if len(path) > 1 {
		s = strings.ReplaceAll(s, path, "[endpoint]")
		if i := strings.LastIndexByte(path, '/'); i >= 0 && len(path)-i > 16 {
			s = strings.ReplaceAll(s, path[i+1:], "[endpoint]")
		}
	}
	if jwt != "" {
		s = strings.ReplaceAll(s, jwt, "[redacted]")
	}

	var out strings.Builder
	out.Grow(min(len(s), maxSnippet+8))
	space, cut := false, false
	for i := 0; i < len(s); {
		if out.Len() >= maxSnippet {
			cut = true
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsSpace(r) || unicode.IsControl(r):
			space = out.Len() > 0
			i += size
			continue
		case r == utf8.RuneError || !unicode.IsPrint(r):
			r = '?'
		}
		if space {
			out.WriteByte(' ')
			space = false
		}
		if isTokenByte(s[i]) {
			j := i
			for j < len(s) && isTokenByte(s[j]) {
				j++
			}
			if j-i >= minTokenRun {
				out.WriteString("[redacted]")
			} else {
				out.WriteString(s[i:j])
			}
			i = j
			continue
		}
		out.WriteRune(r)
		i += size
	}
	t := out.String()
	if len(t) > maxSnippet {
		t, cut = t[:maxSnippet], true
		for !utf8.ValidString(t) { // cut inside a rune
			t = t[:len(t)-1]
		}
	}
	if cut {
		t += "…"
	}
	return t
}

// isTokenByte reports whether c can be part of a token: base64 and
// base64url letters, ".", "~" and "%".
func isTokenByte(c byte) bool {
	return isBase64URL(c) || c == '+' || c == '.' || c == '~' || c == '%'
}

// jwtOf returns the JWT inside an Authorization value
// "vapid t=<jwt>, k=<key>".
func jwtOf(v string) string {
	v = strings.TrimPrefix(v, "vapid t=")
	if i := strings.Index(v, ", k="); i >= 0 {
		return v[:i]
	}
	return v
}

// String shows the endpoint's origin and the key sizes, never the
// endpoint's path or the auth secret, so that a logged Subscription leaks
// nothing.
func (s Subscription) String() string {
	o := "[invalid endpoint]"
	if u, err := url.Parse(s.Endpoint); err == nil && u.Host != "" {
		o = origin(u)
	}
	return "webpush.Subscription{endpoint: " + o + "/…, p256dh: " + strconv.Itoa(len(s.P256DH)) +
		" bytes, auth: [redacted]}"
}

// GoString is [Subscription.String], for the %#v verb.
func (s Subscription) GoString() string { return s.String() }

// String shows the public key only.
func (k VAPIDKey) String() string { return "webpush.VAPIDKey{public: " + k.PublicKeyBase64() + "}" }

// GoString is [VAPIDKey.String], for the %#v verb.
func (k VAPIDKey) GoString() string { return k.String() }

// String shows the settings, not the cached JWTs.
func (s *Sender) String() string {
	key := "nil"
	if s.Key != nil {
		key = s.Key.PublicKeyBase64()
	}
	return "webpush.Sender{contact: " + strconv.Quote(s.Contact) + ", key: " + key +
		", record size: " + strconv.Itoa(s.RecordSize) + "}"
}

// GoString is [Sender.String], for the %#v verb.
func (s *Sender) GoString() string { return s.String() }
