package webpush

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/mail"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ErrInvalidContact is wrapped by every error [ValidateContact] returns.
var ErrInvalidContact = errors.New("webpush: invalid VAPID contact")

// JWT lifetimes (RFC 8292 §2).
const (
	// JWTLifetime is how far ahead of signing a VAPID JWT's "exp" is set.
	// RFC 8292 §2 allows at most 24 hours; 12 leaves room for clock skew.
	JWTLifetime = 12 * time.Hour
	// JWTRefreshMargin is how long before its "exp" a cached JWT stops
	// being used and a new one is signed.
	JWTRefreshMargin = time.Hour
)

// VAPIDPrivateLen is the length in octets of a stored VAPID private key: the
// raw P-256 scalar, big-endian (what [VAPIDKey.MarshalPrivate] writes and
// what web-push libraries call the "private key").
const VAPIDPrivateLen = 32

// jwtHeader is base64url(`{"typ":"JWT","alg":"ES256"}`) (RFC 8292 §2,
// RFC 7515 §4.1).
var jwtHeader = base64.RawURLEncoding.EncodeToString([]byte(`{"typ":"JWT","alg":"ES256"}`))

// VAPIDKey is an application server's P-256 signing key (RFC 8292 §2). Every
// subscription is bound to the public key it was made with (RFC 8292 §4),
// so generate it once and keep it. A VAPIDKey is immutable and safe for
// concurrent use.
type VAPIDKey struct {
	priv   *ecdsa.PrivateKey
	pub    []byte // 65-octet uncompressed point
	kParam string // ", k=" + base64url(pub): the tail of the Authorization value
}

// GenerateVAPIDKey returns a new random P-256 key. Store it with
// [VAPIDKey.MarshalPrivate]; subscriptions made with its public key work
// only with it.
func GenerateVAPIDKey() (*VAPIDKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("webpush: generate VAPID key: %w", err)
	}
	return NewVAPIDKey(priv)
}

// NewVAPIDKey wraps an existing private key, which must be on P-256
// (RFC 8292 §2: ES256).
func NewVAPIDKey(priv *ecdsa.PrivateKey) (*VAPIDKey, error) {
	if priv == nil || priv.Curve != elliptic.P256() {
		return nil, errors.New("webpush: VAPID key: want an ECDSA P-256 private key (RFC 8292 §2, ES256)")
	}
	pub, err := priv.PublicKey.Bytes()
	if err != nil {
		return nil, fmt.Errorf("webpush: VAPID key: %w", err)
	}
	return &VAPIDKey{
		priv:   priv,
		pub:    pub,
		kParam: ", k=" + base64.RawURLEncoding.EncodeToString(pub),
	}, nil
}

// ParseVAPIDPrivate reads a key written by [VAPIDKey.MarshalPrivate]: the
// 32-octet raw P-256 scalar, big-endian. The error says the length found; it
// never repeats the bytes.
func ParseVAPIDPrivate(raw []byte) (*VAPIDKey, error) {
	if len(raw) != VAPIDPrivateLen {
		return nil, fmt.Errorf("webpush: VAPID private key: want a %d-byte raw P-256 scalar, got %d bytes", VAPIDPrivateLen, len(raw))
	}
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), raw)
	if err != nil {
		return nil, errors.New("webpush: VAPID private key: not a valid P-256 scalar (zero or not below the group order)")
	}
	return NewVAPIDKey(priv)
}

// MarshalPrivate returns the private key as its 32-octet raw P-256 scalar,
// big-endian, for the store. It is a secret: keep it out of logs.
func (k *VAPIDKey) MarshalPrivate() []byte {
	b, err := k.priv.Bytes()
	if err != nil { // only for keys not on a NIST curve, which NewVAPIDKey refuses
		panic("webpush: VAPID key: " + err.Error())
	}
	return b
}

// PublicKey returns a copy of the 65-octet uncompressed public point
// (RFC 8292 §3.2).
func (k *VAPIDKey) PublicKey() []byte { return append([]byte(nil), k.pub...) }

// PublicKeyBase64 returns the public key as unpadded base64url of the
// 65-octet uncompressed point: the "k" parameter (RFC 8292 §3.2) and what a
// browser takes as applicationServerKey (RFC 8292 §4).
func (k *VAPIDKey) PublicKeyBase64() string { return k.kParam[len(", k="):] }

// authorization signs a VAPID JWT (RFC 8292 §2) for audience (an origin),
// subject (a checked contact) and exp (Unix seconds) and returns the whole
// Authorization value: "vapid t=<jwt>, k=<public key>" (RFC 8292 §3).
func (k *VAPIDKey) authorization(audience, subject string, exp int64) (string, error) {
	aud, err := json.Marshal(audience)
	if err != nil {
		return "", err
	}
	sub, err := json.Marshal(subject)
	if err != nil {
		return "", err
	}
	claims := make([]byte, 0, 32+len(aud)+len(sub))
	claims = append(claims, `{"aud":`...)
	claims = append(claims, aud...)
	claims = append(claims, `,"exp":`...)
	claims = strconv.AppendInt(claims, exp, 10)
	claims = append(claims, `,"sub":`...)
	claims = append(claims, sub...)
	claims = append(claims, '}')

	b64 := base64.RawURLEncoding
	// "vapid t=" header "." claims "." signature ", k=" key
	out := make([]byte, 0, 8+len(jwtHeader)+1+b64.EncodedLen(len(claims))+1+b64.EncodedLen(64)+len(k.kParam))
	out = append(out, "vapid t="...)
	start := len(out)
	out = append(out, jwtHeader...)
	out = append(out, '.')
	out = b64.AppendEncode(out, claims)
	digest := sha256.Sum256(out[start:])
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, digest[:])
	if err != nil {
		return "", fmt.Errorf("webpush: sign VAPID JWT: %w", err)
	}
	// JWS ES256 signature: R ‖ S, 32 octets each (RFC 7518 §3.4).
	var sig [64]byte
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	out = append(out, '.')
	out = b64.AppendEncode(out, sig[:])
	out = append(out, k.kParam...)
	return string(out), nil
}

// ValidateContact checks a VAPID "sub" claim (RFC 8292 §2.1): "mailto:"
// followed by an email address, or an "https:" URL. It refuses what push
// services refuse — Apple's answers 403 BadJwtToken to a subject with a
// doubled "mailto:mailto:", or whose host is localhost, 127.0.0.0/8, ::1,
// or ends in ".local" or ".localhost" — so the mistake shows at
// configuration time rather than as failed pushes. Errors wrap
// [ErrInvalidContact] and say what to write instead.
func ValidateContact(sub string) error {
	const apple = "Apple's push service answers 403 BadJwtToken to such a subject"
	if sub == "" {
		return fmt.Errorf(`%w: empty: set a "mailto:you@example.com" address or an "https:" URL (RFC 8292 §2.1)`, ErrInvalidContact)
	}
	if strings.TrimSpace(sub) != sub {
		return fmt.Errorf(`%w: %q has surrounding white space: remove it`, ErrInvalidContact, sub)
	}
	scheme, rest, ok := strings.Cut(sub, ":")
	if !ok {
		return fmt.Errorf(`%w: %q has no scheme: write "mailto:%s" or an "https:" URL (RFC 8292 §2.1)`, ErrInvalidContact, sub, sub)
	}
	switch strings.ToLower(scheme) {
	case "mailto":
		if s, _, ok := strings.Cut(rest, ":"); ok && strings.EqualFold(s, "mailto") {
			return fmt.Errorf(`%w: %q repeats "mailto:": write it once (%s)`, ErrInvalidContact, sub, apple)
		}
		addr, _, _ := strings.Cut(rest, "?") // hfields (RFC 6068) may follow
		if u, err := url.PathUnescape(addr); err == nil {
			addr = u
		}
		a, err := mail.ParseAddress(addr)
		if err != nil || a.Address != addr || a.Name != "" {
			return fmt.Errorf(`%w: %q: want "mailto:" followed by a plain email address such as you@example.com (RFC 8292 §2.1)`, ErrInvalidContact, sub)
		}
		if domain := addr[strings.LastIndex(addr, "@")+1:]; localHost(domain) {
			return fmt.Errorf(`%w: %q names a local host: use an address on a public domain (%s)`, ErrInvalidContact, sub, apple)
		}
		return nil
	case "https":
		u, err := url.Parse(sub)
		if err != nil || u.Host == "" || u.Opaque != "" {
			return fmt.Errorf(`%w: %q: want an absolute "https://host/..." URL (RFC 8292 §2.1)`, ErrInvalidContact, sub)
		}
		if localHost(u.Hostname()) {
			return fmt.Errorf(`%w: %q names a local host: use a public https URL (%s)`, ErrInvalidContact, sub, apple)
		}
		return nil
	case "http":
		return fmt.Errorf(`%w: %q: the URL form must be https, not http (RFC 8292 §2.1)`, ErrInvalidContact, sub)
	default:
		return fmt.Errorf(`%w: %q: want "mailto:" and an address, or an "https:" URL (RFC 8292 §2.1)`, ErrInvalidContact, sub)
	}
}

// localHost reports whether host (a domain or an address literal, with or
// without brackets) is one no push service accepts in a contact: localhost,
// *.localhost, *.local, 127.0.0.0/8 or ::1.
func localHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	h = strings.TrimPrefix(h, "ipv6:") // RFC 5321 address literal
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "local" || strings.HasSuffix(h, ".local") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && (a.Unmap().IsLoopback() || a.IsUnspecified())
}
